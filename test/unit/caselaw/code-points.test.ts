import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, codePointOffsets } from '#caselaw/code-points.ts';
import { parseRequest } from '#caselaw/resolve.ts';

/** What CourtListener (Python) would answer for `text[start:end]`: a slice by code points. */
const pythonSlice = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join('');

describe('offsets as CourtListener counts them (code points)', () => {
  it('counts a character outside the BMP as one, and a combining mark as one of its own', () => {
    // 😀 and 𝐀 (U+1D400) are two UTF-16 units each; é is e + U+0301, two code points as written.
    const text = '😀 e\u0301 𝐀 “Roe,” 410 U.S. 113';
    const [roe] = parseRequest({ text });
    expect(text.indexOf('410')).toBe(16); // UTF-16 units
    expect([roe!.start, roe!.end]).toEqual([14, 26]);
    expect(pythonSlice(text, roe!.start, roe!.end)).toBe('410 U.S. 113');
  });

  it('gives the same offsets as UTF-16 where the text has nothing outside the BMP, combining marks included', () => {
    const text = 'Cafe\u0301 v. Ni\u00f1o, 267 Ga. 9 (1996)';
    const [cite] = parseRequest({ text });
    expect([cite!.start, cite!.end]).toEqual([text.indexOf('267'), text.indexOf(' (1996)')]);
  });

  it('counts a citations item by code points too', () => {
    const [item] = parseRequest({ citations: ['𝐀 12 Foo. Rptr. 34'] });
    expect([item!.start, item!.end]).toEqual([0, codePointLength('𝐀 12 Foo. Rptr. 34')]);
    expect(item!.end).toBe(18);
  });

  it('maps every UTF-16 boundary to the code point Python would count, whatever the text', () => {
    const char = fc.oneof(fc.constantFrom('a', ' ', '\u0301', '😀', '𝐀', '§', '\n'), fc.string({ maxLength: 1, unit: 'binary' }));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 60 }), (chars) => {
        const text = chars.join('');
        const toCodePoints = codePointOffsets(text);
        let utf16 = 0;
        Array.from(text).forEach((ch, index) => {
          expect(toCodePoints(utf16)).toBe(index);
          utf16 += ch.length;
        });
        expect(toCodePoints(text.length)).toBe(Array.from(text).length);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves a placeholder citation out of what is resolved and billed', () => {
    const parsed = parseRequest({ text: 'Patterson v. Shumate, ___ U.S. ___, 112 S. Ct. 2242 (1992)' });
    expect(parsed.map((p) => p.citation)).toEqual(['112 S. Ct. 2242']);
  });
});
