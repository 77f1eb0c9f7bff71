/**
 * Statute and court-rule citations in running text. The carried collections are found by their own printed-form
 * grammars (Collection.printedPatterns, the same patterns /law/lookup reads a `citation` with), unanchored; codes
 * that are not carried by reporters-db's law abbreviations (laws.json) before a `§` (`Mass. Gen. Laws ch. 93A, § 2`,
 * `Cal. Penal Code § 187`), so that a citation of a state we do not carry is still found and answered `not_carried`.
 *
 * The text is scanned once for what every such citation holds (a `§`, `U.S.C.`, a rule set's `R. App. P.`, `of
 * title`, …); the grammars run only on the few hundred characters around each of those, so the scan costs little
 * beside the case-citation extractor.
 *
 * A `§§` list or range is one citation per section number printed: `28 USC §§ 1291-1292` is 1291 (span `28 USC §§
 * 1291`) and 1292 (span `1292`); the sections between the ends of a longer range are not printed and not listed.
 *
 * Offsets are UTF-16 code units, as the case extractor's (extract.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTIONS, type Collection } from '#law/collections.ts';
import type { Corpus } from '#law/model.ts';
import { reportersDbDir } from './reporters.ts';

export interface FoundStatute {
  /** [start, end) in UTF-16 code units. */
  start: number;
  end: number;
  /** As printed (`text.slice(start, end)`). */
  text: string;
  /** The collection's jurisdiction, or the state the code's abbreviation names (`ma`). */
  jurisdiction: string;
  /** The carried collection (`usc`, `dc-code`, `frap`, `tn-code`…); null for a code not carried. */
  collection: string | null;
  corpus: Corpus;
  /** The collection's key (`28-1291`); null for a code not carried. */
  key: string | null;
  /** `(a)(7)` of `Fed. R. App. P. 32(a)(7)`; null when none. */
  pinpoint: string | null;
  /** The citation in the collection's display form (with the pinpoint), or reporters-db's for a code not carried. */
  normalized: string;
}

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

/**
 * What every citation the grammars read holds, near its start, by the collections whose grammars may read it: a
 * section sign (the D.C. and state codes; a code not carried), the US Code's name or `of title` (`section 1291 of
 * title 28`), a federal rule set's abbreviation or name, Tennessee's short forms. Literal alternatives only: the
 * regular-expression engine scans for them far faster than it could try the grammars at every position.
 */
const TRIGGER =
  /(?<sign>§)|(?<usc>U\.S\.C|USC|U\. S\. C|United States Code|U\.S\. Code|of [Tt]itle \d)|(?<rules>R\. ?(?:App|Civ|Evid|Crim|Cr\.|Bankr)|R\.(?:App|Civ|Evid|Crim|Bankr)|Rules? of (?:Appellate|Civil|Evidence|Criminal|Bankruptcy|the Supreme)|FR(?:A|C|E|Cr|B)P|F\. ?R\. ?(?:A|C|E|Cr|B)\.|Ct\. ?R|Supreme Court Rule|N\. ?D\. ?R)|(?<code>T\. ?C\. ?A|TCA|Tennessee Code|D\. ?C\. (?:Official )?Code|Miss\. Code|Mississippi Code)/g;
const BEFORE = 80;
const AFTER = 140;

type Trigger = 'sign' | 'usc' | 'rules' | 'code';

interface Grammar {
  collection: Collection;
  pattern: RegExp;
}

const GRAMMARS: readonly Grammar[] = COLLECTIONS.flatMap((collection) =>
  collection.printedPatterns.map((p) => ({ collection, pattern: inText(p) })),
);

/**
 * The grammars a trigger may start. Under `§`, the codes named `… Code` (D.C., Tennessee, Mississippi): the US
 * Code's forms hold a trigger of their own (`U.S.C.`, `of title`); so do the codes' names printed without a sign
 * (`D.C. Code 22-404.05`, `T.C.A. 15-2-102`).
 */
