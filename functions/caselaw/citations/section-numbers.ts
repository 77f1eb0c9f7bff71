/**
 * Section numbers as they run in text after a code's name, shared by the carried collections' finder (statutes.ts)
 * and the codes not carried (codes-not-carried.ts): a `§§` list or range, `et seq.`, the word before a position.
 */
import { isWhiteSpace } from './white-space.ts';

/** A section number as printed: `1291`, `22-404.05`, `61-8B-1`, `47:633`, `5/12-3`'s `12-3`. */
export const NUMBER = /^\d[0-9A-Za-z]*(?:[.:\-\u2011\u2013\u2014][0-9A-Za-z]+)*/;

/** A dash between two digits, as printed for a section number's hyphen (`§ 39–13–101`, `§ 39—13—101`). */
const DIGIT_DASH = /(?<=\d)[\u2011\u2013\u2014](?=\d)/g;

const DASH = /[\u2011\u2013\u2014]/;

/** Dashes between digits read as the hyphens they stand for; one code unit each, so offsets do not move. */
export const hyphenated = (text: string): string => (DASH.test(text) ? text.replace(DIGIT_DASH, '-') : text);
/** Subdivisions glued to the number: `(a)(7)`. */
export const PINPOINT_AT = /^(?:\([0-9A-Za-z]{1,4}\))+/;
const LIST_GAP = /^(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)/;
const RANGE_GAP = /^\s*(?:to|through|thru|[\u2013\u2014]|-)\s*/;
/** `§ 1601 et seq.`: the section that begins the run the citation names; the words belong to the span. */
const ET_SEQ = /^,?\s+et\s+seq\.?/;

/** Where `et seq.` printed right after `end` ends; `end` when it is not there. */
export function pastEtSeq(text: string, end: number): number {
  const m = ET_SEQ.exec(text.slice(end, end + 12));
  return m ? end + m[0].length : end;
}

/** The word that ends just before `at`, past white space and a comma. */
export function wordBefore(text: string, at: number): string {
  let end = at;
  while (end > 0 && (text.charCodeAt(end - 1) === 0x2c || isWhiteSpace(text.charCodeAt(end - 1)))) end--;
  let start = end;
  while (start > 0 && !isWhiteSpace(text.charCodeAt(start - 1))) start--;
  return text.slice(start, end);
}

export interface ListedNumber {
  number: string;
  /** [from, to) of the number, its pinpoint included. */
  from: number;
  to: number;
  pinpoint: string | null;
}

/**
 * The numbers of a `§§` list or range from `at` (the first number): `1291-1292`, `1491, 2501`, `29.02 & 29.03`,
 * `12101 through 12213`. `split` reads two numbers out of one printed with a hyphen, where the code's numbering
 * tells a range from a hyphenated number; `stop` says another citation starts at a position.
 */
export function listedNumbers(
  text: string,
  at: number,
  split: (printed: string) => [string, string] | null,
  stop: (at: number) => boolean,
): ListedNumber[] {
  const out: ListedNumber[] = [];
  let i = at;
  for (;;) {
    const number = NUMBER.exec(text.slice(i, i + 40));
    if (!number || (out.length > 0 && stop(i))) break;
    let numberEnd = i + number[0].length;
    const pin = PINPOINT_AT.exec(text.slice(numberEnd, numberEnd + 40));
    if (pin) numberEnd += pin[0].length;
    const run = pin ? null : split(number[0]);
    if (run) {
      out.push({ number: run[0], from: i, to: i + run[0].length, pinpoint: null });
      out.push({ number: run[1], from: numberEnd - run[1].length, to: numberEnd, pinpoint: null });
    } else {
      out.push({ number: number[0], from: i, to: numberEnd, pinpoint: pin ? pin[0] : null });
    }
    const rest = text.slice(numberEnd, numberEnd + 16);
    const gap = LIST_GAP.exec(rest) ?? (run ? null : RANGE_GAP.exec(rest));
    if (!gap || !/^\d/.test(text.slice(numberEnd + gap[0].length, numberEnd + gap[0].length + 1))) break;
    i = numberEnd + gap[0].length;
  }
  return out;
}
