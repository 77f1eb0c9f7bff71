// The porter stemmer of SQLite's FTS5 (fts5_tokenize.c, fts5PorterCb and the steps mkportersteps.tcl generates),
// ported rule for rule: a token's stem here is the stem FTS5 puts in the index, checked against SQLite on every word of
// the sample corpus (test/contract/sqlite-snippets.test.ts). It works on a folded token, one character per byte:
// FTS5 stems the token's UTF-8 bytes, so a caller passes ASCII, or a string of the bytes (latin1) and decodes the stem.
// Plain JavaScript for the reason sqlite-thread.mjs gives, type-checked from its JSDoc.
// @ts-check

/** Tokens longer than this (in bytes), or shorter than 3, are their own stem. */
const MAX_TOKEN = 64;

/** @type {(c: string | undefined, yIsVowel: boolean) => boolean} */
const isVowel = (c, yIsVowel) => c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');

/**
 * fts5PorterGobbleVC: the length of the first vowel-then-consonant run of `s[from, to)` (0 when it has none).
 * @param {string} s
 * @param {number} from
 * @param {number} to
 * @param {boolean} prevConsonant
 * @returns {number}
 */
function gobbleVC(s, from, to, prevConsonant) {
  let consonant = prevConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(s[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(s[i], consonant);
    if (consonant) return i + 1 - from;
  }
  return 0;
}

/**
 * Porter's measure of the stem `s[0, n)`: m > 0, m > 1, m = 1.
 * @typedef {(s: string, n: number) => boolean} Condition
 */
/** @type {Condition} */
const mGt0 = (s, n) => gobbleVC(s, 0, n, false) !== 0;
/** @type {Condition} */
function mGt1(s, n) {
  const first = gobbleVC(s, 0, n, false);
  return first !== 0 && gobbleVC(s, first, n, true) !== 0;
}
/** @type {Condition} */
function mEq1(s, n) {
  const first = gobbleVC(s, 0, n, false);
  return first !== 0 && gobbleVC(s, first, n, true) === 0;
}

/** *o: the stem ends consonant, vowel, consonant, the last not w, x or y. @type {Condition} */
function endsCvc(s, n) {
  const last = s[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(s[i], consonant);
    mask = (mask << 1) + (consonant ? 1 : 0);
  }
  return (mask & 7) === 5;
}

/** *v*: the stem holds a vowel (y counting as one after the first letter). @type {Condition} */
function hasVowel(s, n) {
  for (let i = 0; i < n; i++) if (isVowel(s[i], i > 0)) return true;
  return false;
}

/** @type {Condition} */
const mGt1SorT = (s, n) => (s[n - 1] === 's' || s[n - 1] === 't') && mGt1(s, n);

/**
 * A step's rules by the second-last letter, each [suffix, condition, replacement], tried in order: the first whose
 * suffix ends the word (with at least one letter before it) is the step's only candidate, applied if its condition
 * holds of the stem before the suffix.
 * @typedef {Readonly<Record<string, readonly (readonly [suffix: string, condition: Condition, replacement: string])[]>>} Rules
 */
/** @type {Rules} */
const STEP2 = {
  a: [
    ['ational', mGt0, 'ate'],
    ['tional', mGt0, 'tion'],
  ],
  c: [
    ['enci', mGt0, 'ence'],
    ['anci', mGt0, 'ance'],
  ],
  e: [['izer', mGt0, 'ize']],
  g: [['logi', mGt0, 'log']],
  l: [
    ['bli', mGt0, 'ble'],
    ['alli', mGt0, 'al'],
    ['entli', mGt0, 'ent'],
    ['eli', mGt0, 'e'],
    ['ousli', mGt0, 'ous'],
  ],
  o: [
    ['ization', mGt0, 'ize'],
    ['ation', mGt0, 'ate'],
    ['ator', mGt0, 'ate'],
  ],
  s: [
    ['alism', mGt0, 'al'],
    ['iveness', mGt0, 'ive'],
    ['fulness', mGt0, 'ful'],
    ['ousness', mGt0, 'ous'],
  ],
  t: [
    ['aliti', mGt0, 'al'],
    ['iviti', mGt0, 'ive'],
    ['biliti', mGt0, 'ble'],
  ],
};
/** @type {Rules} */
const STEP3 = {
  a: [['ical', mGt0, 'ic']],
  s: [['ness', mGt0, '']],
  t: [
    ['icate', mGt0, 'ic'],
    ['iciti', mGt0, 'ic'],
  ],
  u: [['ful', mGt0, '']],
  v: [['ative', mGt0, '']],
  z: [['alize', mGt0, 'al']],
};
/** @type {Rules} */
const STEP4 = {
  a: [['al', mGt1, '']],
  c: [
    ['ance', mGt1, ''],
    ['ence', mGt1, ''],
  ],
  e: [['er', mGt1, '']],
  i: [['ic', mGt1, '']],
  l: [
    ['able', mGt1, ''],
    ['ible', mGt1, ''],
  ],
  n: [
    ['ant', mGt1, ''],
    ['ement', mGt1, ''],
    ['ment', mGt1, ''],
    ['ent', mGt1, ''],
  ],
  o: [
    ['ion', mGt1SorT, ''],
    ['ou', mGt1, ''],
  ],
  s: [['ism', mGt1, '']],
  t: [
    ['ate', mGt1, ''],
    ['iti', mGt1, ''],
  ],
  u: [['ous', mGt1, '']],
  v: [['ive', mGt1, '']],
  z: [['ize', mGt1, '']],
};

/**
 * One generated step on `w`: the word after it.
 * @param {string} w
 * @param {Rules} rules
 * @returns {string}
 */
function step(w, rules) {
  const candidates = rules[w.charAt(w.length - 2)];
  if (candidates === undefined) return w;
  for (const [suffix, condition, replacement] of candidates) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const stem = w.length - suffix.length;
      return condition(w, stem) ? w.slice(0, stem) + replacement : w;
    }
  }
  return w;
}

