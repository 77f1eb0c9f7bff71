import { COLLECTIONS } from '#law/collections.ts';
import type { Corpus } from '#law/model.ts';
import type { VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import { AppError, StoreUnavailableError } from '#shared/errors.ts';
import type { CoverageCache, CoverageRecord, OpsStore } from './ports.ts';

/** A cached matrix older than this is refreshed behind the response that reads it. */
const COVERAGE_REFRESH_AFTER_SECONDS = 300;
/** Older than this (or after failed refreshes, or after an ingest) the numbers are marked stale. */
const COVERAGE_STALE_AFTER_SECONDS = 3600;

export const COVERAGE_NOTE =
  'coverageFrom is the earliest date any version of the collection is valid from: a lookup with an asOf earlier than coverageFrom yields no_edition_on_file. ' +
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

/** Coverage per collection, from key histories and edition records only (never version bodies). */
export async function computeCoverage(versions: VersionStore): Promise<CoverageRecord[]> {
  const totals = new Map<string, { sections: number; versions: number; from: string | null; retrieved: string | null }>();
  for await (const h of versions.scanHistories()) {
    if (h.summary.versions === 0) continue;
    const t = totals.get(h.collection) ?? { sections: 0, versions: 0, from: null, retrieved: null };
    t.sections += 1;
    t.versions += h.summary.versions;
    const from = h.summary.firstValidFrom ? localDateOf(h.summary.firstValidFrom) : null;
    if (from && (!t.from || from < t.from)) t.from = from;
    if (h.summary.lastRetrievedAt && (!t.retrieved || h.summary.lastRetrievedAt > t.retrieved)) t.retrieved = h.summary.lastRetrievedAt;
    totals.set(h.collection, t);
  }
  const records: CoverageRecord[] = [];
  for (const c of COLLECTIONS) {
    const t = totals.get(c.id);
    if (!t?.from) continue;
    const editions = await versions.listEditions(c.id);
    const latest = editions.reduce((a, b) => (b.date > a.date || (b.date === a.date && b.ingestedAt > a.ingestedAt) ? b : a));
    records.push({
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
    });
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
