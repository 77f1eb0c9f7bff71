import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { SectionStatus } from '#law/model.ts';
import type { SourceDocument, SourceEdition } from './source.ts';

/**
 * The federal rules as the US Code's appendices print them, in the GPO/OLRC plain-text format of the Code's annual
 * editions: Title 28 Appendix (FRAP, FRCP, FRE) and Title 18 Appendix (FRCrP), one file per edition (`.txt`, or
 * `.txt.gz`). A file is a run of records, each `-CITE-` … `-End-`, with fields `-EXPCITE-` (where the record sits),
 * `-HEAD-`, `-STATUTE-` (the rule's text), `-SOURCE-` (its amendment credits), `-MISC1-` … (Advisory Committee
 * notes and other editorial notes), `-FOOTNOTE-`. Each rule set in a file is one compiled edition, dated by the
 * "(AS AMENDED TO …)" line under the set's heading, with a horizon: the rules change on December 1, so an edition
 * speaks for them from the December 1 on or before its date until the next one (docs/DECISIONS.md, "How versions
 * are built").
 *
 * Kept: the rule's heading and text; the amendment credit and the footnotes go to `historyNote`. Not kept: the
 * Advisory Committee notes and the other editorial notes (the apparatus, like the notes of a USLM section), the
 * forms of the appendices of forms (they are not rules), and the statutes the appendices also carry.
 */

interface AppendixRuleSet {
  /** The set's heading, as `-EXPCITE-` names it. */
  heading: string;
  collection: string;
  prefix: string;
  short: string;
}

const APPENDIX_RULE_SETS: readonly AppendixRuleSet[] = [
  { heading: 'FEDERAL RULES OF APPELLATE PROCEDURE', collection: 'frap', prefix: 'frap', short: 'FRAP' },
  { heading: 'FEDERAL RULES OF CIVIL PROCEDURE', collection: 'frcp', prefix: 'frcp', short: 'FRCP' },
  { heading: 'FEDERAL RULES OF EVIDENCE', collection: 'fre', prefix: 'fre', short: 'FRE' },
  { heading: 'FEDERAL RULES OF CRIMINAL PROCEDURE', collection: 'frcrp', prefix: 'frcrp', short: 'FRCrP' },
];

export interface AppendixTextOptions {
  /** When the bytes were retrieved (default: the file's modification time). */
  retrievedAt?: string;
}

/** The rule-set editions of every appendix file named (files, or folders of `.txt`/`.txt.gz` files). */
export async function readAppendixText(paths: readonly string[], options: AppendixTextOptions = {}): Promise<SourceEdition[]> {
  const files = await expandPaths(paths);
  if (!files.length) throw new Error(`no US Code appendix text files (.txt, .txt.gz) in ${paths.join(', ')}`);
  const editions: SourceEdition[] = [];
  for (const file of files) {
    const retrievedAt = options.retrievedAt ?? (await stat(file)).mtime.toISOString();
    editions.push(...parseAppendixText(await readText(file), file, { retrievedAt }));
  }
  return editions.sort((a, b) => a.date.localeCompare(b.date) || a.collection.localeCompare(b.collection));
}

const gunzipAsync = promisify(gunzip);

async function readText(file: string): Promise<string> {
  const bytes = await readFile(file);
  const raw = file.endsWith('.gz')
    ? await gunzipAsync(bytes).catch((err: unknown) => {
        throw new Error(`${file}: not a readable gzip file (${err instanceof Error ? err.message : String(err)})`);
      })
    : bytes;
  return raw.toString('latin1');
}

async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      for (const name of (await readdir(path)).filter((n) => /\.txt(?:\.gz)?$/.test(n)).sort()) files.add(resolve(join(path, name)));
    } else files.add(resolve(path));
  }
  return [...files];
}

// ---- records ----------------------------------------------------------------------------------------------------

interface AppendixRecord {
  /** Line number of its `-CITE-` (1-based), for messages. */
  line: number;
  fields: { tag: string; lines: string[] }[];
}

