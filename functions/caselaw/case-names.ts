/**
 * Is it the case the text names? A citation printed after a case name (`Roe v. Wade, 410 U.S. 113`) is checked
 * against the names of the cluster it resolved to: a real citation under another case's name is the signature of a
 * hallucinated citation. The name is read back from the citation (bounded: never past the previous citation, a
 * sentence's end or a clause mark), both names are normalised with reporters-db's case-name abbreviations, and the
 * score is how much of each party the text names is found in the cluster's party (docs/DECISIONS.md, "Case names").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reportersDbDir } from './citations/reporters.ts';

/** A case name read from the text before a citation: [start, end) in UTF-16 units of that text. */
export interface NameInText {
  name: string;
  start: number;
  end: number;
}

export interface ClusterNames {
  caseName: string;
  caseNameShort: string;
  caseNameFull: string;
}

/** At or above: the names match (docs/DECISIONS.md gives the reasons for the figure). */
export const MATCH_AT = 0.6;

/** How far back from a citation a name is looked for (UTF-16 units). */
const LOOK_BACK = 240;

// ---------------------------------------------------------------------------------------------------------------
// Normalisation

interface AbbreviationTable {
  /** lower-cased abbreviation or expanded word → canonical token (one per group of abbreviations sharing a word) */
  canonical: Map<string, string>;
  /** lower-cased multi-word expansions (`united states`) → canonical token, longest first */
  phrases: Array<[string, string]>;
  /** lower-cased abbreviations with their punctuation taken out (`assn` for `Ass'n`) → canonical token */
  bare: Map<string, string>;
  /** the lower-cased abbreviations themselves (`ass'n`, `cal.`), not their expansions */
  abbreviations: Set<string>;
  /** canonical token → its first one-word expansion (`int'l` → `international`), for abbreviations of it not in the tables */
  expansions: Map<string, string>;
}

let table: AbbreviationTable | undefined;

/** Abbreviations CourtListener's case names use for courts that reporters-db's case-name table lacks (`Circuit Ct.`, `Jud. Dist.`). */
const COURT_ABBREVIATIONS: Record<string, string[]> = { 'Ct.': ['Court'], 'Cir.': ['Circuit'], 'Jud.': ['Judicial'] };

