/**
 * Statute and court-rule citations in running text. The carried collections are found by their own printed-form
 * grammars (Collection.printedPatterns, the same patterns /law/lookup reads a `citation` with), unanchored; codes
 * that are not carried by reporters-db's law abbreviations (laws.json) before a `§` (`Mass. Gen. Laws ch. 93A, § 2`,
 * `Cal. Penal Code § 187`), so that a citation of a state we do not carry is still found and answered `not_carried`.
 *
 * The text is searched for what every such citation holds (a `§`, `U.S.C.`, a rule set's `R. App. P.`, a code's name,
 * `title N`, …); the grammars run only on the hundred characters around each of those, so the search costs little
 * beside the case-citation extractor. Dashes between digits read as hyphens (`§ 39–13–101` is `39-13-101`).
 *
 * A `§§` list or range is one citation per section number printed: `28 USC §§ 1291-1292` is 1291 (span `28 USC §§
 * 1291`) and 1292 (span `1292`); the sections between the ends of a longer range are not printed and not listed.
 *
 * Offsets are UTF-16 code units, as the case extractor's (extract.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTIONS, type Collection } from '#law/collections.ts';
import { BARE_CODE_WORDS, bareCodeAt, lawsBefore } from './codes-not-carried.ts';
import type { FoundStatute } from './found-statute.ts';
import { reportersDbDir } from './reporters.ts';
import { hyphenated, listedNumbers, pastEtSeq, wordBefore } from './section-numbers.ts';
import { isWhiteSpace } from './white-space.ts';

export type { FoundStatute };

/** A pinpoint as it runs in text: subdivisions glued to the number, `(a)(7)`; `§ 1291 (2006)` is a year, not one. */
const PIN = String.raw`(?:\([0-9A-Za-z]{1,4}\))*`;
const ANCHORED_PINPOINT = String.raw`(?:\s*\(.*)?$`;
const LEFT = '(?<![0-9A-Za-z§])';

/** An anchored printed-form pattern, made to find the same form in running text. */
export function inText(pattern: RegExp): RegExp {
  let source = pattern.source.replace(/^\^/, '');
  if (source.endsWith(ANCHORED_PINPOINT)) source = source.slice(0, -ANCHORED_PINPOINT.length) + PIN;
  else source = source.replace(/\$$/, '');
  return new RegExp(`${LEFT}(?:${source})`, `g${pattern.flags.replace(/[gy]/g, '')}`);
}

const BEFORE = 40;
const AFTER = 80;

/** The kinds of grammar a literal found in the text may start. */
type Trigger = 'usc' | 'rules' | 'code';
const TRIGGERS: readonly Trigger[] = ['usc', 'rules', 'code'];

/**
 * `record[trigger]`, read by name: a computed key of three names makes V8's lookup megamorphic, served from a cache
 * the case extractor's own lookups evict when the two run by turns.
 */
function ofTrigger<T>(record: Readonly<Record<Trigger, T>>, trigger: Trigger): T {
  return trigger === 'usc' ? record.usc : trigger === 'rules' ? record.rules : record.code;
}

/**
 * The last element, or undefined when there is none: `xs[xs.length - 1]` of an empty array reads the property `-1`,
 * which V8 looks up by name (slowly) rather than as an element.
 */
function lastOf<T>(xs: readonly T[]): T | undefined {
  return xs.length > 0 ? xs[xs.length - 1] : undefined;
}

interface Grammar {
  collection: Collection;
  pattern: RegExp;
}

const GRAMMARS: readonly Grammar[] = COLLECTIONS.flatMap((collection) =>
  collection.printedPatterns.map((p) => ({ collection, pattern: inText(p) })),
);

/**
 * The grammars a trigger may start: the US Code's; the rule sets'; the codes named `… Code` (D.C., Tennessee,
 * Mississippi), printed with or without a sign (`D.C. Code 22-404.05`, `T.C.A. 15-2-102`).
 */
const GRAMMARS_OF: Readonly<Record<Trigger, readonly Grammar[]>> = {
  usc: GRAMMARS.filter((g) => g.collection.id === 'usc'),
  rules: GRAMMARS.filter((g) => g.collection.corpus === 'rules'),
  code: GRAMMARS.filter((g) => g.collection.corpus === 'statutes' && g.collection.id !== 'usc'),
};