const GRAMMARS_OF: Readonly<Record<Trigger, readonly Grammar[]>> = {
  sign: GRAMMARS.filter((g) => g.collection.corpus === 'statutes' && g.collection.id !== 'usc'),
  usc: GRAMMARS.filter((g) => g.collection.id === 'usc'),
  rules: GRAMMARS.filter((g) => g.collection.corpus === 'rules'),
  code: GRAMMARS.filter((g) => g.collection.corpus === 'statutes' && g.collection.id !== 'usc'),
};

/** The same grammars, sticky: does another citation start here (`§§ 1291-1292, and 42 U.S.C. § 1983`)? */
const STICKY = GRAMMARS.map((g) => new RegExp(g.pattern.source, g.pattern.flags.replace('g', 'y')));
const startsAnother = (text: string, at: number): boolean =>
  STICKY.some((p) => {
    p.lastIndex = at;
    return p.test(text);
  });

const NUMBER = /^\d[0-9A-Za-z]*(?:[.:\-\u2013][0-9A-Za-z]+)*/;
const PINPOINT_AT = /^(?:\([0-9A-Za-z]{1,4}\))+/;
const NOTE = /^\s+note\b/;
const PLURAL_SIGN = /(?:§§|\bsecs\.?|\bsections)\s*$/i;
const LIST_GAP = /^(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)/;
const RANGE_GAP = /^\s*(?:to|through|thru|[\u2013\u2014]|-)\s*/;

/** `1291` of a matched `28 USC §§ 1291`: the number the sign is followed by, and the head before it. */
function splitAtSign(matched: string): { head: string; numberAt: number } | null {
  const sign = /§§?|\bsecs?\.?|\bsections?\b/i.exec(matched);
  if (!sign) return null;
  let at = sign.index + sign[0].length;
  while (at < matched.length && /\s/.test(matched[at]!)) at++;
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
  const span = text.slice(at, end);
  if (!PLURAL_SIGN.test(span.slice(0, splitAtSign(span)?.numberAt ?? 0))) {
    const key = collection.parsePrinted(span);
    if (!key) return -1;
    if (note) end += note[0].length;
    out.push(statute(text, at, end, collection, key, pinpointIn(span)));
    return end;
  }
  // A list or range: each number printed is read as the head (`28 USC §`) followed by that number.
  const sign = splitAtSign(span);
  if (!sign) return -1;
  const head = `${sign.head}§ `;
  let i = at + sign.numberAt;
  let first = true;
  let found = 0;
  for (;;) {
    const number = NUMBER.exec(text.slice(i, i + 40));
    if (!number || (!first && startsAnother(text, i))) break;
    let numberEnd = i + number[0].length;
    const pin = PINPOINT_AT.exec(text.slice(numberEnd, numberEnd + 40));
    if (pin) numberEnd += pin[0].length;
    // `§§ 1291-1292`: a hyphen between two plain numbers is a range in the US Code (as its grammar reads it).
    const run = collection.id === 'usc' && !pin ? /^(\d+[a-z]*)[-\u2013](\d+[a-z]*)$/i.exec(number[0]) : null;
    const numbers: Array<[string, number, number]> = run
      ? [
          [run[1]!, i, i + run[1]!.length],
          [run[2]!, i + run[1]!.length + 1, numberEnd],
        ]
      : [[number[0], i, numberEnd]];
    for (const [n, from, to] of numbers) {
      const key = collection.parsePrinted(`${head}${n}`);
      if (!key) continue;
      out.push(statute(text, first ? at : from, to, collection, key, pin ? pin[0] : null));
      first = false;
      found++;
      end = to;
    }
    const rest = text.slice(numberEnd, numberEnd + 16);
    const gap = LIST_GAP.exec(rest) ?? (run ? null : RANGE_GAP.exec(rest));
    if (!gap || !/^\d/.test(text.slice(numberEnd + gap[0].length, numberEnd + gap[0].length + 1))) break;
    i = numberEnd + gap[0].length;
  }
  return found > 0 ? end : -1;
}

// ---- codes not carried: reporters-db's law abbreviations before a section sign ---------------------------------