const TAG = /^-([A-Z][A-Za-z0-9]*)-\s*$/;
// The page's running head ("TITLE 18, APPENDIX - UNLAWFUL POSSESSION OR RECEIPT OF FIREARMS"), which the Code's
// text carries between records, at times glued to the next record's "-CITE-".
const RUNNING_HEAD = /^TITLE \d+, APPENDIX - [^a-z]*?(?=-CITE-\s*$|\s*$)/;

/** The file's `-CITE-` … `-End-` records; other text outside a record is refused (a truncated or foreign file). */
function records(text: string, file: string): AppendixRecord[] {
  const out: AppendixRecord[] = [];
  let current: AppendixRecord | null = null;
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const head: RegExpExecArray | null = current ? null : RUNNING_HEAD.exec(raw);
    const line: string = head ? raw.slice(head[0].length) : raw;
    const tag: string | undefined = TAG.exec(line)?.[1];
    if (tag === 'CITE') {
      if (current) throw new Error(`${file}:${i + 1}: a record starts before the record of line ${current.line} ended (-End-)`);
      current = { line: i + 1, fields: [{ tag, lines: [] }] };
    } else if (tag === 'End') {
      if (!current) throw new Error(`${file}:${i + 1}: -End- outside a record`);
      out.push(current);
      current = null;
    } else if (current) {
      if (tag) current.fields.push({ tag, lines: [] });
      else current.fields.at(-1)!.lines.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`${file}:${i + 1}: text outside a -CITE- … -End- record: '${line.trim().slice(0, 60)}'`);
    }
  }
  if (current) throw new Error(`${file}: the record of line ${current.line} has no -End- (a truncated file?)`);
  return out;
}

const fieldLines = (r: AppendixRecord, tag: string): string[] =>
  r.fields.filter((f) => f.tag === tag).flatMap((f) => f.lines.filter((l) => !RUNNING_HEAD_LINE.test(l)));
const RUNNING_HEAD_LINE = /^TITLE \d+, APPENDIX - /;
const squash = (s: string) => s.trim().replace(/\s+/g, ' ');
// Footnote markers, "(!1)"; the footnotes themselves go to the history note.
const dropFootnoteMarks = (s: string) => s.replace(/ ?\(!\d+\)/g, '');

const CITE = /^(\d+) USC APPENDIX (.+?) (\d{2})\/(\d{2})\/(\d{4})(?: \(([^)]+)\))?$/;
const RULE_CITE = /^Rule (\d+(?:\.\d+)?[A-Z]?|[A-Z])$/;
const AS_AMENDED = /\(AS AMENDED TO ([A-Z]+) (\d{1,2}), (\d{4})\)/;
const MONTHS = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'];

interface Cite {
  title: string;
  /** What the record is (`Rule 32`, `FEDERAL RULES OF EVIDENCE`, `TITLE I. …`). */
  name: string;
  /** The title's edition date (YYYY-MM-DD) and, when printed, the last public law it includes. */
  date: string;
  through: string | null;
}

function citeOf(r: AppendixRecord, file: string): Cite {
  const text = squash(fieldLines(r, 'CITE').join(' '));
  const m = CITE.exec(text);
  if (!m) throw new Error(`${file}:${r.line}: -CITE- '${text.slice(0, 80)}' is not '<title> USC APPENDIX <name> MM/DD/YYYY'`);
  return { title: m[1]!, name: m[2]!, date: `${m[5]}-${m[3]}-${m[4]}`, through: m[6] ?? null };
}

// ---- one file -----------------------------------------------------------------------------------------------------

interface SetEdition {
  set: AppendixRuleSet;
  asAmendedTo: string | null;
  documents: SourceDocument[];
}