const RULE_ABBREVIATION = /^R\.\s?(?:App|Civ|Evid|Crim|Cr\.|Bankr|[ACEB]\.)/;
const RULES_NAMED = /^Rules?\s+of\s+(?:Appellate|Civil|Evidence|Criminal|Bankruptcy|the\s+Supreme)/;
const COURT_BEFORE = /(?:Court|Ct\.)\s?$/;

/**
 * Literals every citation a grammar reads holds near its start, each with what it starts there (null: nothing).
 * Each is looked for with `indexOf`, one literal at a time: V8 finds a literal that starts with a capital or a `§`
 * several times faster than one regular expression of all the alternatives tests every position (bench/citations.ts
 * measures the finder beside the case extractor). Between them: the US Code's name (`U.S.C.`, `U.S.C.A.`,
 * `U.S.C.S.`, `USC`, `United States Code`, `U.S. Code`), the rule sets' abbreviations and names, the codes' names
 * and short forms. A name in lower case or spaced out (`42 u.s.c. §`, `28 U. S. C. §`) is read when a `§` follows
 * it: lower-case literals cost as much again as all these, and the 921 real opinions of the sample print neither
 * form without a sign.
 */
const LITERALS: ReadonlyArray<[string, (text: string, at: number) => Trigger | null]> = [
  ['U.S.C', () => 'usc'],
  ['USC', () => 'usc'],
  ['Code', (text, at) => (/(?:States|U\.\s?S\.)\s*$/.test(text.slice(Math.max(0, at - 8), at)) ? 'usc' : 'code')],
  ['TCA', () => 'code'],
  ['T.C.A', () => 'code'],
  [
    'R.',
    (text, at) =>
      RULE_ABBREVIATION.test(text.slice(at, at + 8)) || COURT_BEFORE.test(text.slice(Math.max(0, at - 7), at)) ? 'rules' : null,
  ],
  [
    'Rule',
    (text, at) => (RULES_NAMED.test(text.slice(at, at + 40)) || COURT_BEFORE.test(text.slice(Math.max(0, at - 7), at)) ? 'rules' : null),
  ],
  ['FR', (text, at) => (/^FR(?:A|C|E|Cr|B)P/.test(text.slice(at, at + 5)) ? 'rules' : null)],
];
/**
 * `section 1291 of title 28`, `Section 1343 of Title 28`: `[Tt]itle\s\d`, found by its `le` with `indexOf` and read
 * around. As fast as the regular expression alone, a little faster after the case extractor (which slows both).
 */
function ofTitleAt(text: string, le: number): boolean {
  // Bounds first: a character read past either end is NaN, which makes V8 recompile for doubles (extract.ts).
  if (le < 3 || le + 3 >= text.length) return false;
  const t = text.charCodeAt(le - 3);
  const digit = text.charCodeAt(le + 3);
  return (
    (t === 0x54 || t === 0x74) &&
    text.charCodeAt(le - 2) === 0x69 &&
    text.charCodeAt(le - 1) === 0x74 &&
    isWhiteSpace(text.charCodeAt(le + 2)) &&
    digit >= 0x30 &&
    digit <= 0x39
  );
}
/** Before a `§`, the name of a code a grammar reads, in any case and spacing (`tenn. code ann. §`, `42 u.s.c. §`, `T. C. A. §`). */
const USC_BEFORE_SIGN = /u\.?\s?s\.?\s?c/i;
const CODE_BEFORE_SIGN = /code|ann|t\.?\s?c\.?\s?a/i;

