/**
 * reporters-db (Free Law Project, BSD-2-Clause; layers/reporters-db/) read into the tables the extractor walks:
 * every reporter edition, every variation, every law and journal abbreviation, each pointing at what it stands for.
 *
 * The JSON is read from disk at first use, not bundled: it is 1.4 MB and ships once as a Lambda layer
 * (REPORTERS_DB_DIR, /opt/reporters-db there) instead of inside every function's bundle.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One edition of a reporter: the canonical abbreviation a citation is normalised to, and when it was published. */
export interface Edition {
  /** The edition's own abbreviation, as reporters-db keys it (`F.3d`, `U.S.`, `S. Ct.`). */
  readonly key: string;
  /** The reporter family's key in reporters.json (`F.` for `F.3d`). */
  readonly reporter: string;
  readonly name: string;
  readonly citeType: string;
  /** First and last year the edition covers; null when open. */
  readonly startYear: number | null;
  readonly endYear: number | null;
  /** The edition takes a nominative reporter in parentheses between volume-reporter and page (`67 U.S. (2 Black) 635`). */
  readonly nominative: boolean;
  /** Format-neutral cites written `2000-Ohio-123`. */
  readonly hyphenated: boolean;
}

export type AbbreviationKind = 'case' | 'law' | 'journal';

/** What one abbreviation, as it may be printed, stands for. */
export interface Abbreviation {
  readonly text: string;
  readonly kind: AbbreviationKind;
  /** For `case`: every edition the printed form may mean (a variation can map to several). */
  readonly editions: readonly Edition[];
  /** The printed form is the edition's own key, not a variation. */
  readonly canonical: boolean;
}

export interface ReportersDb {
  readonly abbreviations: ReadonlyMap<string, Abbreviation>;
  readonly editions: ReadonlyMap<string, readonly Edition[]>;
}

interface RawEdition {
  start: string | null;
  end: string | null;
  regexes?: string[];
}
interface RawReporter {
  cite_type: string;
  name: string;
  editions: Record<string, RawEdition>;
  variations: Record<string, string>;
}
interface RawLaw {
  variations?: string[];
}

const defaultDir = fileURLToPath(new URL('../../../layers/reporters-db/', import.meta.url));

function reportersDbDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPORTERS_DB_DIR ?? defaultDir;
}

function yearOf(iso: string | null): number | null {
  return iso ? Number(iso.slice(0, 4)) : null;
}

function readJson<T>(dir: string, file: string): T {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
}

function loadReportersDb(dir = reportersDbDir()): ReportersDb {
  const reporters = readJson<Record<string, RawReporter[]>>(dir, 'reporters.json');
  const laws = readJson<Record<string, RawLaw[]>>(dir, 'laws.json');
  const journals = readJson<Record<string, RawLaw[]>>(dir, 'journals.json');

  const editions = new Map<string, Edition[]>();
  const variations = new Map<string, Set<string>>();
  for (const [reporterKey, family] of Object.entries(reporters)) {
    for (const reporter of family) {
      for (const [key, raw] of Object.entries(reporter.editions)) {
        const regexes = raw.regexes ?? [];
        const edition: Edition = {
          key,
          reporter: reporterKey,
          name: reporter.name,
          citeType: reporter.cite_type,
          startYear: yearOf(raw.start),
          endYear: yearOf(raw.end),
          nominative: regexes.some((r) => r.includes('reporter_nominative') || r.includes('$volume_nominative')),
          hyphenated: regexes.some((r) => r.includes('format_neutral') || r.includes('$volume_year-$reporter-')),
        };
        const list = editions.get(key) ?? [];
        list.push(edition);
        editions.set(key, list);
      }
      for (const [variation, target] of Object.entries(reporter.variations)) {
        const set = variations.get(variation) ?? new Set<string>();
        set.add(target);
        variations.set(variation, set);
      }
    }
  }

  const abbreviations = new Map<string, Abbreviation>();
  for (const [key, list] of editions) abbreviations.set(key, { text: key, kind: 'case', editions: list, canonical: true });
  for (const [variation, targets] of variations) {
    if (abbreviations.has(variation)) continue; // an edition's own key wins over a variation spelled the same
    const list = [...targets].flatMap((t) => editions.get(t) ?? []);
    if (list.length > 0) abbreviations.set(variation, { text: variation, kind: 'case', editions: list, canonical: false });
  }
  // Laws and journals are recognised so that `42 U.S.C. § 1983` or `95 Harv. L. Rev. 1` is never read as a case
  // citation; they are not resolved. A case reporter keeps an abbreviation both lists use.
  for (const [kind, table] of [
    ['law', laws],
    ['journal', journals],
  ] as const) {
    for (const [key, entries] of Object.entries(table)) {
      for (const text of [key, ...entries.flatMap((e) => e.variations ?? [])]) {
        if (!abbreviations.has(text)) abbreviations.set(text, { text, kind, editions: [], canonical: true });
      }
    }
  }
  return { abbreviations, editions };
}

let shared: ReportersDb | undefined;

/** The tables, read once per process. */
export function reportersDb(): ReportersDb {
  shared ??= loadReportersDb();
  return shared;
}
