import { describe, expect, it } from 'vitest';
import { QUERY_MAX_CHARS, QUERY_MAX_WORDS, queryTooLong, queryWordCount } from '#law/search.ts';

describe('the limits on a search query', () => {
  it('counts words as runs of letters and digits, as the text parser at least splits them', () => {
    expect(queryWordCount('28 U.S.C. § 1291')).toBe(5);
    expect(queryWordCount('self-defense "security deposit"')).toBe(4);
    expect(queryWordCount('Ünïcödé naïve café')).toBe(3);
    expect(queryWordCount(' , § " -- ')).toBe(0);
  });

  it(`admits ${QUERY_MAX_WORDS} words and ${QUERY_MAX_CHARS} characters, and says which limit a longer query passes`, () => {
    const words = (n: number) => Array.from({ length: n }, () => 'court').join(' ');

    expect(queryTooLong(words(QUERY_MAX_WORDS))).toBeNull();
    expect(queryTooLong('x'.repeat(QUERY_MAX_CHARS))).toBeNull();
    expect(queryTooLong(words(QUERY_MAX_WORDS + 1))).toBe('q is too long: at most 32 words and 1,000 characters (got 33 words).');
    expect(queryTooLong('x'.repeat(QUERY_MAX_CHARS + 1))).toBe(
      'q is too long: at most 32 words and 1,000 characters (got 1,001 characters).',
    );
    expect(queryTooLong(words(65_000))).toMatch(/\(got 389,999 characters\)\.$/);
  });
});