/** Where the grammars may start (per kind), where the signs are, and the codes cited by acronym. */
function anchorsOf(text: string): { hits: Record<Trigger, number[]>; signs: number[]; bare: FoundStatute[] } {
  const hits: Record<Trigger, number[]> = { usc: [], rules: [], code: [] };
  const signs: number[] = [];
  for (let at = text.indexOf('§'); at >= 0; at = text.indexOf('§', at + 1)) {
    signs.push(at);
    const before = text.slice(Math.max(0, at - 24), at);
    if (USC_BEFORE_SIGN.test(before)) hits.usc.push(at);
    else if (CODE_BEFORE_SIGN.test(before)) hits.code.push(at);
  }
  for (const [literal, triggerAt] of LITERALS) {
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const trigger = triggerAt(text, at);
      if (trigger) ofTrigger(hits, trigger).push(at);
    }
  }
  for (let le = text.indexOf('le'); le >= 0; le = text.indexOf('le', le + 2)) if (ofTitleAt(text, le)) hits.usc.push(le - 3);
  const bare: FoundStatute[] = [];
  for (const word of BARE_CODE_WORDS) {
    for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
      const found = bareCodeAt(text, at);
      if (found) bare.push(found);
    }
  }
  return { hits, signs, bare: bare.sort((a, b) => a.start - b.start) };
}

/** The same grammars, sticky: does another citation start here (`§§ 1291-1292, and 42 U.S.C. § 1983`)? */
const STICKY = GRAMMARS.map((g) => new RegExp(g.pattern.source, g.pattern.flags.replace('g', 'y')));
const startsAnother = (text: string, at: number): boolean =>
  STICKY.some((p) => {
    p.lastIndex = at;
    return p.test(text);
  });

const NOTE = /^\s+note\b/;
const PLURAL_SIGN = /(?:§§|\bsecs\.?|\bsections)\s*$/i;

/** `1291` of a matched `28 USC §§ 1291`: the number the sign is followed by, and the head before it. */
function splitAtSign(matched: string): { head: string; numberAt: number } | null {
  const sign = /§§?|\bsecs?\.?|\bsections?\b/i.exec(matched);
  if (!sign) return null;
  let at = sign.index + sign[0].length;
  while (at < matched.length && isWhiteSpace(matched.charCodeAt(at))) at++;
  return { head: matched.slice(0, sign.index), numberAt: at };
}

function pinpointIn(text: string): string | null {
  const m = /\d[0-9A-Za-z.\-\u2013:]*((?:\([0-9A-Za-z]{1,4}\))+)/.exec(text);
  return m ? m[1]! : null;
}

function statute(text: string, start: number, end: number, collection: Collection, key: string, pinpoint: string | null): FoundStatute {
  return {
    start,
    end,
    text: text.slice(start, end),
    jurisdiction: collection.jurisdiction,
    collection: collection.id,
    corpus: collection.corpus,
    key,
    pinpoint,
    normalized: `${collection.display(key)}${pinpoint ?? ''}`,
  };
}

let stateAbbreviations: Set<string> | undefined;

/** `Tenn. Sup. Ct. R. 8` is Tennessee's rule, not the Supreme Court's: a state's abbreviation before a rule set's name. */
function stateBefore(text: string, at: number): boolean {
  stateAbbreviations ??= new Set(
    Object.keys(JSON.parse(readFileSync(join(reportersDbDir(), 'state_abbreviations.json'), 'utf8')) as Record<string, string>),
  );
  return stateAbbreviations.has(wordBefore(text, at));
}

/** The citations one grammar match stands for: one, or one per number of a `§§` list or range. */
function fromMatch(text: string, at: number, matched: string, collection: Collection, out: FoundStatute[]): number {
  if (collection.corpus === 'rules' && stateBefore(text, at)) return -1;
  // A court's own opinion says `Supreme Court Rules 3(b)` of its own rules (Delaware's, in CourtListener 4091881):
  // in running text, only an abbreviation or `… of the United States` names the U.S. Supreme Court's.
  if (collection.id === 'sup-ct' && /^(?:Supreme|Rules?\s+of\s+the\s+Supreme)/i.test(matched) && !/United\s+States/i.test(matched))
    return -1;
  let end = at + matched.replace(/[.,:;\-\u2013]+$/, '').length;
  const note = NOTE.exec(text.slice(end, end + 8));
  // As the grammar read it: dashes between digits already hyphens (findStatuteCitations).
  const span = matched.slice(0, end - at);
  if (!PLURAL_SIGN.test(span.slice(0, splitAtSign(span)?.numberAt ?? 0))) {
    const key = collection.parsePrinted(span);
    if (!key) return -1;
    if (note) end += note[0].length;
    end = pastEtSeq(text, end);
    out.push(statute(text, at, end, collection, key, pinpointIn(span)));
    return end;
  }
  // A list or range: each number printed is read as the head (`28 USC §`) followed by that number.
  const sign = splitAtSign(span);
  if (!sign) return -1;
  const head = `${sign.head}§ `;
  let found = 0;
  for (const n of listedNumbers(text, at + sign.numberAt, collection.id === 'usc' ? uscRun : () => null, (i) => startsAnother(text, i))) {
    const key = collection.parsePrinted(`${head}${hyphenated(n.number)}`);
    if (!key) continue;
    out.push(statute(text, found === 0 ? at : n.from, n.to, collection, key, n.pinpoint));
    found++;
    end = n.to;
  }
  if (found === 0) return -1;
  const last = out[out.length - 1]!;
  last.end = pastEtSeq(text, last.end);
  last.text = text.slice(last.start, last.end);
  return last.end;
}

