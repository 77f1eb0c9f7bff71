// FTS5's snippet() of one column, computed in JavaScript from the column's UTF-8 bytes: the same excerpt, marked the
// same way, for the `porter unicode61 remove_diacritics 2` tokenizer of search_fts (search-index.ts). In SQLite the
// function runs the tokenizer twice over the whole text (sentence starts, then the marks), with the porter stemmer on
// every token, and a search reads each hit's row through FTS5 again to call it. Here the bytes are cut into tokens
// once, as FTS5 cuts them, and only tokens that can be a query term are stemmed.
// Checked against snippet() itself on real law texts (test/contract/sqlite-snippets.test.ts). Plain JavaScript for the
// reason sqlite-thread.mjs gives, type-checked from its JSDoc: an index the loop bounds keep in range is cast to its
// element type (`@type {number}`), as `!` would be in TypeScript.
// @ts-check
//
// The algorithm is fts5_aux.c's (fts5SnippetFunction, fts5SnippetScore, fts5SentenceFinderCb, fts5HighlightCb,
// fts5CInstIterNext), step for step where their order decides the answer; offsets are byte offsets, as there.

import { Buffer } from 'node:buffer';
import { porterStem } from './porter.mjs';

/**
 * How a snippet is marked: what opens and closes a run of query terms, what stands for text left out, and the
 * excerpt's length in tokens.
 * @typedef {{ readonly open: string; readonly close: string; readonly ellipsis: string; readonly size: number }} SnippetOptions
 */
/**
 * A token's stem as the index tokenizer makes it (for tokens holding characters outside ASCII), or null.
 * @typedef {(token: string) => string | null} StemOf
 */
/**
 * A query's phrases as every hit's snippet reads them (snippetTerms).
 * @typedef {object} SnippetTerms
 * @property {Map<string, number>} ids each distinct stem's number
 * @property {string[]} heads what an ASCII token must begin with to stem to one of them
 * @property {Uint8Array} wantedFirst by ASCII code: whether a head begins with it
 * @property {number[][]} phraseIds each phrase as the numbers of its stems (-1: a token that is no stem)
 * @property {number[]} lengths each phrase's length in tokens
 */
/**
 * One pass over a row's tokens (tokenize): how many, the sentence starts, the query terms among the ASCII tokens
 * (position and number, in position order), and the tokens holding other characters.
 * @typedef {{ count: number; sentences: number[]; matchPos: number[]; matchId: number[]; other: number[] }} Scan
 */
/**
 * The phrase instances of a row, in fts5CacheInstArray's order: each one's phrase and first token.
 * @typedef {{ phrase: number[]; position: number[] }} Instances
 */

/** ASCII token characters of unicode61: letters and digits (categories L* N* Co; every other ASCII byte separates). */
const ASCII_TOKEN = new Uint8Array(128);
for (const [from, to] of /** @type {[number, number][]} */ ([
  [48, 57],
  [65, 90],
  [97, 122],
])) {
  for (let c = from; c <= to; c++) ASCII_TOKEN[c] = 1;
}

const TOKEN_CHAR = /^[\p{L}\p{N}\p{Co}]$/u;
/** sqlite3Fts5UnicodeIsdiacritic: the combining marks a token may hold (folded away, never starting one). */
/** @type {(c: number) => boolean} */
const isDiacritic = (c) => c >= 768 && c <= 817 && ((c < 800 ? 0x08029fdf >>> (c - 768) : 0x000361f8 >>> (c - 800)) & 1) === 1;

const SEPARATOR = 1;
const STARTS_TOKEN = 2;
const IN_TOKEN = 3;
/** What a non-ASCII code point of the BMP is to the tokenizer, read from the regex once (0: not read yet). */
const bmpKinds = new Uint8Array(65_536);
/**
 * @param {number} cp
 * @returns {number}
 */