/**
 * fts5PorterStep1A: sses → ss, ies → i, s → (not after s).
 * @param {string} w
 * @returns {string}
 */
function step1a(w) {
  const n = w.length;
  if (w[n - 1] !== 's') return w;
  if (w[n - 2] === 'e')
    return (n > 4 && w[n - 4] === 's' && w[n - 3] === 's') || (n > 3 && w[n - 3] === 'i') ? w.slice(0, n - 2) : w.slice(0, n - 1);
  return w[n - 2] !== 's' ? w.slice(0, n - 1) : w;
}

/**
 * fts5PorterStep1B and what follows it: eed → ee, ed / ing dropped after a vowel, then at → ate, bl → ble, …
 * @param {string} w
 * @returns {string}
 */
function step1b(w) {
  const n = w.length;
  let stem;
  if (w[n - 2] === 'e') {
    if (n > 3 && w.endsWith('eed')) return mGt0(w, n - 3) ? w.slice(0, n - 1) : w;
    if (n > 2 && w.endsWith('ed') && hasVowel(w, n - 2)) stem = w.slice(0, n - 2);
  } else if (w[n - 2] === 'n' && n > 3 && w.endsWith('ing') && hasVowel(w, n - 3)) stem = w.slice(0, n - 3);
  if (stem === undefined) return w;
  const m = stem.length;
  const tail = stem[m - 2];
  if (m > 2 && ((tail === 'a' && stem.endsWith('at')) || (tail === 'b' && stem.endsWith('bl')) || (tail === 'i' && stem.endsWith('iz')))) {
    return `${stem}e`;
  }
  const c = stem[m - 1];
  if (!isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && c === stem[m - 2]) return stem.slice(0, m - 1);
  if (mEq1(stem, m) && endsCvc(stem, m)) return `${stem}e`;
  return stem;
}

/**
 * The stem FTS5's porter tokenizer gives a folded token of one byte per character.
 * @param {string} token
 * @returns {string}
 */
export function porterStem(token) {
  if (token.length > MAX_TOKEN || token.length < 3) return token;
  let w = step1b(step1a(token));
  const n = w.length;
  if (w[n - 1] === 'y' && hasVowel(w, n - 1)) w = `${w.slice(0, n - 1)}i`;
  w = step(step(step(w, STEP2), STEP3), STEP4);
  let m = w.length;
  if (w[m - 1] === 'e' && (mGt1(w, m - 1) || (mEq1(w, m - 1) && !endsCvc(w, m - 1)))) w = w.slice(0, --m);
  if (m > 1 && w[m - 1] === 'l' && w[m - 2] === 'l' && mGt1(w, m - 1)) w = w.slice(0, m - 1);
  return w;
}