/** `§§ 1291-1292`: a hyphen between two plain numbers is a range in the US Code (as its grammar reads it). */
function uscRun(printed: string): [string, string] | null {
  const run = /^(\d+[a-z]*)[-\u2013\u2014](\d+[a-z]*)$/i.exec(printed);
  return run ? [run[1]!, run[2]!] : null;
}

// ---- the scan ----------------------------------------------------------------------------------------------------

/** Every statute and court-rule citation of `text`, in order, none overlapping. */
export function findStatuteCitations(text: string): FoundStatute[] {
  const { hits, signs, bare } = anchorsOf(text);
  // Windows per kind of trigger, each kind's merged: a grammar scans only the windows of the triggers that may start it.
  const candidates: Array<{ at: number; matched: string; collection: Collection }> = [];
  for (const trigger of TRIGGERS) {
    const positions = ofTrigger(hits, trigger).sort((a, b) => a - b);
    const windows: Array<[number, number]> = [];
    for (const at of positions) {
      let from = Math.max(0, at - BEFORE);
      while (from > 0 && !isWhiteSpace(text.charCodeAt(from - 1))) from--;
      const to = Math.min(text.length, at + AFTER);
      const last = lastOf(windows);
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else windows.push([from, to]);
    }
    for (const [from, to] of windows) {
      const window = hyphenated(text.slice(from, to));
      for (const { collection, pattern } of ofTrigger(GRAMMARS_OF, trigger)) {
        pattern.lastIndex = 0;
        for (let m = pattern.exec(window); m; m = pattern.exec(window)) {
          candidates.push({ at: from + m.index, matched: m[0], collection });
          if (m[0].length === 0) pattern.lastIndex++;
        }
      }
    }
  }
  candidates.sort((a, b) => a.at - b.at || b.matched.length - a.matched.length);
  let found: FoundStatute[] = [];
  let reached = 0;
  for (const c of candidates) {
    if (c.at < reached) continue;
    const end = fromMatch(text, c.at, c.matched, c.collection, found);
    if (end > 0) reached = end;
  }
  if (bare.length > 0) found = withoutOverlaps(found, bare);
  // `found` is in text order, and so are the signs: one pass tells which sign no citation covers.
  const laws: FoundStatute[] = [];
  let f = 0;
  for (const sign of signs) {
    while (f < found.length && found[f]!.end <= sign) f++;
    if (f < found.length && found[f]!.start <= sign) continue;
    const lastLaw = lastOf(laws);
    if (lastLaw && sign < lastLaw.end) continue;
    const law = lawsBefore(text, sign, (i) => startsAnother(text, i));
    const next = found[f];
    const previous = f > 0 ? found[f - 1] : undefined;
    const first = law[0];
    const end = lastOf(law)?.end ?? 0;
    if (first && !(next && next.start < end) && !(previous && first.start < previous.end) && !(lastLaw && first.start < lastLaw.end)) {
      laws.push(...law);
    }
  }
  return laws.length ? [...found, ...laws].sort((a, b) => a.start - b.start) : found;
}

/** `extra` merged into `found` (both in text order), each of `extra` kept only where it overlaps none of `found`. */
function withoutOverlaps(found: FoundStatute[], extra: FoundStatute[]): FoundStatute[] {
  const kept = extra.filter((e) => !found.some((f) => f.start < e.end && e.start < f.end));
  return kept.length ? [...found, ...kept].sort((a, b) => a.start - b.start) : found;
}