/** One appendix file's rule sets, each a compiled edition. Pure: the text and the file name it is reported under. */
export function parseAppendixText(text: string, file: string, options: { retrievedAt: string }): SourceEdition[] {
  const all = records(text, file);
  if (!all.length) throw new Error(`${file}: no -CITE- records: not a US Code appendix text file`);
  const cites = all.map((r) => citeOf(r, file));
  const titleDates = new Set(cites.map((c) => `${c.title} ${c.date}`));
  if (titleDates.size !== 1) throw new Error(`${file}: records of more than one title or edition (${[...titleDates].join(', ')})`);
  const { title, date: titleDate, through } = cites[0]!;

  const sets = new Map<string, SetEdition>();
  const setOf = (heading: string) => {
    const set = APPENDIX_RULE_SETS.find((s) => s.heading === heading);
    if (!set) return null;
    let found = sets.get(set.collection);
    if (!found) {
      found = { set, asAmendedTo: null, documents: [] };
      sets.set(set.collection, found);
    }
    return found;
  };

  for (const [i, r] of all.entries()) {
    const cite = cites[i]!;
    const where = fieldLines(r, 'EXPCITE').map(squash).filter(Boolean);
    const heading = setOf(cite.name);
    if (heading && where.length === 2) {
      // The set's own heading record: "(AS AMENDED TO JANUARY 3, 2012)".
      // (Title 18's appendix also heads a cross-reference to the FRE: no date, and no rules.)
      const stated = AS_AMENDED.exec(squash(r.fields.flatMap((f) => f.lines).join(' ')));
      if (stated) heading.asAmendedTo = statedDate(stated, file, r.line);
      continue;
    }
    const rule = RULE_CITE.exec(cite.name)?.[1];
    if (!rule) continue; // headings of titles and articles, forms, the statutes of the appendix
    const set = setOf(where[1] ?? '');
    if (!set) throw new Error(`${file}:${r.line}: Rule ${rule} sits under '${where[1] ?? ''}', not a rule set this reader knows`);
    set.documents.push(ruleDocument(r, set.set, rule, where, file));
  }

  const editions: SourceEdition[] = [];
  for (const { set, asAmendedTo, documents } of sets.values()) {
    if (!documents.length) continue;
    if (!asAmendedTo) throw new Error(`${file}: the ${set.short} has rules but no "(AS AMENDED TO …)" date`);
    const keys = new Set<string>();
    for (const d of documents) {
      if (keys.has(d.key)) throw new Error(`${file}: ${set.short} ${d.key} appears twice`);
      keys.add(d.key);
    }
    const horizon = { from: decemberFirstOnOrBefore(asAmendedTo), until: decemberFirstAfter(asAmendedTo) };
    const currency = `${usDate(titleDate)}${through ? ` (${through})` : ''}`;
    const note = horizonNote(title, asAmendedTo);
    editions.push({
      collection: set.collection,
      date: asAmendedTo,
      label: `${set.short} as amended to ${longDate(asAmendedTo)} (${title} U.S.C. Appendix, ${currency})`,
      temporalBasis: 'compiled-edition',
      retrievedAt: options.retrievedAt,
      scope: { kind: 'prefix', prefix: `${set.prefix}-` },
      source: `${file} (${set.short})`,
      sourceUrl: annualEditionUrl(title, titleDate, file),
      horizon,
      documents: documents.map((d) => ({ ...d, note })),
    });
  }
  if (!editions.length) throw new Error(`${file}: no rules of ${APPENDIX_RULE_SETS.map((s) => s.short).join(', ')} found`);
  return editions;
}