function abbreviationTable(): AbbreviationTable {
  if (table) return table;
  const read = <T>(file: string): T => JSON.parse(readFileSync(join(reportersDbDir(), file), 'utf8')) as T;
  // Parties are often states, printed either way (`Minn.`, `Minnesota`): reporters-db's state abbreviations join the table.
  const raw: Record<string, string[]> = {
    ...read<Record<string, string[]>>('case_name_abbreviations.json'),
    ...COURT_ABBREVIATIONS,
    ...Object.fromEntries(Object.entries(read<Record<string, string>>('state_abbreviations.json')).map(([k, v]) => [k, [v]])),
  };
  // Abbreviations that share an expansion (`Cnty.`, `Cty.` → County) get one canonical token: the first one met.
  const canonical = new Map<string, string>();
  const phrases: Array<[string, string]> = [];
  const bare = new Map<string, string>();
  const abbreviations = new Set<string>();
  const expanded = new Map<string, string>();
  for (const [abbreviation, expansions] of Object.entries(raw)) {
    const key = abbreviation.toLowerCase();
    abbreviations.add(key);
    const words = expansions.map((e) => e.toLowerCase());
    // A one-letter abbreviation (`E.` East) is canonically the bare letter, as an initial is printed either way.
    const id = canonical.get(key) ?? words.map((w) => canonical.get(w)).find(Boolean) ?? (/^[a-z]\.$/.test(key) ? key[0]! : key);
    canonical.set(key, id);
    const oneWord = words.find((w) => !w.includes(' '));
    if (oneWord && !expanded.has(id)) expanded.set(id, oneWord);
    for (const w of words) {
      if (w.includes(' ')) phrases.push([w, id]);
      else if (!canonical.has(w)) canonical.set(w, id);
    }
    const stripped = key.replace(/[.'’]/g, '');
    if (stripped.length > 1 && !bare.has(stripped)) bare.set(stripped, id);
  }
  phrases.sort((a, b) => b[0].length - a[0].length);
  table = { canonical, phrases, bare, abbreviations, expansions: expanded };
  return table;
}

/**
 * Words that say nothing about which case it is: articles and connectors, procedural designations, and the corporate
 * suffixes a short name drops (`Ideal Electronic Security Co.` for `… Co., Inc.`).
 */
const NOISE = new Set([
  'the',
  'of',
  'and',
  'a',
  'an',
  'for',
  'to',
  'on',
  'at',
  'by',
  'in',
  're',
  'ex',
  'parte',
  'rel',
  'rel.',
  'matter',
  'litigation',
  'litig.',
  'litig',
  'lit',
  'et',
  'al',
  'al.',
  'etc',
  'etc.',
  'inc.',
  'ltd.',
  'llc',
  'l.l.c.',
  'corp.',
  'co.',
  'p.c.',
  'n.a.',
  'plc',
  'petitioner',
  'petitioners',
  'respondent',
  'respondents',
  'appellant',
  'appellants',
  'appellee',
  'appellees',
  'plaintiff',
  'plaintiffs',
  'defendant',
  'defendants',
]);

/** The versus between parties, as printed in names. */
const VERSUS = /\s+(?:v\.?|vs\.?|versus)\s+/i;

/** A word's canonical token when it is an abbreviation or an expanded word, in the singular or the plural (`Mfrs.`). */
function canonicalOf(word: string, canonical: Map<string, string>, bare: Map<string, string>): string | undefined {
  const lookup = (w: string): string | undefined =>
    canonical.get(w) ?? canonical.get(w.replace(/\.$/, '')) ?? bare.get(w.replace(/[.']/g, ''));
  return lookup(word) ?? (/[a-z]s\.?$/.test(word) ? lookup(word.replace(/s(\.?)$/, '$1')) : undefined);
}

/** A word of a party: its canonical token, and the word as printed, lower-cased, without its punctuation. */
interface NameWord {
  token: string;
  plain: string;
  /** A given name in a person's name (`James P. Hickok`): a one-word party of the text is a surname. */
  givenName?: boolean;
  /** The word an abbreviation of the tables stands for (`international` for `Int'l`). */
  expansion?: string;
}

/** One party of a name: its words (noise left out), the initials of all its words, its acronyms as printed. */
interface Party {
  words: NameWord[];
  initials: string;
  acronyms: Set<string>;
}

/**
 * A party that is a bare abbreviation of the sovereign: `Com. v. Irving` (CourtListener's Pennsylvania names) is
 * Commonwealth v. Irving, `S. v. Jackson` (old North Carolina reports) State v. Jackson.
 */
const SOVEREIGN: Record<string, string> = { com: 'commonwealth', s: 'state' };

/** Words left out of the initials an acronym spells (`Immigration & Naturalization Service` is INS). */
const NOT_IN_ACRONYMS = new Set(['the', 'of', 'and', 'for', 'a', 'an', 'on', 'in', 'at', 'to']);

/** The words of one party's name, noise left out. */
function readParty(printed: string): Party {
  const { canonical, phrases, bare, expansions } = abbreviationTable();
  // Names run over line breaks; `U. S.`, `N. C.`: initials printed with spaces are one abbreviation; `AT&T` is one word.
  const joined = printed
    .replace(/\s+/g, ' ')
    .replace(/\b([A-Z])\.\s+(?=[A-Z]\.)/g, '$1.')
    .replace(/\b([A-Z]{1,3}) ?& ?([A-Z]{1,3})\b/g, '$1$2')
    .replace(/\b((?:[A-Z]\.){2,8})(?=[\s,]|$)/g, (initials: string) => initials.replace(/\./g, ''));
  const acronyms = new Set((joined.match(/\b[A-Z]{2,8}\b/g) ?? []).map((a) => a.toLowerCase()));
  const initials = joined
    .toLowerCase()
    .split(/[\s,;:()"“”/[\]&-]+/)
    .filter((w) => /^[a-z]/.test(w) && !NOT_IN_ACRONYMS.has(w))
    .map((w) => w[0])
    .join('');
  let text = ` ${joined.toLowerCase().replace(/[’‘`]/g, "'").replace(/&/g, ' and ')} `;
  for (const [phrase, id] of phrases) text = text.split(` ${phrase} `).join(` ${id} `);
  // Each word with the segment of the party it stands in (a comma or `and` begins the next: `Brooks and Frederick James Treesh`).
  const all: Array<NameWord & { segment: number; noise: boolean }> = [];
  let segment = 0;
  for (const piece of text.split(/([\s,;:()"“”/[\]-]+)/)) {
    if (/^[\s,;:()"“”/[\]-]*$/.test(piece)) {
      if (/[,;]/.test(piece)) segment++;
      continue;
    }
    const word = piece.replace(/^[-']+|[-']+$/g, '');
    if (!word) continue;
    const id = canonicalOf(word, canonical, bare);
    const token = id ?? word.replace(/'s$/, '').replace(/[.']/g, '');
    const plain = word.replace(/'s$/, '').replace(/[.']/g, '');
    const noise = !token || NOISE.has(id ?? word) || NOISE.has(token) || NOISE.has(plain);
    all.push({ token, plain, segment, noise });
    if (word === 'and') segment++;
  }
  const words: NameWord[] = [];
  for (const [i, w] of all.entries()) {
    if (w.noise) continue;
    const next = all[i + 1];
    // `James P. Hickok`: the first word of a person's name before an initial is a given name, not the surname a short name gives.
    const givenName = w.plain.length > 1 && all[i - 1]?.segment !== w.segment && next?.segment === w.segment && next.plain.length === 1;
    const expansion = expansions.get(w.token);
    words.push({ token: w.token, plain: w.plain, ...(givenName && { givenName }), ...(expansion && { expansion }) });
  }
  if (words.length === 1 && SOVEREIGN[words[0]!.plain])
    words[0] = { token: SOVEREIGN[words[0]!.plain]!, plain: SOVEREIGN[words[0]!.plain]! };
  return { words, initials, acronyms };
}

/** The parties of a name, split at each versus. */
/** Parties read before: a text's name is scored against every name of every cluster found, and names recur. */
const partyCache = new Map<string, Party>();

function partyOf(printed: string): Party {
  let party = partyCache.get(printed);
  if (!party) {
    if (partyCache.size >= 4096) partyCache.clear();
    party = readParty(printed);
    partyCache.set(printed, party);
  }
  return party;
}

const partiesOf = (name: string): Party[] =>
  name
    .split(VERSUS)
    .map(partyOf)
    .filter((p) => p.words.length > 0);

/** One edit apart (a letter added, dropped, changed, or two swapped): `Classor` for `Classon`, `Biard` for `Baird`. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length)
    return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
  return a.length < b.length ? a.slice(i) === b.slice(i + 1) : a.slice(i + 1) === b.slice(i);
}

function isSubsequence(short: string, long: string): boolean {
  let at = 0;
  for (const ch of long) if (ch === short[at]) at++;
  return at === short.length;
}

/**
 * How much one word of the text counts for one word of the cluster: the same token 1; else, on the words as printed,
 * one the start of the other (`Mut.`, `Mutual`), or, in a party of several words, an abbreviation by its letters in
 * order (`Suprs.`, `Supervisors`; `Labs`, `Laboratories`; `Ed.`, `Education`) ¾; a misspelling one edit apart in a
 * long word (`Fireboard`, `Mattheissen`) ¾.
 */
function wordCredit(t: NameWord, c: NameWord, severalWords: boolean): number {
  if (t.token === c.token || t.plain === c.plain) return 1;
  let best = 0;
  for (const a of t.expansion ? [t.plain, t.expansion] : [t.plain]) {
    for (const b of c.expansion ? [c.plain, c.expansion] : [c.plain])
      best = Math.max(best, spellingCredit(a, b, a === t.plain, severalWords));
  }
  return best;
}

function spellingCredit(a: string, b: string, aIsPrinted: boolean, severalWords: boolean): number {
  if (a === b) return 1;
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  if (!s || s[0] !== l[0]) return 0;
  if (l.startsWith(s) && s.length >= (severalWords || (s === a && aIsPrinted) ? 3 : 4)) return 0.75;
  if (severalWords && s.length >= 2 && s[1] === l[1] && l.length >= s.length + 3 && isSubsequence(s, l)) return 0.75;
  if (s.length >= (severalWords ? 5 : 6) && oneEditApart(s, l)) return 0.75;
  // Two letters swapped in a five-letter word (`Biard` for `Baird`); a letter changed there is another name (`Mayes`, `Mares`).
  if (s.length === 5 && l.length === 5 && [...s].sort().join('') === [...l].sort().join('') && oneEditApart(s, l)) return 0.75;
  // An initial for a word (`U. of M.` for `Univ. of Mich.`, `R. Co.` for `Ry. Co.`).
  if (severalWords && s.length === 1) return 0.5;
  return 0;
}

/** Where `words` run together from `at` spell `whole` (`Di Bella` for `DiBella`, `J. M. T.` for `JMT`): how many words, or 0. */
function spelledBy(whole: string, words: readonly NameWord[], at: number): number {
  let joined = '';
  for (let k = at; k < Math.min(words.length, at + 4); k++) {
    joined += words[k]!.plain;
    if (joined === whole) return k > at ? k - at + 1 : 0;
    if (!whole.startsWith(joined)) return 0;
  }
  return 0;
}

/** Each word's best credit against the other party's words, with words run together or split counted whole. */
function credits(from: readonly NameWord[], to: readonly NameWord[], severalWords: boolean, oneWord: boolean): number[] {
  const out = from.map((f) => Math.max(0, ...to.map((t) => wordCredit(f, t, severalWords) * (oneWord && t.givenName ? 0.5 : 1))));
  // `DiBella` for `Di Bella`, `GrandTrunk` for `Grand Trunk`, `JBG` for `J.B.G.`: either side may run the words together.
  for (let i = 0; i < from.length; i++) {
    for (const t of to) {
      const n = spelledBy(t.plain, from, i);
      for (let k = i; k < i + n; k++) out[k] = 1;
    }
    if (to.some((_, j) => spelledBy(from[i]!.plain, to, j) > 0)) out[i] = 1;
  }
  return out;
}

/** How much of a party the text names is in a party of the cluster: the share of its words found (0–1). */
function partyScore(text: Party, cluster: Party): number {
  const tw = text.words;
  const cw = cluster.words;
  if (tw.length === 0 || cw.length === 0) return 0;
  const severalWords = tw.length > 1 && cw.length > 1;
  const fromText = credits(tw, cw, severalWords, tw.length === 1);
  const fromCluster = credits(cw, tw, severalWords, false);
  // An acronym of the text (`INS`, `RTC`, `NLRB`) for the cluster's words spelled out, and the other way round.
  for (const [i, t] of tw.entries()) {
    if (fromText[i]! < 1 && t.plain.length >= 3 && text.acronyms.has(t.plain) && cluster.initials.includes(t.plain)) {
      fromText[i] = 1;
      for (const [j, c] of cw.entries()) if (t.plain.includes(c.plain[0]!)) fromCluster[j] = Math.max(fromCluster[j]!, 0.75);
    }
  }
  for (const [j, c] of cw.entries()) {
    if (fromCluster[j]! >= 1 || c.plain.length < 3 || c.plain.length > 8 || !text.initials.includes(c.plain)) continue;
    fromCluster[j] = 1;
    let covered = c.plain.length;
    for (const [i, t] of tw.entries()) {
      if (covered > 0 && fromText[i]! < 1 && c.plain.includes(t.plain[0]!)) {
        fromText[i] = 1;
        covered--;
      }
    }
  }
  const sum = (a: readonly number[]) => a.reduce((x, y) => x + y, 0);
  // Either name may be the longer (`Miranda v. State of Arizona` for `Miranda v. Arizona`): the better coverage counts.
  return Math.min(1, Math.max(sum(fromText) / tw.length, sum(fromCluster) / cw.length));
}

/** Every way of reading a name as parties: at each versus, and, where it has more than two (`Fred V. Cherry v. United States`), joined at all but one. */
function readings(name: string): Party[][] {
  const pieces = name.split(VERSUS).filter((p) => p.trim().length > 0);
  const out = [pieces.map(partyOf).filter((p) => p.words.length > 0)];
  if (pieces.length > 2)
    for (let at = 1; at < pieces.length; at++)
      out.push([partyOf(pieces.slice(0, at).join(' ')), partyOf(pieces.slice(at).join(' '))].filter((p) => p.words.length > 0));
  return out.filter((r) => r.length > 0);
}

/** Names of proceedings: the first party is the case's (`In re Wisconsin Steel Co. v. International Harvester Co.`). */
const PROCEEDING = /^(?:In re|Ex parte|In the Matter of|Matter of|Application of|Petition of|Estate of)\s/i;

/** The score of a name the text prints against one reading of a cluster name: each party must be there (0–1). */
function readingScore(textName: string, text: readonly Party[], cluster: readonly Party[]): number {
  const all: Party = {
    words: cluster.flatMap((p) => p.words),
    initials: cluster.map((p) => p.initials).join(''),
    acronyms: new Set(cluster.flatMap((p) => [...p.acronyms])),
  };
  const inOrder = (a: readonly Party[]): number => {
    if (cluster.length === 1 && a.length > 1 && PROCEEDING.test(textName)) return partyScore(a[0]!, all);
    if (a.length === 1 || cluster.length === 1)
      // One side only (`In re Gault`, or a cluster name without a versus): measured against the whole name.
      return Math.min(...a.map((p) => partyScore(p, all)));
    return Math.min(...a.map((p, i) => partyScore(p, cluster[Math.min(i, cluster.length - 1)]!)));
  };
  const straight = inOrder(text);
  // Parties printed the other way round (`Smith v. State` for `State v. Smith`): a small discount.
  const swapped = text.length === 2 && cluster.length === 2 ? 0.9 * inOrder([...text].reverse()) : 0;
  return Math.max(straight, swapped);
}

/** The score of a name the text prints against one name of the cluster (0–1). */
function nameScore(textName: string, clusterName: string): number {
  const text = partiesOf(textName);
  if (text.length === 0) return 0;
  return Math.max(0, ...readings(clusterName).map((r) => readingScore(textName, text, r)));
}

/** The best score of the text's name against the cluster's names (case_name, case_name_short, case_name_full), 0–1. */
export function caseNameScore(textName: string, cluster: ClusterNames): number {
  const names = [cluster.caseName, cluster.caseNameShort, cluster.caseNameFull].filter((n) => n.trim().length > 0);
  const best = Math.max(0, ...names.map((n) => nameScore(textName, n)));
  return Math.round(best * 100) / 100;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the name before a citation

/** Lower-case words that may stand inside a case name. */
const CONNECTORS = new Set([
  'v.',
  'v',
  'vs.',
  'vs',
  'of',
  'the',
  'and',
  '&',
  'for',
  'on',
  'to',
  'in',
  're',
  'ex',
  'rel.',
  'parte',
  'et',
  'al.',
  'al',
  'de',
  'del',
  'la',
  'le',
  'du',
  'da',
  'di',
  'van',
  'von',
  'der',
  'den',
  'y',
  'upon',
  'at',
]);

/** Connectors that never begin a name (`relies on Smith v. Jones`: `on` is not the name's). */
const NEVER_FIRST = new Set(['v.', 'v', 'vs.', 'vs', 'of', 'the', 'and', '&', 'for', 'on', 'to', 'at', 'upon', 'et', 'al.', 'al', 'y']);

/** Signals and words that start a sentence before a name (`See`, `Cf.`, `In Roe v. Wade, …`). */
const SIGNALS = new Set([
  'see',
  'see,',
  'cf.',
  'accord',
  'accord,',
  'compare',
  'contra',
  'but',
  'also',
  'e.g.,',
  'e.g.',
  'quoting',
  'citing',
  'under',
  'following',
  'as',
  'also,',
  'generally',
]);

/** Prepositions a sentence puts before a name (`the Court in`, `relying upon`); `in re` is the name's own. */
const BEFORE_A_NAME = new Set(['in', 'on', 'upon', 'from', 'under', 'with']);

/** `Urban Council on Mobility`, `Committee on Judiciary`: an `on` inside a name, after the body it names. */
const ON_IN_A_NAME = new Set(['Council', 'Committee', 'Commission', 'Conference', 'Coalition', 'Center', 'Institute', 'Board', 'Task']);

/** Abbreviations that end in a period inside a name without ending a sentence. */
function isNameAbbreviation(word: string): boolean {
  const lower = word.toLowerCase();
  // `Ass'n.`, `Cal.`: an abbreviation of the tables; `California.`, `Secretary.` (their expansions) end a sentence.
  const { abbreviations } = abbreviationTable();
  if (lower.endsWith('.') && (abbreviations.has(lower) || abbreviations.has(lower.replace(/s\.$/, '.')))) return true;
  if (/^[A-Z][^aeiouyAEIOUY\s.]*\.$/.test(word)) return true; // no vowel: an abbreviation (`Mfrs.`, `Bldg.`)
  if (/^(?:[A-Z]\.)+$/.test(word) || /^[A-Z][a-z]?\.$/.test(word)) return true; // initials, `St.`, `Mt.`
  return /^(?:inc|ltd|co|corp|bros|jr|sr|no|mr|mrs|ms|dr|ft|ry|ave|st|dist|twp|ind|sch|assn|dept|govt|natl|intl|cir|cnty|cty)\.$/i.test(
    word,
  );
}

interface Word {
  text: string;
  start: number;
  end: number;
}

function wordsOf(text: string, from: number, to: number): Word[] {
  const out: Word[] = [];
  const re = /\S+/g;
  re.lastIndex = from;
  const slice = text.slice(0, to);
  for (let m = re.exec(slice); m; m = re.exec(slice)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

/** Words that carry a name (capitalised, an abbreviation, `O'Brien`, `McDonald's`, `3M`), or a connector. */
function isNameWord(w: string): boolean {
  const bare = w.replace(/,$/, '');
  if (CONNECTORS.has(bare.toLowerCase()) && bare === bare.toLowerCase()) return true;
  return /^[A-Z\d'’&(“"]/.test(bare) && !/^\d+[.,]?$/.test(bare) && !/^\(?\d{4}\)?$/.test(bare);
}

/**
 * The case name printed right before a citation (`… See Roe v. Wade, 410 U.S. 113`), or null when the words before
 * it are not a case name: a name has a versus or begins `In re` / `Ex parte` / `Matter of`. `start` is the
 * citation's (or its parallel group's first citation's) offset; `floor` the end of the previous citation.
 */
export function nameBefore(text: string, start: number, floor: number): NameInText | null {
  let end = start;
  while (end > floor && /\s/.test(text[end - 1]!)) end--;
  // `People v. Smith (2009) 1 Cal.4th 1`: a year printed before the citation stands between name and citation.
  const yearBefore = /\(\d{4}\)$/.exec(text.slice(Math.max(floor, end - 6), end));
  if (yearBefore) {
    end -= yearBefore[0].length;
    while (end > floor && /\s/.test(text[end - 1]!)) end--;
  }
  if (end > floor && text[end - 1] === ',') end--;
  const from = Math.max(floor, end - LOOK_BACK);
  const words = wordsOf(text, from, end);
  // A word cut by the window's left edge is not whole: leave it out.
  if (words.length && words[0]!.start === from && from > 0 && !/\s/.test(text[from - 1]!)) words.shift();

  let first = words.length;
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i]!.text;
    const next = words[i + 1]?.text;
    if (/[;:)(\]["“”]$/.test(w) && i < words.length - 1) break;
    // `(See Bell v. Burson`, `(Mullane v. …`: an opening bracket or quote begins the name at the latest.
    if (/^[(["“]/.test(w)) {
      const bare = w.replace(/^[(["“]+/, '');
      if (!SIGNALS.has(bare.toLowerCase()) && isNameWord(bare) && (bare !== 'In' || next === 're')) first = i;
      break;
    }
    if (!isNameWord(w)) break;
    // `This Court in Reah v. Jupin`, `Relying upon Humble Oil v. …`: the name begins after the preposition.
    if (BEFORE_A_NAME.has(w) && next !== 're' && !(w === 'on' && ON_IN_A_NAME.has(words[i - 1]?.text ?? ''))) break;
    // A comma inside a name only before `Inc.`, `Ltd.`, `et al.`, `Jr.`: any other ends the name (`Moreover, Smith v. …`).
    if (
      w.endsWith(',') &&
      !(
        next &&
        /^(?:Inc\.?|Ltd\.?|L\.L\.C\.|LLC|L\.P\.|LP|L\.L\.P\.|LLP|P\.A\.|PLLC|S\.A\.|N\.V\.|et|Jr\.?|Sr\.?|N\.A\.|P\.C\.)[,]?$/.test(next)
      )
    )
      break;
    // A period ends the sentence before unless the word is an abbreviation (`Co.`, `Ass'n`, `U.S.`, `J.`), or a
    // corporate suffix follows it (`Berckeley Inv. Group. Ltd.`): a sentence does not begin with `Ltd.`.
    if (
      w.endsWith('.') &&
      i < words.length - 1 &&
      !isNameAbbreviation(w) &&
      !CONNECTORS.has(w.toLowerCase()) &&
      !/^(?:Inc|Ltd|Co|Corp|LLC|L\.L\.C|L\.P|LLP)\.?,?$/.test(next ?? '')
    )
      break;
    if (SIGNALS.has(w.toLowerCase()) && w !== 'And') break;
    // `In Roe v. Wade, …`: a sentence's `In` is not the name's unless `In re` / `In the Matter of`.
    if (w === 'In' && next !== 're' && next !== 'the' && next !== 'Matter') break;
    first = i;
  }
  // `Roe v. Wade and Doe v. Bolton, 410 U.S. 179`: an `and` between two names begins the one cited.
  const isVersus = (w: Word) => /^(?:v\.?|vs\.?)$/i.test(w.text);
  for (let k = words.length - 2; k > first; k--) {
    if (/^(?:and|&)$/.test(words[k]!.text) && words.slice(k + 1).some(isVersus) && words.slice(first, k).some(isVersus)) {
      first = k + 1;
      break;
    }
  }
  while (
    first < words.length &&
    (NEVER_FIRST.has(words[first]!.text) ||
      (/^(?:in|ex)$/.test(words[first]!.text) && !/^(?:re|parte)$/.test(words[first + 1]?.text ?? '')))
  )
    first++;
  if (first >= words.length) return null;
  const span = words.slice(first);
  const opening = /^[(["“]*/.exec(span[0]!.text)![0].length;
  const nameStart = span[0]!.start + opening;
  const name = text.slice(nameStart, span[span.length - 1]!.end).replace(/,$/, '');
  const hasVersus = span.some((w, i) => i > 0 && i < span.length - 1 && isVersus(w));
  const proceeding = /^(?:In re|Ex parte|In the Matter of|Matter of|Application of|Estate of)\s/i.test(name);
  if (!hasVersus && !proceeding) return null;
  // A versus with nothing named after it (`… v. 410 U.S. 113`) is no name.
  if (hasVersus && /\s(?:v\.?|vs\.?)$/i.test(name)) return null;
  return { name, start: nameStart, end: nameStart + name.length };
}

export interface CaseNameCheck {
  /** The name as the text prints it, and where ([start, end) in code points, as the citation's offsets). */
  name: string;
  start: number;
  end: number;
  /** The best score over the clusters (0–1), null when no cluster was found to compare with. */
  score: number | null;
  /** score ≥ MATCH_AT; null when no cluster was found. */
  matches: boolean | null;
  /** The cluster that scored best (the first of the result's clusters when several tie). */
  clusterId: number | null;
}

/** The check of a result: the named case against each cluster found, scored by caseNameScore. */
export function checkCaseName(
  name: { name: string; start: number; end: number },
  scored: ReadonlyArray<{ id: number; score: number }>,
): CaseNameCheck {
  let best: { score: number; id: number } | null = null;
  for (const c of scored) if (!best || c.score > best.score) best = c;
  return {
    ...name,
    score: best ? best.score : null,
    matches: best ? best.score >= MATCH_AT : null,
    clusterId: best ? best.id : null,
  };
}
