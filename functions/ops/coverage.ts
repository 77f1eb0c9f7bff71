import { COLLECTIONS, type Collection, collectionById } from '#law/collections.ts';
import { deriveSpans } from '#law/history.ts';
import type { Corpus } from '#law/model.ts';
import type { EditionRecord, KeyHistory, VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import { AppError, StoreUnavailableError } from '#shared/errors.ts';
import type { CoverageCache, CoverageRecord, OpsStore, TitleCoverage } from './ports.ts';

/** A cached matrix older than this is refreshed behind the response that reads it. */
const COVERAGE_REFRESH_AFTER_SECONDS = 300;
/** Older than this (or after failed refreshes, or after an ingest) the numbers are marked stale. */
const COVERAGE_STALE_AFTER_SECONDS = 3600;
/** The shape of the records computeCoverage makes; a cache of an older shape is recomputed before it is served. */
export const COVERAGE_FORMAT = 2;

export const COVERAGE_NOTE =
  'coverageFrom is the earliest date any version of the collection is valid from: a lookup with an asOf earlier than coverageFrom yields no_edition_on_file. ' +
  'A collection published in titles lists the titles it carries in titles; a lookup in a title not listed yields no_edition_on_file saying the title is not carried. ' +
  'Counts are served from a cache refreshed behind the response and on a schedule; a stale object appears when they can no longer be trusted as current.';

export interface CoverageView {
  coverage: CoverageRecord[];
  note: string;
  generatedAt: string;
  stale?: { ageSeconds: number; refreshFailures: number; lastError: string | null };
}

export interface CoverageDeps {
  versions: VersionStore;
  ops: OpsStore;
  now: () => Date;
  /** Runs a task after the response (in-process locally; an async job invocation on AWS). */
  refreshBehind: (task: () => Promise<void>) => void;
}

/** What the histories of one collection, or of one title of it, add up to. */
interface Tally {
  sections: number;
  versions: number;
  /** Earliest local date a version starts. */
  from: string | null;
  /** Latest local date a version ends (exclusive); meaningless once `open`. */
  to: string | null;
  /** Some version has no end. */
  open: boolean;
  retrieved: string | null;
}

const emptyTally = (): Tally => ({ sections: 0, versions: 0, from: null, to: null, open: false, retrieved: null });

function addHistory(t: Tally, h: KeyHistory): void {
  t.sections += 1;
  t.versions += h.summary.versions;
  const from = h.summary.firstValidFrom ? localDateOf(h.summary.firstValidFrom) : null;
  if (from && (!t.from || from < t.from)) t.from = from;
  if (h.summary.lastRetrievedAt && (!t.retrieved || h.summary.lastRetrievedAt > t.retrieved)) t.retrieved = h.summary.lastRetrievedAt;
  const last = deriveSpans(h.observations).at(-1);
  if (!last) return;
  if (last.to === null) t.open = true;
  else if (!t.to || last.to > t.to) t.to = last.to;
}

const newer = (a: EditionRecord, b: EditionRecord): EditionRecord =>
  b.date > a.date || (b.date === a.date && b.ingestedAt > a.ingestedAt) ? b : a;

/** The titles an edition speaks for: its scope's title, every title (a scope of the whole collection), or its keys' titles. */
function titlesOf(collection: Collection, edition: EditionRecord, carried: readonly string[]): string[] {
  const { scope } = edition;
  if (scope.kind === 'keys') return [...new Set(scope.keys.map((k) => collection.titleOf?.(k)).filter((t) => t != null))];
  const title = collection.titleOf?.(scope.prefix) ?? null;
  return title === null ? [...carried] : [title];
}

/** Titles in the Code's order: by number, an appendix (`5a`) after its title. */
const titleOrder = (a: string, b: string): number => Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.localeCompare(b);

function titleCoverage(collection: Collection, title: string, t: Tally, editions: readonly EditionRecord[]): TitleCoverage | null {
  if (!t.from || editions.length === 0) return null;
  const first = editions.reduce((a, b) => (b.date < a.date ? b : a));
  const latest = editions.reduce(newer);
  const name = collection.titleName?.(title);
  return {
    title,
    ...(name !== undefined && { name }),
    coverageFrom: t.from,
    coverageTo: t.open ? null : t.to,
    firstVersion: first.label,
    latestVersion: latest.label,
    latestVersionDate: latest.date,
    editionCount: editions.length,
    sections: t.sections,
    versions: t.versions,
  };
}

/**
 * Coverage per collection, and per title of a collection published in titles, from key histories and edition
 * records only (never version bodies).
 */
export async function computeCoverage(versions: VersionStore): Promise<CoverageRecord[]> {
  const totals = new Map<string, Tally>();
  const byTitle = new Map<string, Map<string, Tally>>();
  for await (const h of versions.scanHistories()) {
    if (h.summary.versions === 0) continue;
    const t = totals.get(h.collection) ?? emptyTally();
    totals.set(h.collection, t);
    addHistory(t, h);
    const title = collectionById(h.collection).titleOf?.(h.key);
    if (title == null) continue;
    const titles = byTitle.get(h.collection) ?? new Map<string, Tally>();
    byTitle.set(h.collection, titles);
    const tt = titles.get(title) ?? emptyTally();
    titles.set(title, tt);
    addHistory(tt, h);
  }
  const records: CoverageRecord[] = [];
  for (const c of COLLECTIONS) {
    const t = totals.get(c.id);
    if (!t?.from) continue;
    const editions = await versions.listEditions(c.id);
    const latest = editions.reduce(newer);
    const labels = new Map<string, string>();
    for (const e of editions) if (!labels.has(e.label) || e.date < labels.get(e.label)!) labels.set(e.label, e.date);
    const record: CoverageRecord = {
      jurisdiction: c.jurisdiction,
      corpus: c.corpus,
      name: c.name,
      cadenceClass: c.cadenceClass,
      temporalBasis: c.temporalBasis,
      coverageFrom: t.from,
      latestVersion: latest.label,
      sections: t.sections,
      versions: t.versions,
      lastRetrievedAt: t.retrieved ?? latest.retrievedAt,
      coverageTo: t.open ? null : t.to,
      latestVersionDate: latest.date,
      editions: [...labels]
        .map(([label, date]) => ({ label, date }))
        .sort((a, b) => a.date.localeCompare(b.date) || a.label.localeCompare(b.label)),
    };
    const titles = byTitle.get(c.id);
    if (c.titleOf && titles) {
      const carried = [...titles.keys()].sort(titleOrder);
      const editionsOf = new Map<string, EditionRecord[]>();
      for (const e of editions) {
        for (const title of titlesOf(c, e, carried)) {
          const list = editionsOf.get(title) ?? [];
          editionsOf.set(title, list);
          list.push(e);
        }
      }
      record.titles = carried.flatMap((title) => titleCoverage(c, title, titles.get(title)!, editionsOf.get(title) ?? []) ?? []);
    }
    records.push(record);
  }
  return records.sort(
    (a, b) => a.jurisdiction.localeCompare(b.jurisdiction) || a.corpus.localeCompare(b.corpus) || a.name.localeCompare(b.name),
  );
}

/** Serves coverage from its cache, refreshing behind the response; remembers the last good matrix through an outage. */
export class CoverageService {
  private lastKnown: CoverageCache | null = null;
  private inFlight: Promise<CoverageCache> | null = null;
  /** When this process last handed a refresh to refreshBehind that has not finished yet (ms), else null. */
  private scheduledAt: number | null = null;

  constructor(private readonly deps: CoverageDeps) {}

  /** Recompute and store; on failure record it against the cache and rethrow. Concurrent calls share one run. */
  refresh(): Promise<CoverageCache> {
    this.inFlight ??= this.runRefresh().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async runRefresh(): Promise<CoverageCache> {
    const attemptAt = this.deps.now().toISOString();
    try {
      const records = await computeCoverage(this.deps.versions);
      const cache: CoverageCache = {
        records,
        format: COVERAGE_FORMAT,
        generatedAt: attemptAt,
        refreshFailures: 0,
        lastError: null,
        lastAttemptAt: attemptAt,
        dirtySince: null,
      };
      // As stored: an ingest's marks made while computing (or one under way, or dead) stay on it.
      const stored = await this.deps.ops.putCoverage(cache, attemptAt);
      this.lastKnown = stored;
      return stored;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.lastKnown) {
        this.lastKnown = {
          ...this.lastKnown,
          refreshFailures: this.lastKnown.refreshFailures + 1,
          lastError: message,
          lastAttemptAt: attemptAt,
        };
        await this.deps.ops.putCoverage(this.lastKnown, attemptAt).catch(() => undefined);
      }
      throw err;
    }
  }

  /**
   * One background refresh at a time per process: every read of an old cache would otherwise start its own
   * recomputation (a scan of every history), all at once under load. A refresh handed off more than
   * COVERAGE_REFRESH_AFTER_SECONDS ago that never finished (its runner dropped it) no longer holds the next one back.
   */
  private scheduleRefresh(now: Date): void {
    if (this.inFlight) return;
    if (this.scheduledAt !== null && now.getTime() - this.scheduledAt < COVERAGE_REFRESH_AFTER_SECONDS * 1000) return;
    const scheduledAt = now.getTime();
    this.scheduledAt = scheduledAt;
    this.deps.refreshBehind(() =>
      this.refresh()
        .then(() => undefined)
        .finally(() => {
          if (this.scheduledAt === scheduledAt) this.scheduledAt = null;
        }),
    );
  }

  async read(filter: { jurisdiction?: string; corpus?: Corpus }): Promise<CoverageView> {
    const now = this.deps.now();
    let cache: CoverageCache | null;
    let unreachable: string | null = null;
    try {
      cache = (await this.deps.ops.getCoverage()) ?? null;
      if (cache) this.lastKnown = cache;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      cache = this.lastKnown;
      unreachable = err.message;
    }
    if (!cache) {
      try {
        cache = await this.refresh();
      } catch (err) {
        throw new AppError('internal_error', 'Coverage could not be computed and no cached value is available.', {}, {}, { cause: err });
      }
    } else if (cache.format !== COVERAGE_FORMAT && !unreachable) {
      // Numbers an older version computed lack fields this one answers with: recompute first, else serve them stale.
      const old = cache;
      cache = await this.refresh().catch(() => this.lastKnown ?? old);
    }

    const ageSeconds = Math.max(0, Math.floor((now.getTime() - Date.parse(cache.generatedAt)) / 1000));
    // While an ingest is under way (or died), no refresh can clear the mark: refresh by age only, not on every read.
    const ingesting = cache.ingestingSince ?? null;
    if (ageSeconds > COVERAGE_REFRESH_AFTER_SECONDS || (cache.dirtySince && !ingesting) || unreachable) this.scheduleRefresh(now);
    const isStale =
      ageSeconds > COVERAGE_STALE_AFTER_SECONDS ||
      cache.refreshFailures > 0 ||
      cache.dirtySince !== null ||
      ingesting !== null ||
      unreachable !== null;
    const coverage = cache.records.filter(
      (r) => (!filter.jurisdiction || r.jurisdiction === filter.jurisdiction) && (!filter.corpus || r.corpus === filter.corpus),
    );
    return {
      coverage,
      note: COVERAGE_NOTE,
      generatedAt: cache.generatedAt,
      ...(isStale && {
        stale: {
          ageSeconds,
          refreshFailures: cache.refreshFailures,
          lastError:
            unreachable ??
            cache.lastError ??
            (ingesting ? `an ingest started at ${ingesting} has not completed; the counts may include part of it` : null) ??
            (cache.dirtySince ? `the store changed at ${cache.dirtySince} (ingest); refresh pending` : null),
        },
      }),
    };
  }
}