function kindOf(cp) {
  if (cp < 65_536 && bmpKinds[cp] !== 0) return /** @type {number} */ (bmpKinds[cp]);
  const kind = TOKEN_CHAR.test(String.fromCodePoint(cp)) ? STARTS_TOKEN : isDiacritic(cp) ? IN_TOKEN : SEPARATOR;
  if (cp < 65_536) bmpKinds[cp] = kind;
  return kind;
}

/** Where the character read by readCharacter ends. */
let characterEnd = 0;

/**
 * The code point of the UTF-8 character at `i` (SQLite's READ_UTF8: a stray continuation byte is itself).
 * @param {Buffer} bytes
 * @param {number} i
 * @returns {number}
 */
function readCharacter(bytes, i) {
  let c = /** @type {number} */ (bytes[i++]);
  if (c >= 0xc0) {
    c &= c < 0xe0 ? 0x1f : c < 0xf0 ? 0x0f : 0x07;
    // biome-ignore format: the formatter drops the parentheses of a JSDoc cast inside a binary expression
    while (i < bytes.length && (/** @type {number} */ (bytes[i]) & 0xc0) === 0x80) c = (c << 6) + (/** @type {number} */ (bytes[i++]) & 0x3f);
  }
  characterEnd = i;
  return c;
}

/** Where the token nextToken found ends, and whether it is all ASCII. */
let tokenEnd = 0;
let tokenAscii = true;

/**
 * The start of the first token at or after byte `from` (its end in tokenEnd), or -1: unicode61's cut.
 * @param {Buffer} bytes
 * @param {number} from
 * @returns {number}
 */
function nextToken(bytes, from) {
  const n = bytes.length;
  let i = from;
  for (;;) {
    if (i >= n) return -1;
    const c = /** @type {number} */ (bytes[i]);
    if (c < 128) {
      if (ASCII_TOKEN[c] === 1) break;
      i++;
    } else {
      if (kindOf(readCharacter(bytes, i)) === STARTS_TOKEN) break;
      i = characterEnd;
    }
  }
  const start = i;
  tokenAscii = true;
  while (i < n) {
    const c = /** @type {number} */ (bytes[i]);
    if (c < 128) {
      if (ASCII_TOKEN[c] === 0) break;
      i++;
    } else {
      if (kindOf(readCharacter(bytes, i)) === SEPARATOR) break;
      tokenAscii = false;
      i = characterEnd;
    }
  }
  tokenEnd = i;
  return start;
}

/**
 * The text of token number `position` (from 0) of a UTF-8 column as unicode61 cuts it (FTS5's instance offsets count
 * tokens so), as written there; null past the last. What an impact list asks FTS5 for when its token is not its own
 * stem (impact-lists.mjs, sourceWords).
 * @param {Buffer} bytes
 * @param {number} position
 * @returns {string | null}
 */
export function tokenAt(bytes, position) {
  let at = 0;
  for (let n = 0; ; n++) {
    const start = nextToken(bytes, at);
    if (start < 0) return null;
    if (n === position) return bytes.toString('utf8', start, tokenEnd);
    at = tokenEnd;
  }
}

/**
 * A query as every hit's snippet reads it, prepared once per search: its phrases as FTS5 reads them (each the text
 * inside its quotes) cut into tokens, each folded and stemmed (`stemOf` for one holding characters outside ASCII); the
 * distinct stems numbered, each phrase as those numbers and its length in tokens; and what an ASCII token must begin
 * with to stem to one of them (a stem keeps all but its last three letters at the front of its word).
 * @param {readonly string[]} phrases
 * @param {StemOf} stemOf
 * @returns {SnippetTerms}
 */
