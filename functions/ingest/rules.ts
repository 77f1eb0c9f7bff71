import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TemporalBasis } from '#law/model.ts';
import { normalizeText } from '#shared/hash.ts';
import { placeholderStatus } from './placeholder.ts';
import type { SourceDocument, SourceEdition } from './source.ts';

/** Court rules published as one Markdown file per rule (FRAP, Supreme Court Rules, North Dakota appellate rules). */

/** The Markdown rule sets this connector reads. */
export const RULE_SETS = ['frap', 'sup-ct', 'ndrappp'] as const;
export type RuleSetId = (typeof RULE_SETS)[number];

/**
 * What `ingest rules` reads: the Markdown sets, and the US Code appendices in the Code's plain text
 * (appendix-text.ts), whose files name their own rule sets and dates. The one list the CLI, the ingest job's event
 * and the ingest read.
 */
export const APPENDIX_TEXT = 'us-code-appendix';
export const INGEST_RULE_SETS = [...RULE_SETS, APPENDIX_TEXT] as const;
export type IngestRuleSetId = (typeof INGEST_RULE_SETS)[number];

export interface RuleSetOverrides {
  date?: string;
  label?: string;
  retrievedAt?: string;
  temporalBasis?: TemporalBasis;
}

interface RuleSetDefaults {
  /** A folder or file whose name matches holds this set (when the CLI or the event does not name the set). */
  pathName: RegExp;
  collection: string;
  keyPrefix: string;
  /** File name → rule number. */
  fileName: RegExp;
  /** Where the rule's "Rule 32. Title" line is: YAML front matter `title`, or the first `# ` heading. */
  titleFrom: 'front-matter' | 'heading';
  /**
   * FRAP's Markdown writes the rules' "(1)", "(2)" paragraph labels as ordered-list items "1.", "2.": the official
   * label is restored. The Supreme Court's own paragraph labels are "1.", "2." and stay as written.
   */
  orderedListIsParenLabel: boolean;
  /** The edition date, or null: the date the set was retrieved (`retrievedAt`, required then). */
  date: string | null;
  temporalBasis: TemporalBasis;
  label: (date: string) => string;
  /** Label of a rule's own edition when the source states the day its amendment takes effect. */
  effectiveLabel: (rule: string, date: string) => string;
  scope: 'prefix' | 'keys';
}

/** Where each set's dates come from: see data/sample's provenance notes (never a guessed date). */
export const RULE_SET_DEFAULTS: Readonly<Record<RuleSetId, RuleSetDefaults>> = {
  // The text shows the amendments effective 2024-12-01 (Rule 32(g)(1) cites Rule 40(d)(3)(A)); files carry no dates.
  frap: {
    pathName: /frap/i,
    collection: 'frap',
    keyPrefix: 'frap',
    fileName: /^rule_(\d+(?:\.\d+)?)\.md$/,
    titleFrom: 'front-matter',
    orderedListIsParenLabel: true,
    date: '2024-12-01',
    temporalBasis: 'compiled-edition',
    label: () => 'FRAP as amended to December 1, 2024',
    effectiveLabel: (rule, date) => `Fed. R. App. P. ${rule} as amended effective ${date}`,
    scope: 'prefix',
  },
  // Undated files; front-matter notes state some amendments' effective dates (see supCtEffectiveDate).
  'sup-ct': {
    pathName: /supreme-court|sup-ct|supct/i,
    collection: 'sup-ct',
    keyPrefix: 'sup-ct-r',
    fileName: /^rule_(\d+(?:\.\d+)?)\.md$/,
    titleFrom: 'front-matter',
    orderedListIsParenLabel: false,
    date: null,
    temporalBasis: 'retrieval-date',
    label: (date) => `Sup. Ct. R. as retrieved ${date}`,
    effectiveLabel: (rule, date) => `Sup. Ct. R. ${rule} as amended effective ${date}`,
    scope: 'keys',
  },
  // The source repository states the rules were last checked against ndcourts.gov on 2026-03-07.
  ndrappp: {
    pathName: /north-dakota|ndrappp|nd-rap/i,
    collection: 'ndrappp',
    keyPrefix: 'ndrappp',
    fileName: /^rule-(\d+(?:\.\d+)?)\.md$/,
    titleFrom: 'heading',
    orderedListIsParenLabel: false,
    date: '2026-03-07',
    temporalBasis: 'retrieval-date',
    label: () => 'N.D.R.App.P. as checked against ndcourts.gov on 2026-03-07',
    effectiveLabel: (rule, date) => `N.D.R.App.P. ${rule} as amended effective ${date}`,
    scope: 'prefix',
  },
};

