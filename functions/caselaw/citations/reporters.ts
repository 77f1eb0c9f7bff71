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
import { type CitationForm, compileForms, flattenVariables } from './forms.ts';

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
  /** The edition's other printed forms (reporters-db patterns beyond `volume reporter page`), compiled. */
  readonly forms: readonly CitationForm[];
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
  /** Some edition it may mean is cited without a volume (`T.C. Memo. 2019-233`, `CCH OSHD ¶ 33,123`). */
  readonly volumeless: boolean;
  /** Some edition it may mean has forms of its own (forms.ts) beyond `volume reporter page`. */
  readonly hasForms: boolean;
  /**
   * Editions a variation spelled like this edition key points to (`Fla. L. Weekly` for `Fla. L. Weekly Fed. D`): the
   * key wins, but their own forms are read where the key's reading stops (`20 Fla. L. Weekly D2629`).
   */
  readonly shadowed?: readonly Edition[];
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

export function reportersDbDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPORTERS_DB_DIR ?? defaultDir;
}

function yearOf(iso: string | null): number | null {
  return iso ? Number(iso.slice(0, 4)) : null;
}

function readJson<T>(dir: string, file: string): T {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
}

/**
 * reporters-db spells some series with a period after the ordinal (`App. Div. 2d.`), which opinions print without
 * (`30 App. Div. 2d 781`, In re Winship): each such variation is also known without it, unless that spelling is taken.
 */
function withoutSeriesPeriod(variations: Map<string, Set<string>>): Map<string, Set<string>> {
  const all = new Map(variations);
  for (const [variation, targets] of variations) {
    const bare = /\d(?:d|th|st|nd|rd)\.$/.test(variation) ? variation.slice(0, -1) : undefined;
    if (bare && !all.has(bare)) all.set(bare, targets);
  }
  return all;
}

/**
 * reporters-db lists `T.C. at` as a variation of `T.C.`: `at` is what makes a short cite (`65 T.C. at 90`), and read
 * as part of the reporter it turned every Tax Court short cite into a full citation of its pin page. Such variations
 * are left out.
 */
const SHORT_CITE_MARKER = /\sat$/;

function loadReportersDb(dir = reportersDbDir()): ReportersDb {
  const reporters = readJson<Record<string, RawReporter[]>>(dir, 'reporters.json');
  const laws = readJson<Record<string, RawLaw[]>>(dir, 'laws.json');
  const journals = readJson<Record<string, RawLaw[]>>(dir, 'journals.json');
  const variables = flattenVariables(readJson<Record<string, unknown>>(dir, 'regexes.json'));
  const formsOf = new Map<string, CitationForm[]>(); // one compiled form per distinct template

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
          forms: regexes.flatMap((template) => {
            let compiled = formsOf.get(template);
            if (!compiled) {
              compiled = compileForms([template], variables);
              formsOf.set(template, compiled);
            }
            return compiled;
          }),
        };
        const list = editions.get(key) ?? [];
        list.push(edition);
        editions.set(key, list);
      }
      for (const [variation, target] of Object.entries(reporter.variations)) {
        if (SHORT_CITE_MARKER.test(variation)) continue;
        const set = variations.get(variation) ?? new Set<string>();
        set.add(target);
        variations.set(variation, set);
      }
    }
  }

  const abbreviations = new Map<string, Abbreviation>();
  const caseAbbreviation = (text: string, list: readonly Edition[], canonical: boolean): Abbreviation => ({
    text,
    kind: 'case',
    editions: list,
    canonical,
    volumeless: list.some((e) => e.forms.some((f) => f.volumeRule === 'none' || f.volumeRule === 'optional')),
    hasForms: list.some((e) => e.forms.length > 0),
  });
  for (const [key, list] of editions) abbreviations.set(key, caseAbbreviation(key, list, true));
  for (const [variation, targets] of withoutSeriesPeriod(variations)) {
    const own = abbreviations.get(variation);
    if (own) {
      // An edition's own key wins over a variation spelled the same; the variation's editions keep their own forms.
      const shadowed = [...targets].flatMap((t) => editions.get(t) ?? []).filter((e) => e.forms.length > 0 && !own.editions.includes(e));
      if (shadowed.length) abbreviations.set(variation, { ...own, hasForms: true, shadowed });
      continue;
    }
    const list = [...targets].flatMap((t) => editions.get(t) ?? []);
    if (list.length > 0) abbreviations.set(variation, caseAbbreviation(variation, list, false));
  }
  // Laws and journals are recognised so that `42 U.S.C. § 1983` or `95 Harv. L. Rev. 1` is never read as a case
  // citation; they are not resolved. A case reporter keeps an abbreviation both lists use.
  for (const [kind, table] of [
    ['law', laws],
    ['journal', journals],
  ] as const) {
    for (const [key, entries] of Object.entries(table)) {
      for (const text of [key, ...entries.flatMap((e) => e.variations ?? [])]) {
        if (!abbreviations.has(text))
          abbreviations.set(text, { text, kind, editions: [], canonical: true, volumeless: false, hasForms: false });
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