export function snippetTerms(phrases, stemOf) {
  const stems = phrases.map((phrase) => {
    const bytes = Buffer.from(phrase);
    const tokens = [];
    for (let start = nextToken(bytes, 0); start >= 0; start = nextToken(bytes, tokenEnd)) {
      const token = bytes.toString('utf8', start, tokenEnd);
      tokens.push(tokenAscii ? porterStem(token.toLowerCase()) : stemOf(token));
    }
    return tokens;
  });
  const ids = new Map();
  for (const phrase of stems) for (const token of phrase) if (token !== null && !ids.has(token)) ids.set(token, ids.size);
  const heads = [];
  const wantedFirst = new Uint8Array(128);
  for (const token of ids.keys()) {
    if (token.charCodeAt(0) >= 128) continue;
    const head = token.slice(0, Math.max(1, token.length - 3));
    heads.push(head);
    wantedFirst[head.charCodeAt(0)] = 1;
  }
  // Every stem that is not null was numbered above.
  const phraseIds = stems.map((phrase) => phrase.map((token) => (token === null ? -1 : /** @type {number} */ (ids.get(token)))));
  const lengths = stems.map((phrase) => phrase.length);
  return { ids, heads, wantedFirst, phraseIds, lengths };
}

/** Each token's byte offsets, reused from one call to the next (a snippet runs on one thread at a time). */
let starts = new Int32Array(4096);
let ends = new Int32Array(4096);

/**
 * The marked excerpt snippet(col, open, close, ellipsis, size) gives for a row whose column holds `bytes` (a Buffer of
 * its UTF-8), for a query's `terms` (snippetTerms). `stemOf(token)` stems a token holding characters outside ASCII
 * (the caller asks SQLite); a pure ASCII token is lower-cased and stemmed here. Each step is a function of its own, so
 * that each is optimised for what it meets.
 * @param {Buffer} bytes
 * @param {SnippetTerms} terms
 * @param {SnippetOptions} options
 * @param {StemOf} stemOf
 * @returns {string}
 */
export function fts5Snippet(bytes, terms, options, stemOf) {
  const scan = tokenize(bytes, terms);
  for (const pos of scan.other) {
    const stem = stemOf(bytes.toString('utf8', starts[pos], ends[pos]));
    const id = stem === null ? undefined : terms.ids.get(stem);
    if (id !== undefined) addMatch(scan, pos, id);
  }
  const found = instancesOf(terms.phraseIds, scan);
  const start = bestStart(found, terms.lengths, scan, options.size);
  return highlight(bytes, found, terms.lengths, scan.count, start, options);
}

/**
 * Whether the token at `start` begins a sentence: whitespace before it, and before that a `.` or `:`.
 * @param {Buffer} bytes
 * @param {number} start
 * @returns {boolean}
 */
function startsSentence(bytes, start) {
  let i = start - 1;
  let c = 0;
  for (; i >= 0; i--) {
    c = /** @type {number} */ (bytes[i]);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
  }
  return i !== start - 1 && (c === 46 || c === 58);
}

/**
 * A Buffer's own latin1Slice (what toString('latin1', start, end) calls), which @types/node leaves out.
 * @typedef {Buffer & { latin1Slice(start: number, end: number): string }} Latin1Slicing
 */

/**
 * One pass over the bytes, as unicode61 cuts them (nextToken): every token's offsets (in `starts` and `ends`), the
 * sentence starts (fts5SentenceFinderCb), the ASCII tokens that are query terms, and the tokens holding other
 * characters (stemmed by the caller).
 * @param {Buffer} bytes
 * @param {SnippetTerms} terms
 * @returns {Scan}
 */
function tokenize(bytes, { ids, heads, wantedFirst }) {
  /** @type {number[]} */
  const sentences = [];
  /** @type {number[]} */
  const matchPos = [];
  /** @type {number[]} */
  const matchId = [];
  /** @type {number[]} */
  const other = [];
  let count = 0;
  for (let start = nextToken(bytes, 0); start >= 0; start = nextToken(bytes, tokenEnd)) {
    const end = tokenEnd;
    if (count === starts.length) {
      starts = grow(starts);
      ends = grow(ends);
    }
    starts[count] = start;
    ends[count] = end;
    if (count === 0 || startsSentence(bytes, start)) sentences.push(count);
    if (!tokenAscii) other.push(count);
    else {
      const first = /** @type {number} */ (bytes[start]);
      if (wantedFirst[first >= 65 && first <= 90 ? first + 32 : first] === 1 && beginsWithOne(bytes, start, end, heads)) {
        const id = ids.get(porterStem(/** @type {Latin1Slicing} */ (bytes).latin1Slice(start, end).toLowerCase()));
        if (id !== undefined) {
          matchPos.push(count);
          matchId.push(id);
        }
      }
    }
    count++;
  }
  return { count, sentences, matchPos, matchId, other };
}

