import { describe, expect, it } from 'vitest';
import { AbbreviationTrie, TrieMatches } from '#caselaw/citations/abbreviation-trie.ts';
import type { Abbreviation } from '#caselaw/citations/reporters.ts';

const abbreviation = (text: string): Abbreviation => ({
  text,
  kind: 'case',
  editions: [],
  canonical: true,
  volumeless: false,
  hasForms: false,
});

function walk(trie: AbbreviationTrie, text: string, from: number, out = new TrieMatches()): Array<[number, string]> {
  trie.matchesAt(text, from, out);
  return out.ends.slice(0, out.count).map((end, k) => [end, out.abbreviations[k]!.text]);
}

describe('abbreviation trie', () => {
  it('gives every abbreviation starting at a position, shortest first, with its end', () => {
    const trie = new AbbreviationTrie(['F.', 'F.2d', 'F. Supp.', 'U.S.'].map(abbreviation));
    expect(walk(trie, 'see 5 F.2d 9', 6)).toEqual([
      [8, 'F.'],
      [10, 'F.2d'],
    ]);
    expect(walk(trie, '5 F.\n  Supp. 9', 2)).toEqual([
      [4, 'F.'],
      [12, 'F. Supp.'],
    ]);
  });

  it('orders by end a match found on a branch after a longer one on the main path', () => {
    // `A. BCD` is read on the main path (the text's space kept); `A.B` on the branch that drops it, later but shorter.
    const trie = new AbbreviationTrie(['A. BCD', 'A.B'].map(abbreviation));
    expect(walk(trie, 'A. BCD', 0)).toEqual([
      [4, 'A.B'],
      [6, 'A. BCD'],
    ]);
    // And the other way round: `S.Ct.` printed for `S. Ct.`.
    expect(walk(new AbbreviationTrie(['S. Ct.'].map(abbreviation)), '1 S.Ct. 2', 2)).toEqual([[7, 'S. Ct.']]);
  });

  it('finds nothing where no abbreviation starts, and clears a reused buffer', () => {
    const trie = new AbbreviationTrie(['U.S.', '§ 1', 'Ü.'].map(abbreviation));
    const out = new TrieMatches();
    expect(walk(trie, '1 U.S. 1', 2, out)).toEqual([[6, 'U.S.']]);
    expect(walk(trie, '1 U.S. 1', 3, out)).toEqual([]);
    expect(walk(trie, '1 US 1', 2, out)).toEqual([]);
    expect(walk(trie, 'U.', 0, out)).toEqual([]);
    expect(walk(trie, '', 0, out)).toEqual([]);
    expect(walk(trie, 'Ü. 1', 0, out)).toEqual([[2, 'Ü.']]);
    expect(walk(trie, '§\t1', 0, out)).toEqual([[3, '§ 1']]);
  });

  it('gives one abbreviation per end, the one spelled as the text prints it, where two differ only by a space after a period', () => {
    // reporters-db: `P.R.` is a variation of three reporters, `P. R.` of one (eyecite's disambiguation case 5).
    const trie = new AbbreviationTrie(['P.R.', 'P. R.'].map(abbreviation));
    expect(walk(trie, '1 P.R. 1', 2)).toEqual([[6, 'P.R.']]);
    expect(walk(trie, '1 P. R. 1', 2)).toEqual([[7, 'P. R.']]);
  });

  it('keeps equal ends in the order they were found', () => {
    const out = new TrieMatches();
    const [a, b, c] = ['a', 'b', 'c'].map(abbreviation);
    out.push(5, a!);
    out.push(3, b!);
    out.push(5, c!);
    expect(out.ends.slice(0, out.count)).toEqual([3, 5, 5]);
    expect(out.abbreviations.slice(0, out.count).map((x) => x.text)).toEqual(['b', 'a', 'c']);
  });
});