interface LawName {
  /** reporters-db's own abbreviation (`Mass. Gen. Laws`). */
  canonical: string;
  jurisdiction: string;
  /** `ch.` / `tit.` / `art.` before the section sign, as reporters-db's pattern has it; null when none. */
  division: string | null;
  /** A subject stands between the name's two parts: `Cal. <subject> Code`, `N.Y. <subject> Law`. */
  subjectSuffix?: string;
}

/** USPS codes of the jurisdictions reporters-db names in laws.json. */
const JURISDICTION_CODES: Readonly<Record<string, string>> = {
  Alabama: 'al',
  Alaska: 'ak',
  'American Samoa': 'as',
  Arizona: 'az',
  Arkansas: 'ar',
  California: 'ca',
  'Canal Zone': 'cz',
  Colorado: 'co',
  Connecticut: 'ct',
  Delaware: 'de',
  'District of Columbia': 'dc',
  Florida: 'fl',
  Georgia: 'ga',
  Guam: 'gu',
  Hawaii: 'hi',
  Idaho: 'id',
  Illinois: 'il',
  Indiana: 'in',
  Iowa: 'ia',
  Kansas: 'ks',
  Kentucky: 'ky',
  Louisiana: 'la',
  Maine: 'me',
  Maryland: 'md',
  Massachusetts: 'ma',
  Michigan: 'mi',
  Minnesota: 'mn',
  Mississippi: 'ms',
  Missouri: 'mo',
  Montana: 'mt',
  Nebraska: 'ne',
  Nevada: 'nv',
  'New Hampshire': 'nh',
  'New Jersey': 'nj',
  'New Mexico': 'nm',
  'New York': 'ny',
  'North Carolina': 'nc',
  'North Dakota': 'nd',
  'Northern Mariana Islands': 'mp',
  Ohio: 'oh',
  Oklahoma: 'ok',
  Oregon: 'or',
  Pennsylvania: 'pa',
  'Puerto Rico': 'pr',
  'Rhode Island': 'ri',
  'South Carolina': 'sc',
  'South Dakota': 'sd',
  Tennessee: 'tn',
  Texas: 'tx',
  Utah: 'ut',
  Vermont: 'vt',
  Virginia: 'va',
  'Virgin Islands': 'vi',
  Washington: 'wa',
  'West Virginia': 'wv',
  Wisconsin: 'wi',
  Wyoming: 'wy',
  'United States': 'us',
};

/**
 * Short forms courts print that reporters-db does not list (Massachusetts' own `G.L. c. 93A, § 2`, Georgia's
 * `O.C.G.A. § 16-5-1`, Arizona's `A.R.S. § 13-1105`, Colorado's `C.R.S. § 18-3-102`, North Carolina's `N.C.G.S.`).
 */
const SHORT_FORMS: ReadonlyArray<[string, string, string, string | null]> = [
  ['G.L.', 'Mass. Gen. Laws', 'ma', 'ch.'],
  ['M.G.L.', 'Mass. Gen. Laws', 'ma', 'ch.'],
  ['O.C.G.A.', 'Ga. Code Ann.', 'ga', null],
  ['A.R.S.', 'Ariz. Rev. Stat. Ann.', 'az', null],
  ['C.R.S.', 'Colo. Rev. Stat.', 'co', null],
  ['N.C.G.S.', 'N.C. Gen. Stat.', 'nc', null],
];