/**
 * A query token found at `pos` among the ASCII ones, kept in position order.
 * @param {Scan} scan
 * @param {number} pos
 * @param {number} id
 */
function addMatch({ matchPos, matchId }, pos, id) {
  let at = matchPos.length;
  while (at > 0 && /** @type {number} */ (matchPos[at - 1]) > pos) at--;
  matchPos.splice(at, 0, pos);
  matchId.splice(at, 0, id);
}

/**
 * The phrase instances, by position and, at one position, by phrase (fts5CacheInstArray's order).
 * @param {readonly (readonly number[])[]} phraseIds
 * @param {Scan} scan
 * @returns {Instances}
 */
function instancesOf(phraseIds, { matchPos, matchId }) {
  /** @type {Map<number, number>} */
  const idAt = new Map();
  for (let m = 0; m < matchPos.length; m++) idAt.set(/** @type {number} */ (matchPos[m]), /** @type {number} */ (matchId[m]));
  /** @type {number[]} */
  const phrase = [];
  /** @type {number[]} */
  const position = [];
  for (const pos of matchPos) {
    for (let p = 0; p < phraseIds.length; p++) {
      const tokens = /** @type {readonly number[]} */ (phraseIds[p]);
      if (tokens.length === 0) continue;
      let t = 0;
      while (t < tokens.length && idAt.get(pos + t) === tokens[t]) t++;
      if (t === tokens.length) {
        phrase.push(p);
        position.push(pos);
      }
    }
  }
  return { phrase, position };
}

/**
 * fts5SnippetFunction's choice of the first token: for each instance, the window it starts (centred on what it holds)
 * and the window of the sentence it is in, each scored by fts5SnippetScore (1000 a phrase, 1 a repeat; a sentence's
 * start adds 100, the text's start 120); the first best wins.
 * @param {Instances} instances
 * @param {readonly number[]} lengths
 * @param {Scan} scan
 * @param {number} size
 * @returns {number}
 */
function bestStart({ phrase, position }, lengths, { count, sentences }, size) {
  const seen = new Uint8Array(lengths.length);
  let adjusted = 0;
  /** @type {(from: number) => number} */
  const score = (from) => {
    seen.fill(0);
    let total = 0;
    let first = -1;
    let last = 0;
    for (let k = lowerBound(position, from); k < position.length && /** @type {number} */ (position[k]) < from + size; k++) {
      const p = /** @type {number} */ (phrase[k]);
      const at = /** @type {number} */ (position[k]);
      total += seen[p] === 1 ? 1 : 1000;
      seen[p] = 1;
      if (first < 0) first = at;
      last = at + /** @type {number} */ (lengths[p]);
    }
    adjusted = first - Math.trunc((size - (last - first)) / 2);
    if (adjusted + size > count) adjusted = count - size;
    if (adjusted < 0) adjusted = 0;
    return total;
  };
  let best = 0;
  let start = 0;
  let jj = 0;
  for (const io of position) {
    const here = score(io);
    if (here > best) {
      best = here;
      start = adjusted;
    }
    if (sentences.length > 0 && count > size) {
      // The last sentence start at or before the instance (instances come in order, so the search only moves on).
      while (jj < sentences.length - 1 && /** @type {number} */ (sentences[jj + 1]) <= io) jj++;
      const at = /** @type {number} */ (sentences[jj]);
      if (at < io) {
        const sentence = score(at) + (at === 0 ? 120 : 100);
        if (sentence > best) {
          best = sentence;
          start = at;
        }
      }
    }
  }
  return start;
}

