import { describe, expect, it } from 'vitest';
import { parseKeywords } from '#law/keywords.ts';

describe('parseKeywords', () => {
  it('keeps quoted phrases apart and every other word as an ANDed word', () => {
    expect(parseKeywords('tenant "security deposit" or -landlord')).toEqual({
      words: 'tenant   or -landlord',
      phrases: ['security deposit'],
    });
  });

  it('reads an unterminated quote as plain words and drops empty phrases', () => {
    expect(parseKeywords('"" notice "of appeal')).toEqual({ words: 'notice  of appeal', phrases: [] });
  });

  it('honours at most eight phrases: the quoted text past them counts as words', () => {
    const q = Array.from({ length: 10 }, (_, i) => `"p${i} x"`).join(' ');

    const { words, phrases } = parseKeywords(q);

    expect(phrases).toEqual(Array.from({ length: 8 }, (_, i) => `p${i} x`));
    expect(words.split(/\s+/)).toEqual(['p8', 'x', 'p9', 'x']);
  });

  it('gives nothing for an empty or blank query', () => {
    expect(parseKeywords('')).toEqual({ words: '', phrases: [] });
    expect(parseKeywords('  "  " ')).toEqual({ words: '', phrases: [] });
  });
});
