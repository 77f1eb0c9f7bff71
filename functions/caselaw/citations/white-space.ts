/**
 * JavaScript's `\s` for one UTF-16 code unit (white space and line terminators), read from its code: the hot loops of
 * the extractor and the statute finder test characters one at a time, where a call of `/\s/.test` costs many times more.
 */
export function isWhiteSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
