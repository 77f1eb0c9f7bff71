import { describe, expect, it } from 'vitest';
import { WordFrequencies } from '../../../bench/corpus-words.ts';
import { prng } from '../../../bench/synthetic-uslm.ts';

describe('the search words of a corpus (bench/corpus-words.ts)', () => {
  it('counts a word once a section, however many versions of it are read in a row', () => {
    // Prepare: "district" in three sections (one of them in three versions), "columbia" in two, "tetanus" in one
    const words = new WordFrequencies();
    for (let v = 0; v < 3; v++) words.add('dc#1-101', 'The District of Columbia shall provide.');
    words.add('dc#1-102', 'The district court of Columbia.');
    words.add('dc#1-103', 'Each district; tetanus.');

    // Act
    const { broad, narrow } = words.queries(prng(1), 2);

    // Assess: by sections, "district" (3) before "columbia" (2) and "provide" (1); short and stop words never count
    expect(broad).toEqual(['district', 'columbia', 'provide', 'district columbia']);
    expect(narrow).toHaveLength(2);
    expect(narrow.every((w) => w === 'district' || w === 'columbia')).toBe(true);
  });

  it('refuses a corpus too small to draw queries from', () => {
    const one = new WordFrequencies();
    one.add('us#1-1', 'statute');
    expect(() => one.queries(prng(1))).toThrow(/too few words/);

    const noneInTwoOrThree = new WordFrequencies();
    noneInTwoOrThree.add('us#1-1', 'alpha bravo charlie');
    noneInTwoOrThree.add('us#1-2', 'deltas echoes foxtrot');
    expect(() => noneInTwoOrThree.queries(prng(1))).toThrow(/two or three sections/);
  });
});
