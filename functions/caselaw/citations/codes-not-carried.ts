/**
 * Codes that are not carried, found so that a citation of a state we do not carry is answered `not_carried` rather
 * than missed: reporters-db's law abbreviations (laws.json) before a `§` (`Mass. Gen. Laws ch. 93A, § 2`, `Cal. Penal
 * Code § 187`), with the short forms courts print, and the codes cited by an acronym without a sign (`RCW 9A.36.021`,
 * `KRS 218A.1412`, `720 ILCS 5/12-3`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FoundStatute } from './found-statute.ts';
import { reportersDbDir } from './reporters.ts';
import { hyphenated, listedNumbers, NUMBER, PINPOINT_AT, pastEtSeq, wordBefore } from './section-numbers.ts';

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

const SIGN_AT = /^§§?\s*/;

/** `22.02-22.03`: two sections of a code numbered by decimals; a hyphen between plain numbers may be the number's own. */
function decimalRun(printed: string): [string, string] | null {
  const m = /^(\d+)\.(\d+)-(\d+)\.(\d+)$/.exec(hyphenated(printed));
  return m && m[1] === m[3] ? [`${m[1]}.${m[2]}`, `${m[3]}.${m[4]}`] : null;
}

/**
 * A code not carried, named before the `§` at `sign`: its citations, one per section a `§§` list or range prints
 * (`W. Va. Code §§ 61-8B-1(6), 61-8B-9(a)`), none when no code's name stands there. `stop`: does another
 * citation start at a position (`§§ 2, 3, and 28 U.S.C. § 1291`)?
 */
export function lawsBefore(text: string, sign: number, stop: (at: number) => boolean): FoundStatute[] {
  lawNames ??= loadLawNames();
  const { names, subjects, longest, lastWords } = lawNames;
  // Most signs follow no code's name (`under § 1983`): one word tells, before anything is sliced or split.
  const last = wordBefore(text, sign);
  if (!lastWords.has(last) && !/^\d/.test(last)) return [];
  const signText = SIGN_AT.exec(text.slice(sign, sign + 8))![0];
  if (!NUMBER.test(text.slice(sign + signText.length, sign + signText.length + 1))) return [];
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
    const divisionText = division ? `${name.division ?? division[1]} ${division[2]}, ` : '';
    const titleText = title ? `${title[1]} ` : '';
    const canonical = name.subjectSuffix ? candidate : name.canonical;
    const listed = listedNumbers(text, sign + signText.length, decimalRun, stop);
    const numbers = signText.startsWith('§§') ? listed : listed.slice(0, 1);
    const found = numbers.map((n, i) =>
      notCarried(
        text,
        i === 0 ? start : n.from,
        n.to,
        name.jurisdiction,
        n.pinpoint,
        `${titleText}${canonical} ${divisionText}§ ${hyphenated(n.number)}`,
      ),
    );
    const lastFound = found[found.length - 1]!;
    lastFound.end = pastEtSeq(text, lastFound.end);
    lastFound.text = text.slice(lastFound.start, lastFound.end);
    return found;
  }
  return [];
}

function notCarried(text: string, start: number, end: number, jurisdiction: string, pinpoint: string | null, cited: string): FoundStatute {
  return {
    start,
    end,
    text: text.slice(start, end),
    jurisdiction,
    collection: null,
    corpus: 'statutes',
    key: null,
    pinpoint,
    normalized: `${cited}${pinpoint ?? ''}`,
  };
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

// ---- codes cited by an acronym, without a sign --------------------------------------------------------------

const SECTION = NUMBER.source.slice(1);
const PIN = PINPOINT_AT.source.slice(1);
/** `RCW 9A.36.021`, `KRS 160.290(2)` (a sign may follow the acronym: `RCW § 4.84.185`). */
const ACRONYM_AT = new RegExp(`^(RCW|KRS)\\s+(?:§\\s*)?(${SECTION})(${PIN})?`);
/** `755 ILCS 5/2-7`: chapter, acronym, act / section. */
const ILCS_AT = new RegExp(`^ILCS\\s+(?:§\\s*)?(\\d+)\\s*/\\s*(${SECTION})(${PIN})?`);
const ACRONYMS: Readonly<Record<string, [string, string]>> = {
  RCW: ['Wash. Rev. Code', 'wa'],
  KRS: ['Ky. Rev. Stat. Ann.', 'ky'],
};
/** The acronyms `bareCodeAt` reads, as the finder looks for them in text. */
export const BARE_CODE_WORDS = ['RCW', 'KRS', 'ILCS'] as const;

/** The citation of a code cited by its acronym whose acronym starts at `at`, or null. */
export function bareCodeAt(text: string, at: number): FoundStatute | null {
  if (at > 0 && /[0-9A-Za-z]/.test(text[at - 1]!)) return null;
  const acronym = ACRONYM_AT.exec(text.slice(at, at + 60));
  if (acronym) {
    const [name, jurisdiction] = ACRONYMS[acronym[1]!]!;
    const end = pastEtSeq(text, at + acronym[0].length);
    return notCarried(text, at, end, jurisdiction, acronym[3] ?? null, `${name} § ${acronym[2]}`);
  }
  const chapter = /(?<![0-9A-Za-z])(\d+)\s+$/.exec(text.slice(Math.max(0, at - 8), at));
  const ilcs = chapter && ILCS_AT.exec(text.slice(at, at + 60));
  if (!chapter || !ilcs) return null;
  const start = at - chapter[0].length;
  return notCarried(
    text,
    start,
    pastEtSeq(text, at + ilcs[0].length),
    'il',
    ilcs[3] ?? null,
    `${chapter[1]} Ill. Comp. Stat. ${ilcs[1]}/${ilcs[2]}`,
  );
}