/** The rule set a folder or file name stands for, when the caller does not say. */
export function ruleSetOf(path: string): IngestRuleSetId | null {
  const name = basename(path.replace(/\/+$/, ''));
  if (/us-code-appendix|^title(?:18|28)-appendix/i.test(name)) return APPENDIX_TEXT;
  return RULE_SETS.find((set) => RULE_SET_DEFAULTS[set].pathName.test(name)) ?? null;
}

interface RuleFile {
  file: string;
  rule: string;
  doc: SourceDocument;
  /** Sup. Ct. R. only: the date the rule's latest stated amendment took effect, when the source states it. */
  effectiveDate: string | null;
}

export async function readRuleSet(set: RuleSetId, paths: string[], overrides: RuleSetOverrides = {}): Promise<SourceEdition[]> {
  const defaults = RULE_SET_DEFAULTS[set];
  const files = await expandPaths(paths);
  const rules = await Promise.all(files.map((file) => readRuleFile(set, defaults, file)));
  rules.sort((a, b) => compareRuleNumbers(a.rule, b.rule));
  const twin = rules.find((r, i) => i > 0 && rules[i - 1]!.rule === r.rule);
  if (twin)
    throw new Error(
      `${set}: rule ${twin.rule} is given twice (${rules
        .filter((r) => r.rule === twin.rule)
        .map((r) => r.file)
        .join(', ')})`,
    );
  if (rules.length === 0) throw new Error(`${set}: no rule files in ${paths.join(', ')}`);

  if (defaults.date === null && !overrides.retrievedAt) {
    throw new Error(`${set}: the retrieval date is this set's edition date; pass overrides.retrievedAt`);
  }
  const retrievedAt = overrides.retrievedAt ?? (await newestModification(files));
  const date = overrides.date ?? defaults.date ?? retrievedAt.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`${set}: edition date '${date}' is not YYYY-MM-DD`);

  const edition = (rs: RuleFile[], fields: Pick<SourceEdition, 'date' | 'label' | 'temporalBasis' | 'scope'>): SourceEdition => ({
    collection: defaults.collection,
    retrievedAt,
    source: rs.map((r) => r.file).join(', '),
    documents: rs.map((r) => r.doc),
    ...fields,
  });

  const effective = rules.filter((r) => r.effectiveDate !== null);
  const rest = rules.filter((r) => r.effectiveDate === null);
  const editions = effective.map((r) =>
    edition([r], {
      date: r.effectiveDate!,
      label: defaults.effectiveLabel(r.rule, r.effectiveDate!),
      temporalBasis: 'effective-date',
      scope: { kind: 'keys', keys: [r.doc.key] },
    }),
  );
  if (rest.length) {
    editions.push(
      edition(rest, {
        date,
        label: overrides.label ?? defaults.label(date),
        temporalBasis: overrides.temporalBasis ?? defaults.temporalBasis,
        // A keys scope leaves the effective-dated rules alone: this edition does not speak for them.
        scope:
          defaults.scope === 'prefix'
            ? { kind: 'prefix', prefix: `${defaults.keyPrefix}-` }
            : { kind: 'keys', keys: rest.map((r) => r.doc.key) },
      }),
    );
  }
  return editions.sort((a, b) => a.date.localeCompare(b.date));
}

async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      for (const name of (await readdir(path)).filter((n) => n.endsWith('.md')).sort()) files.add(resolve(join(path, name)));
    } else files.add(resolve(path));
  }
  return [...files];
}

async function newestModification(files: readonly string[]): Promise<string> {
  const times = await Promise.all(files.map(async (f) => (await stat(f)).mtime.getTime()));
  return new Date(Math.max(...times)).toISOString();
}

const compareRuleNumbers = (a: string, b: string): number => {
  const [aMajor, aMinor = 0] = a.split('.').map(Number);
  const [bMajor, bMinor = 0] = b.split('.').map(Number);
  return aMajor! - bMajor! || aMinor - bMinor;
};

// ---- one rule -----------------------------------------------------------------------------------------------------

const RULE_TITLE = /^rule\s+(\d+(?:\.\d+)?)\.?\s+(.+)$/i;