function statedDate(m: RegExpExecArray, file: string, line: number): string {
  const month = MONTHS.indexOf(m[1]!) + 1;
  const day = Number(m[2]);
  const check = new Date(Date.UTC(Number(m[3]), month - 1, day));
  if (month === 0 || check.getUTCDate() !== day) throw new Error(`${file}:${line}: '${m[0]}' is not a calendar date`);
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
const monthName = (iso: string) => {
  const upper = MONTHS[Number(iso.slice(5, 7)) - 1]!;
  return `${upper.charAt(0)}${upper.slice(1).toLowerCase()}`;
};
/** 2012-01-03 → January 3, 2012. */
const longDate = (iso: string) => `${monthName(iso)} ${Number(iso.slice(8, 10))}, ${iso.slice(0, 4)}`;

/** Federal rules amendments take effect on December 1: the one on or before `date`, and the next one after it. */
const decemberFirstOnOrBefore = (date: string): string => {
  const year = Number(date.slice(0, 4));
  return date >= `${year}-12-01` ? `${year}-12-01` : `${year - 1}-12-01`;
};
const decemberFirstAfter = (date: string): string => {
  const year = Number(date.slice(0, 4));
  return date < `${year}-12-01` ? `${year}-12-01` : `${year + 1}-12-01`;
};

/**
 * GPO's publication of the annual edition of the Code whose text the file is (govinfo package `USCODE-<year>-title<N>`):
 * the edition (or supplement) of year Y is current to early January (or February) of Y + 1, the date every -CITE-
 * line of the file carries. The address the bytes were first fetched from, OLRC's per-title download, served the
 * current edition only and no longer serves these.
 */
function annualEditionUrl(title: string, titleDate: string, file: string): string {
  const month = Number(titleDate.slice(5, 7));
  if (month > 2) {
    throw new Error(
      `${file}: the Code's text as of ${titleDate} is not an annual edition (those are current to January or February): no official address of it is known`,
    );
  }
  return `https://www.govinfo.gov/app/details/USCODE-${Number(titleDate.slice(0, 4)) - 1}-title${title}`;
}

/** The version's note: true whichever later editions the version runs through. */
function horizonNote(title: string, asAmendedTo: string): string {
  return (
    `Read from the US Code's Title ${title} Appendix; this text first appears in its edition as amended to ${longDate(asAmendedTo)}. ` +
    'Federal rules amendments take effect on December 1 (28 U.S.C. § 2074(a); every amendment the historical notes list since 1989 ' +
    'took effect on a December 1), so an edition speaks for the rules from the December 1 before its date until the December 1 after it. ' +
    'This version runs until the next edition on file that shows another text; where no edition on file speaks for the time that ' +
    'follows, it ends on the December 1 after the last edition that shows it (validTo), and later dates have no version on file (404).'
  );
}

// ---- one rule -----------------------------------------------------------------------------------------------------

function keyOf(set: AppendixRuleSet, rule: string, where: readonly string[], file: string, line: number): string {
  if (/^[A-Z]$/.test(rule)) {
    // Supplemental Rules A–G for admiralty and maritime claims, printed in the FRCP.
    if (set.collection !== 'frcp' || !where.some((w) => w.startsWith('SUPPLEMENTAL RULES'))) {
      throw new Error(`${file}:${line}: Rule ${rule} of the ${set.short} is not one of the FRCP's Supplemental Rules`);
    }
    return `${set.prefix}-supp-${rule.toLowerCase()}`;
  }
  return `${set.prefix}-${rule.toLowerCase()}`;
}

const HEAD = /^(\[)?Rule (\d+(?:\.\d+)?[A-Z]?|[A-Z])\. (.+)$/;

/** The status a placeholder heading states, for a rule with no text. */
function placeholderStatusOf(heading: string): SectionStatus | null {
  if (/\bAbrogated\b|\bRepealed\b/i.test(heading)) return 'repealed';
  if (/\bTransferred\b|\bRenumbered\b/i.test(heading)) return 'transferred';
  if (/\bReserved\b/i.test(heading)) return 'reserved';
  return null;
}

function ruleDocument(r: AppendixRecord, set: AppendixRuleSet, rule: string, where: readonly string[], file: string): SourceDocument {
  const key = keyOf(set, rule, where, file, r.line);
  const heading = squash(dropFootnoteMarks(fieldLines(r, 'HEAD').join(' ')));
  const m = HEAD.exec(heading);
  if (!m || m[2] !== rule) throw new Error(`${file}:${r.line}: the heading '${heading.slice(0, 80)}' does not name Rule ${rule}`);
  // "[Rule 3.1. Title] (Abrogated …)" keeps its brackets around the title: the rule is gone, its heading stays.
  const catchline = m[1] ? `[${m[3]}` : m[3]!;

  const bodyText = paragraphs(fieldLines(r, 'STATUTE')).join('\n');
  let status: SectionStatus = 'active';
  if (bodyText === '') {
    const stated = placeholderStatusOf(heading);
    if (!stated) throw new Error(`${file}:${r.line}: ${set.short} Rule ${rule} has no text and its heading states no status`);
    status = stated;
  }
  const credit = squash(fieldLines(r, 'SOURCE').join(' '));
  // "(!1) So in original." → "Footnote 1: So in original." (the marker itself is dropped from the text).
  const footnotes = squash(fieldLines(r, 'FOOTNOTE').join(' '))
    .split(/(?=\(!\d+\))/)
    .map((f) => f.trim())
    .filter(Boolean)
    .map((f) => {
      const m = /^\(!(\d+)\)\s*(.*)$/.exec(f);
      return m ? `Footnote ${m[1]}: ${m[2]}` : `Footnote: ${f}`;
    });
  return {
    key,
    catchline,
    bodyText,
    historyNote: [credit, ...footnotes].filter(Boolean).join(' '),
    status,
    parts: {},
  };
}

// ---- paragraphs -------------------------------------------------------------------------------------------------

const LABEL_START = /^(?:\([0-9A-Za-z]{1,5}\)|--)\s/;
const ENDS_CLAUSE = /(?:[.;:,]|\b(?:or|and))$/;

/**
 * The Code's text wraps at about 70 columns with a hanging indent: a paragraph's first line is indented two more
 * than its continuation lines ("      (a) Scope …" then "    continued …"); a wrap at a spaced dash (" -") indents the
 * continuation one more. So a line continues the paragraph when it is indented two (or one) less than the
 * paragraph's first line; a line that opens a subdivision ("(2) …", "-- …") at that indent after a complete clause
 * starts the next paragraph instead. Text set flush (the rest of a sentence after a list, "the district clerk must
 * …") continues at its own indent: an unlabeled paragraph whose next line, unlabeled too, has the same indent. One
 * line per paragraph comes out, labels first, without the indentation.
 */
/**
 * A label at the start of a continuation line may be an enumeration inside the sentence, wrapped there ("…for the
 * following reasons: (1) mistake…; / (2) newly discovered evidence which … / been discovered in time…", the style of
 * the rules before their restyling): then the text goes on at the same indent, unlabeled, after any more such lines.
 */
function wrappedEnumeration(lines: readonly string[], at: number, indent: number): boolean {
  const atIndent = (line: string | undefined) =>
    line !== undefined && line.trim() !== '' && line.length - line.trimStart().length === indent;
  let next = at + 1;
  while (atIndent(lines[next]) && LABEL_START.test(lines[next]!.trim())) next++; // "(B) …, and / (C) … / offered."
  return atIndent(lines[next]);
}

export function paragraphs(lines: readonly string[]): string[] {
  const out: string[] = [];
  let current: string | null = null;
  let firstIndent = 0;
  let labeled = false;
  let mode: 'hanging' | 'flush' | null = null;
  const flush = () => {
    if (current !== null && current !== '') out.push(current);
    current = null;
  };
  const cleaned = lines.map((raw) => dropFootnoteMarks(raw).replace(/\s+$/, ''));
  const indentOf = (line: string) => line.length - line.trimStart().length;
  for (const [i, line] of cleaned.entries()) {
    if (line.trim() === '') {
      flush();
      continue;
    }
    const indent = indentOf(line);
    const text = line.trim().replace(/\s+/g, ' ');
    const opensSubdivision = LABEL_START.test(text);
    let continues: 'hanging' | 'flush' | null = null;
    if (current !== null) {
      // Continuation lines sit 2 less than the first (3 under a bullet at an odd indent, 1 after a dash).
      const hanging = mode !== 'flush' && indent < firstIndent && indent >= firstIndent - 3;
      if (hanging && !(opensSubdivision && ENDS_CLAUSE.test(current) && !wrappedEnumeration(cleaned, i, indent))) continues = 'hanging';
      else if (mode !== 'hanging' && indent === firstIndent && !labeled && !opensSubdivision) continues = 'flush';
    }
    if (continues) {
      current = /[A-Za-z0-9]-$/.test(current!) ? `${current}${text}` : `${current} ${text}`;
      mode = continues;
    } else {
      flush();
      current = text;
      firstIndent = indent;
      labeled = opensSubdivision;
      mode = null;
    }
  }
  flush();
  return out;
}