/**
 * The excerpt of `size` tokens from `rangeStart`, marked as fts5HighlightCb marks it: each run of overlapping instances
 * (fts5CInstIterNext) from the first at or after the range's start, an ellipsis where the text goes on.
 * @param {Buffer} bytes
 * @param {Instances} instances
 * @param {readonly number[]} lengths
 * @param {number} count
 * @param {number} rangeStart
 * @param {SnippetOptions} options
 * @returns {string}
 */
function highlight(bytes, { phrase, position }, lengths, count, rangeStart, { open, close, ellipsis, size }) {
  const rangeEnd = rangeStart + size - 1;
  let next = 0;
  let instStart = -1;
  let instEnd = -1;
  const nextInstance = () => {
    instStart = -1;
    instEnd = -1;
    for (; next < position.length; next++) {
      const io = /** @type {number} */ (position[next]);
      const end = io - 1 + /** @type {number} */ (lengths[/** @type {number} */ (phrase[next])]);
      if (instStart < 0) {
        instStart = io;
        instEnd = end;
      } else if (io <= instEnd) {
        if (end > instEnd) instEnd = end;
      } else break;
    }
  };
  nextInstance();
  while (instStart >= 0 && instStart < rangeStart) nextInstance();

  let out = rangeStart > 0 ? ellipsis : '';
  let copied = 0;
  let isOpen = false;
  for (let pos = rangeStart; pos <= rangeEnd && pos < count; pos++) {
    const startOff = /** @type {number} */ (starts[pos]);
    const endOff = /** @type {number} */ (ends[pos]);
    if (rangeStart !== 0 && pos === rangeStart) copied = startOff;
    if (isOpen && (pos <= instStart || instStart < 0) && startOff > copied) {
      out += close;
      isOpen = false;
    }
    if (pos === instStart && !isOpen) {
      out += bytes.toString('utf8', copied, startOff) + open;
      copied = startOff;
      isOpen = true;
    }
    if (pos === instEnd) {
      if (!isOpen) {
        out += open;
        isOpen = true;
      }
      out += bytes.toString('utf8', copied, endOff);
      copied = endOff;
      nextInstance();
    }
    if (pos === rangeEnd) {
      if (isOpen) {
        if (instStart >= 0 && pos >= instStart) {
          out += bytes.toString('utf8', copied, endOff);
          copied = endOff;
        }
        out += close;
        isOpen = false;
      }
      out += bytes.toString('utf8', copied, endOff);
      copied = endOff;
    }
  }
  if (isOpen) out += close;
  return rangeEnd >= count - 1 ? out + bytes.toString('utf8', copied) : out + ellipsis;
}

/**
 * Whether the token `bytes[start, end)`, lower-cased, begins with one of `heads` (lower-case ASCII).
 * @param {Buffer} bytes
 * @param {number} start
 * @param {number} end
 * @param {readonly string[]} heads
 * @returns {boolean}
 */
function beginsWithOne(bytes, start, end, heads) {
  for (let h = 0; h < heads.length; h++) {
    const head = /** @type {string} */ (heads[h]);
    if (head.length > end - start) continue;
    let k = 0;
    for (; k < head.length; k++) {
      const c = /** @type {number} */ (bytes[start + k]);
      if ((c >= 65 && c <= 90 ? c + 32 : c) !== head.charCodeAt(k)) break;
    }
    if (k === head.length) return true;
  }
  return false;
}

/**
 * @param {Int32Array<ArrayBuffer>} array
 * @returns {Int32Array<ArrayBuffer>}
 */
function grow(array) {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * The first index of the ascending `values` whose value is at least `value`.
 * @param {readonly number[]} values
 * @param {number} value
 * @returns {number}
 */
function lowerBound(values, value) {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (/** @type {number} */ (values[mid]) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
