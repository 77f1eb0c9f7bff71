import { describe, expect, it } from 'vitest';
import { isWhiteSpace } from '#caselaw/citations/white-space.ts';

describe('white space', () => {
  it('is what /\\s/ matches, for every UTF-16 code unit', () => {
    for (let code = 0; code <= 0xffff; code++) expect(isWhiteSpace(code), code.toString(16)).toBe(/\s/.test(String.fromCharCode(code)));
  });
});
