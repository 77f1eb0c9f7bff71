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
}

let table: AbbreviationTable | undefined;

function abbreviationTable(): AbbreviationTable {
  if (table) return table;
  const read = <T>(file: string): T => JSON.parse(readFileSync(join(reportersDbDir(), file), 'utf8')) as T;
  // Parties are often states, printed either way (`Minn.`, `Minnesota`): reporters-db's state abbreviations join the table.
  const raw: Record<string, string[]> = {
    ...read<Record<string, string[]>>('case_name_abbreviations.json'),
    ...Object.fromEntries(Object.entries(read<Record<string, string>>('state_abbreviations.json')).map(([k, v]) => [k, [v]])),
  };
  // Abbreviations that share an expansion (`Cnty.`, `Cty.` → County) get one canonical token: the first one met.
  const canonical = new Map<string, string>();
  const phrases: Array<[string, string]> = [];
  const bare = new Map<string, string>();
  for (const [abbreviation, expansions] of Object.entries(raw)) {
    const key = abbreviation.toLowerCase();
    const words = expansions.map((e) => e.toLowerCase());
    // A one-letter abbreviation (`E.` East) is canonically the bare letter, as an initial is printed either way.
    const id = canonical.get(key) ?? words.map((w) => canonical.get(w)).find(Boolean) ?? (/^[a-z]\.$/.test(key) ? key[0]! : key);
    canonical.set(key, id);
    for (const w of words) {
      if (w.includes(' ')) phrases.push([w, id]);
      else if (!canonical.has(w)) canonical.set(w, id);
    }
    const stripped = key.replace(/[.'’]/g, '');
    if (stripped.length > 1 && !bare.has(stripped)) bare.set(stripped, id);
  }
  phrases.sort((a, b) => b[0].length - a[0].length);
  table = { canonical, phrases, bare };
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

/** The canonical tokens of one party's name, noise left out. */
function tokens(party: string): string[] {
  const { canonical, phrases, bare } = abbreviationTable();
  // `U. S.`, `N. C.`: initials printed with spaces are one abbreviation.
  const joined = party.replace(/\b([A-Z])\.\s+(?=[A-Z]\.)/g, '$1.');
  let text = ` ${joined.toLowerCase().replace(/[’‘`]/g, "'").replace(/&/g, ' and ')} `;
  for (const [phrase, id] of phrases) text = text.split(` ${phrase} `).join(` ${id} `);
  const out: string[] = [];
  for (const raw of text.split(/[\s,;:()"“”/[\]-]+/)) {
    const word = raw.replace(/^[-']+|[-']+$/g, '');
    if (!word) continue;
    const id = canonicalOf(word, canonical, bare);
    const token = id ?? word.replace(/'s$/, '').replace(/[.']/g, '');
    if (!token || NOISE.has(id ?? word) || NOISE.has(token)) continue;
    out.push(token);
  }
  return out;
}

const partiesOf = (name: string): string[][] =>
  name
    .split(VERSUS)
    .map(tokens)
    .filter((p) => p.length > 0);

/** An all-capital word of the text (`ACLU`, `NLRB`) may stand for the initials of the cluster's words. */
function initialsMatch(acronym: string, words: readonly string[]): boolean {
  if (acronym.length < 2 || acronym.length > 8) return false;
  const initials = words.map((w) => w[0]).join('');
  return initials.includes(acronym);
}

/** How much of a party the text names is in a party of the cluster: the share of its words found (0–1). */
function partyScore(textParty: readonly string[], textRaw: string, clusterParty: readonly string[]): number {
  if (textParty.length === 0) return 0;
  const present = new Set(clusterParty);
  let found = 0;
  for (const t of textParty) {
    if (present.has(t)) found++;
    else if (t.length >= 3 && clusterParty.some((c) => c.startsWith(t) || (c.length >= 4 && t.startsWith(c)))) found += 0.75;
    else if (new RegExp(`\\b${t.toUpperCase()}\\b`).test(textRaw) && initialsMatch(t, clusterParty)) found++;
  }
  // The cluster's acronym for words the text spells out (`American Civil Liberties Union` for `ACLU`).
  const initials = textParty.map((w) => w[0]).join('');
  for (const c of clusterParty) {
    const at = c.length >= 3 && c.length <= 8 ? initials.indexOf(c) : -1;
    if (at >= 0) {
      const covered = textParty.slice(at, at + c.length).filter((w) => !present.has(w)).length;
      found += covered;
      break;
    }
  }
  // Either name may be the longer (`Miranda v. State of Arizona` for `Miranda v. Arizona`): the better coverage counts.
  return Math.min(1, Math.max(found / textParty.length, found / clusterParty.length));
}

/** The score of a name the text prints against one name of the cluster: each party must be there (0–1). */
function nameScore(textName: string, clusterName: string): number {
  const textRaw = textName.split(VERSUS);
  const text = partiesOf(textName);
  const cluster = partiesOf(clusterName);
  if (text.length === 0 || cluster.length === 0) return 0;
  const all = cluster.flat();
  const inOrder = (a: readonly string[][], raws: readonly string[]): number => {
    if (a.length === 1 || cluster.length === 1)
      // One side only (`In re Gault`, or a cluster name without a versus): measured against the whole name.
      return Math.min(...a.map((p, i) => partyScore(p, raws[i] ?? '', all)));
    return Math.min(...a.map((p, i) => partyScore(p, raws[i] ?? '', cluster[Math.min(i, cluster.length - 1)]!)));
  };
  const straight = inOrder(text, textRaw);
  // Parties printed the other way round (`Smith v. State` for `State v. Smith`): a small discount.
  const swapped = text.length === 2 && cluster.length === 2 ? 0.9 * inOrder([...text].reverse(), [...textRaw].reverse()) : 0;
  return Math.max(straight, swapped);
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
  'and',
  'as',
  'also,',
  'generally',
]);

/** Prepositions a sentence puts before a name (`the Court in`, `relying upon`); `in re` is the name's own. */
const BEFORE_A_NAME = new Set(['in', 'on', 'upon', 'from', 'under', 'with']);

/** Abbreviations that end in a period inside a name without ending a sentence. */
function isNameAbbreviation(word: string): boolean {
  const lower = word.toLowerCase();
  const { canonical, bare } = abbreviationTable();
  if (canonicalOf(lower, canonical, bare) && lower.endsWith('.')) return true;
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
    if (BEFORE_A_NAME.has(w) && next !== 're') break;
    // A comma inside a name only before `Inc.`, `Ltd.`, `et al.`, `Jr.`: any other ends the name (`Moreover, Smith v. …`).
    if (w.endsWith(',') && !(next && /^(?:Inc\.?|Ltd\.?|L\.L\.C\.|LLC|et|Jr\.?|Sr\.?|N\.A\.|P\.C\.)[,]?$/.test(next))) break;
    // A period ends the sentence before unless the word is an abbreviation (`Co.`, `Ass'n`, `U.S.`, `J.`).
    if (w.endsWith('.') && i < words.length - 1 && !isNameAbbreviation(w) && !CONNECTORS.has(w.toLowerCase())) break;
    if (SIGNALS.has(w.toLowerCase()) && w !== 'And') break;
    // `In Roe v. Wade, …`: a sentence's `In` is not the name's unless `In re` / `In the Matter of`.
    if (w === 'In' && next !== 're' && next !== 'the' && next !== 'Matter') break;
    first = i;
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
  const hasVersus = span.some((w, i) => i > 0 && i < span.length - 1 && /^(?:v\.?|vs\.?)$/i.test(w.text));
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