interface RawLaw {
  jurisdiction?: string;
  regexes?: string[];
  variations?: string[];
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function loadLawNames(): { names: Map<string, LawName>; subjects: LawName[]; longest: number; lastWords: Set<string> } {
  const laws = JSON.parse(readFileSync(join(reportersDbDir(), 'laws.json'), 'utf8')) as Record<string, RawLaw[]>;
  const names = new Map<string, LawName>();
  const subjects: LawName[] = [];
  for (const [key, entries] of Object.entries(laws)) {
    for (const entry of entries) {
      const jurisdiction = entry.jurisdiction ? JURISDICTION_CODES[entry.jurisdiction] : undefined;
      const form = entry.regexes?.find((r) => r.includes('§'));
      if (!jurisdiction || !form) continue;
      const division = /\$reporter,? (ch|tit|art)\\?\.?/.exec(form)?.[1] ?? null;
      const name: LawName = { canonical: key, jurisdiction, division: division && `${division}.` };
      const subject = /\(\?P<reporter>(.+?) \$law_subject (.+?)\)/.exec(form);
      if (subject) {
        subjects.push({
          ...name,
          canonical: squash(subject[1]!.replace(/\\/g, '')),
          subjectSuffix: squash(subject[2]!.replace(/\\/g, '')),
        });
        continue;
      }
      for (const text of [key, ...(entry.variations ?? [])]) if (!names.has(squash(text))) names.set(squash(text), name);
    }
  }
  for (const [text, canonical, jurisdiction, division] of SHORT_FORMS) names.set(text, { canonical, jurisdiction, division });
  const longest = Math.max(...[...names.keys()].map((n) => n.split(' ').length));
  const lastWords = new Set([...names.keys(), ...subjects.map((s) => s.subjectSuffix!)].map((n) => n.split(' ').at(-1)!));
  return { names, subjects, longest, lastWords };
}

let lawNames: ReturnType<typeof loadLawNames> | undefined;

const DIVISION_BEFORE = /(?:^|\s)((?:ch|c|tit|art)\.?)\s*(\d+[A-Za-z]?(?:[.-]\d+[A-Za-z]?)?),?\s*$/;
const SECTION_AFTER = /^§§?\s*(\d[0-9A-Za-z]*(?:[.:\-\u2013][0-9A-Za-z]+)*)((?:\([0-9A-Za-z]{1,4}\))*)/;

/** The word that ends just before `at`, past white space and a comma. */
function wordBefore(text: string, at: number): string {
  let end = at;
  while (end > 0 && (text.charCodeAt(end - 1) === 0x2c || /\s/.test(text[end - 1]!))) end--;
  let start = end;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

/** A code not carried, named before the `§` at `sign`: the citation, or null. */
function lawBefore(text: string, sign: number): FoundStatute | null {
  lawNames ??= loadLawNames();
  const { names, subjects, longest, lastWords } = lawNames;
  // Most signs follow no code's name (`under § 1983`): one word tells, before anything is sliced or split.
  const last = wordBefore(text, sign);
  if (!lastWords.has(last) && !/^\d/.test(last)) return null;
  const after = SECTION_AFTER.exec(text.slice(sign, sign + 60));
  if (!after) return null;
  const windowStart = Math.max(0, sign - 100);
  let before = text.slice(windowStart, sign);
  const division = DIVISION_BEFORE.exec(before);
  if (division) before = before.slice(0, division.index);
  before = before.replace(/[\s,]+$/, '');
  const tokens: string[] = [];
  const starts: number[] = [];
  for (const t of before.matchAll(/\S+/g)) {
    tokens.push(t[0]);
    starts.push(windowStart + t.index);
  }
  for (let k = Math.min(longest, tokens.length); k >= 1; k--) {
    const candidate = tokens.slice(tokens.length - k).join(' ');
    const name = names.get(candidate) ?? subjectName(subjects, tokens.slice(tokens.length - k));
    if (!name) continue;
    if (division && !name.division) continue;
    let start = starts[tokens.length - k]!;
    // `1 Pa. Cons. Stat. § 1`: a title number before the name belongs to the citation.
    const title = /(?:^|\s)(\d+)\s+$/.exec(text.slice(Math.max(0, start - 8), start));
    if (title) start -= title[0].length - (/^\s/.test(title[0]) ? 1 : 0);
    const end = sign + after[0].length;
    const divisionText = division ? `${name.division ?? division[1]} ${division[2]}, ` : '';
    const titleText = title ? `${title[1]} ` : '';
    const canonical = name.subjectSuffix ? candidate : name.canonical;
    return {
      start,
      end,
      text: text.slice(start, end),
      jurisdiction: name.jurisdiction,
      collection: null,
      corpus: 'statutes',
      key: null,
      pinpoint: after[2] || null,
      normalized: `${titleText}${canonical} ${divisionText}§ ${after[1]}${after[2] ?? ''}`,
    };
  }
  return null;
}

/** `Cal. Penal Code`, `N.Y. Penal Law`, `Tex. Penal Code Ann.`: a name whose middle is a subject of one to five words. */
function subjectName(subjects: readonly LawName[], tokens: readonly string[]): LawName | undefined {
  const joined = tokens.join(' ');
  return subjects.find((s) => {
    if (!joined.startsWith(`${s.canonical} `) || !joined.endsWith(` ${s.subjectSuffix}`)) return false;
    const middle = joined.slice(s.canonical.length + 1, joined.length - s.subjectSuffix!.length - 1).split(' ');
    return middle.length >= 1 && middle.length <= 5 && middle.every((w) => /^(?:[A-Z][.\-'’A-Za-z]*|&)$/.test(w));
  });
}

// ---- the scan ----------------------------------------------------------------------------------------------------

/** Every statute and court-rule citation of `text`, in order, none overlapping. */
export function findStatuteCitations(text: string): FoundStatute[] {
  // Windows per kind of trigger, each kind's merged: a grammar scans only the windows of the triggers that may start it.
  const windows: Record<Trigger, Array<[number, number]>> = { sign: [], usc: [], rules: [], code: [] };
  const signs: number[] = [];
  TRIGGER.lastIndex = 0;
  for (let m = TRIGGER.exec(text); m; m = TRIGGER.exec(text)) {
    const groups = m.groups!;
    const trigger: Trigger = groups.sign ? 'sign' : groups.usc ? 'usc' : groups.rules ? 'rules' : 'code';
    if (trigger === 'sign') {
      signs.push(m.index);
      // Every name a `§` grammar reads ends in `Code` or `Ann` just before the sign.
      if (!/Code|Ann/i.test(text.slice(Math.max(0, m.index - 24), m.index))) continue;
    }
    let from = Math.max(0, m.index - BEFORE);
    while (from > 0 && !/\s/.test(text[from - 1]!)) from--;
    const to = Math.min(text.length, m.index + AFTER);
    const list = windows[trigger];
    const last = list[list.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else list.push([from, to]);
  }

  const candidates: Array<{ at: number; matched: string; collection: Collection }> = [];
  for (const trigger of Object.keys(windows) as Trigger[]) {
    for (const [from, to] of windows[trigger]) {
      const window = text.slice(from, to);
      for (const { collection, pattern } of GRAMMARS_OF[trigger]) {
        pattern.lastIndex = 0;
        for (let m = pattern.exec(window); m; m = pattern.exec(window)) {
          candidates.push({ at: from + m.index, matched: m[0], collection });
          if (m[0].length === 0) pattern.lastIndex++;
        }
      }
    }
  }
  candidates.sort((a, b) => a.at - b.at || b.matched.length - a.matched.length);
  const found: FoundStatute[] = [];
  let reached = 0;
  for (const c of candidates) {
    if (c.at < reached) continue;
    const end = fromMatch(text, c.at, c.matched, c.collection, found);
    if (end > 0) reached = end;
  }
  // `found` is in text order, and so are the signs: one pass tells which sign no citation covers.
  const laws: FoundStatute[] = [];
  let f = 0;
  for (const sign of signs) {
    while (f < found.length && found[f]!.end <= sign) f++;
    if (f < found.length && found[f]!.start <= sign) continue;
    const law = lawBefore(text, sign);
    const next = found[f];
    const previous = found[f - 1];
    const lastLaw = laws[laws.length - 1];
    if (law && !(next && next.start < law.end) && !(previous && law.start < previous.end) && !(lastLaw && law.start < lastLaw.end)) {
      laws.push(law);
    }
  }
  return laws.length ? [...found, ...laws].sort((a, b) => a.start - b.start) : found;
}
