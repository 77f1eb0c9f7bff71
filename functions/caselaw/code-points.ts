/**
 * Offsets as CourtListener's citation-lookup API counts them: in code points (Python's `str` indices), not in the
 * UTF-16 code units JavaScript strings are indexed by. The two differ after each character outside the Basic
 * Multilingual Plane (an emoji, a mathematical letter), which is one code point and two code units; a combining mark
 * is one of each, so text is counted as given, never normalised.
 */

/** A converter from UTF-16 offsets in `text` to code-point offsets. */
export function codePointOffsets(text: string): (utf16Offset: number) => number {
  const pairs: number[] = []; // UTF-16 offsets of the low halves of surrogate pairs
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) pairs.push(++i);
    }
  }
  if (pairs.length === 0) return (offset) => offset;
  return (offset) => {
    // Every pair whose low half lies before the offset counted one unit too many.
    let lo = 0;
    let hi = pairs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairs[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset - lo;
  };
}

/** The length of `text` in code points. */
export function codePointLength(text: string): number {
  return codePointOffsets(text)(text.length);
}