async function readRuleFile(set: RuleSetId, defaults: RuleSetDefaults, file: string): Promise<RuleFile> {
  const rule = defaults.fileName.exec(basename(file))?.[1];
  if (!rule) throw new Error(`${file}: not a ${set} rule file name (expected a name like ${defaults.fileName.source})`);
  const { frontMatter, markdown } = splitFrontMatter(file, await readFile(file, 'utf8'));

  let titleLine: string;
  let body = markdown;
  if (defaults.titleFrom === 'front-matter') {
    titleLine = typeof frontMatter.title === 'string' ? frontMatter.title : '';
  } else {
    const heading = /^[ \t]*#[ \t]+(.+)$/m.exec(markdown);
    titleLine = heading?.[1] ?? '';
    body = heading ? markdown.replace(heading[0], '') : markdown;
  }
  const title = RULE_TITLE.exec(titleLine.trim());
  if (!title) throw new Error(`${file}: no "Rule ${rule}. …" title found`);
  if (title[1] !== rule) throw new Error(`${file}: the title names rule ${title[1]} but the file name says rule ${rule}`);

  const notes = Array.isArray(frontMatter.notes) ? frontMatter.notes.map((n) => inlineText(String(n))) : [];
  const catchline = normalizeText(inlineText(title[2]!));
  const bodyText = normalizeText(markdownText(body, defaults.orderedListIsParenLabel));
  return {
    file,
    rule,
    effectiveDate: set === 'sup-ct' ? supCtEffectiveDate(file, notes) : null,
    doc: {
      key: `${defaults.keyPrefix}-${rule}`,
      catchline,
      bodyText,
      historyNote: notes.join('; '),
      status: placeholderStatus(catchline, bodyText),
      parts: {},
    },
  };
}

function splitFrontMatter(file: string, text: string): { frontMatter: Record<string, unknown>; markdown: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { frontMatter: {}, markdown: text };
  const parsed: unknown = parseYaml(m[1]!);
  if (parsed !== null && typeof parsed !== 'object') throw new Error(`${file}: front matter is not a YAML mapping`);
  return { frontMatter: (parsed ?? {}) as Record<string, unknown>, markdown: text.slice(m[0].length) };
}

/**
 * The rule's words without the Markdown: one line per block, no blockquote markers, list bullets, bold, emphasis,
 * link targets or escapes. Subdivision labels stay ("(a)", "(1)", "(A)"); the bullets "•" and "·" are the rules' own
 * characters, not Markdown, and stay too.
 */
function markdownText(markdown: string, orderedListIsParenLabel: boolean): string {
  return markdown
    .split(/\r?\n/)
    .map((line) => {
      let l = line.replace(/^[ \t]*(?:>[ \t]?)*[ \t]*/, '').replace(/^[-*+][ \t]+/, '');
      if (orderedListIsParenLabel) l = l.replace(/^(\d+)\.[ \t]+/, '($1) ');
      return inlineText(l);
    })
    .filter((l) => l.trim() !== '')
    .join('\n');
}

function inlineText(text: string): string {
  return (
    text
      .replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1')
      .replace(/\*\*/g, '')
      .replace(/\*([^*\s][^*]*)\*/g, '$1')
      .replace(/\\([!-/:-@[-`{-~])/g, '$1')
      // Soft hyphens are the PDF's line-break hints inside words ("Proce­dure"), invisible in the printed rule.
      .replace(/\u00ad/g, '')
  );
}

// ---- Supreme Court amendment notes ----------------------------------------------------------------------------------

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DATE = String.raw`([A-Za-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})`;
const TAKES_EFFECT = new RegExp(`to take effect on ${DATE}`, 'i');
const ON = new RegExp(`\\bon ${DATE}`, 'i');
const PRIOR_TO = new RegExp(`\\bprior to ${DATE}`, 'i');

interface StatedEvent {
  /** Sortable: the date, then 0 for "prior to" that date, 1 for on it. */
  order: string;
  effective: string | null;
}

/**
 * A rule whose latest stated amendment names the day it takes effect is in force in this text from that day. Any
 * later or undated amendment without such a day leaves only the retrieval date (null).
 */
export function supCtEffectiveDate(file: string, notes: readonly string[]): string | null {
  const events = notes.map((note) => statedEvent(file, note));
  if (events.length === 0 || events.some((e) => e === null)) return null;
  const latest = (events as StatedEvent[]).reduce((a, b) => (b.order > a.order ? b : a));
  const tie = (events as StatedEvent[]).filter((e) => e.order === latest.order && e.effective !== latest.effective);
  return tie.length ? null : latest.effective;
}

function statedEvent(file: string, note: string): StatedEvent | null {
  const effective = TAKES_EFFECT.exec(note);
  if (effective) return { order: `${isoDate(file, effective)}#1`, effective: isoDate(file, effective) };
  const on = ON.exec(note);
  if (on) return { order: `${isoDate(file, on)}#1`, effective: null };
  const prior = PRIOR_TO.exec(note);
  if (prior) return { order: `${isoDate(file, prior)}#0`, effective: null };
  return null;
}

function isoDate(file: string, m: RegExpExecArray): string {
  const month = MONTH_NAMES.indexOf(m[1]!.toLowerCase()) + 1;
  const day = Number(m[2]);
  const check = new Date(Date.UTC(Number(m[3]), month - 1, day));
  if (month === 0 || check.getUTCDate() !== day) throw new Error(`${file}: '${m[0]}' in the notes is not a calendar date`);
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
