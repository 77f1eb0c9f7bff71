/**
 * The composition root of the jobs: ingest and what follows every ingest, the audit, the corpus probe, the coverage
 * refresh, reindexing, the format records. The local server's admin socket, the CLI on a stopped server and the
 * deployed job functions all run these, so an ingest is followed by the same steps everywhere.
 */
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { AuthoredFile } from '#formats/authored.ts';
import type { FormatStore } from '#formats/ports.ts';
import { BUNDLED_RECORD_FILES } from '#formats/records/index.ts';
import { checkFormatRecords, type LoadReport, loadFormatRecords, type RecordCheck } from '#formats/registry.ts';
import { splitRefusals, waitingLine } from '#formats/validate.ts';
import { type CourtListenerIngestReport, ingestCourtListener } from '#ingest/courtlistener-ingest.ts';
import type { IngestReport } from '#ingest/engine.ts';
import { type IngestRequest, runIngest } from '#ingest/jobs.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { runAudit } from '#ops/audit.ts';
import { CoverageService } from '#ops/coverage.ts';
import { probeCorpus } from '#ops/health.ts';
import type { LeaseRuntime } from '#ops/leases.ts';
import type { AuditRun, CoverageCache, HealthVerdict, OpsStore, StoredAuditRun } from '#ops/ports.ts';
import { reindex } from '#ops/reindex.ts';

export type Log = (line: string) => void;

export interface JobStores {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  formats: FormatStore;
  /** The case-law replica, for CourtListener ingests, opened on first use (a law ingest never connects to it); null where none is bound. */
  caselaw: () => CaseLawStore | null;
  now: () => Date;
}

/** What follows every ingest of law, in this order. */
const AFTER_INGEST = ['formats', 'coverage', 'audit'] as const;
export type AfterIngestStep = (typeof AFTER_INGEST)[number];

export interface JobOptions {
  /** Default: every step of AFTER_INGEST. */
  afterIngest?: readonly AfterIngestStep[];
  /**
   * What can be known of an ingest lease's owner: locally, whether its process on this machine is gone (its lease is
   * then taken over at once); by default only expiry (a Lambda knows nothing of another sandbox).
   */
  leases?: LeaseRuntime;
}

/** What the steps after an ingest found (null for a step not run). */
export interface AfterIngest {
  /** The format records validated against the new corpus. */
  formats: LoadReport | null;
  coverage: CoverageCache | null;
  /** The audit's run over everything. */
  audit: AuditRun | null;
}

/** What an ingest of law did, and what the steps after it found. */
export interface IngestOutcome extends AfterIngest {
  reports: IngestReport[];
}

export interface Jobs {
  /**
   * An ingest of law under the store-wide lease, then the steps after it (`afterwards: false`: not yet, nor the search
   * index's refresh; see afterIngest).
   */
  ingest(request: IngestRequest, log?: Log, options?: { afterwards?: boolean }): Promise<IngestOutcome>;
  /** The steps after an ingest, on their own (after several ingests in a row, run once). */
  afterIngest(log?: Log): Promise<AfterIngest>;
  /** CourtListener records into the case-law replica (`asof ingest courtlistener`, the ingest job's courtlistener events). */
  ingestCaseLaw(paths: readonly string[], log?: Log): Promise<CourtListenerIngestReport>;
  audit(trigger: AuditRun['trigger'], log?: Log): Promise<StoredAuditRun[]>;
  /** Forced: probes even when a verdict younger than the probe interval stands. */
  probe(options?: { force?: boolean }): Promise<HealthVerdict>;
  refreshCoverage(): Promise<CoverageCache>;
  reindex(log?: Log): Promise<{ documents: number }>;
  /** The bundled format records into the store, validated against the corpus as it is now. */
  syncFormats(log?: Log): Promise<LoadReport>;
  /** The bundled records and `extra` ones being authored: valid? loaded? stale? Writes nothing. */
  checkFormats(extra: readonly AuthoredFile[]): Promise<RecordCheck[]>;
}

const quiet: Log = () => undefined;

export function assembleJobs(stores: JobStores, options: JobOptions = {}): Jobs {
  const after = new Set(options.afterIngest ?? AFTER_INGEST);
  // Refreshed by the jobs themselves, never behind a response.
  const coverage = new CoverageService({ ...stores, refreshBehind: () => undefined });

  const syncFormats = async (log: Log = quiet): Promise<LoadReport> => {
    const report = await loadFormatRecords(stores, BUNDLED_RECORD_FILES);
    const changed = report.loaded.filter((r) => !r.unchanged).length;
    if (changed) log(`  format records: ${report.loaded.length} valid, ${changed} (re)loaded`);
    const { waiting, refused } = splitRefusals(report.refused);
    if (waiting.records.length) log(`  format records: ${waitingLine(waiting)}`);
    for (const p of refused) log(`  format record refused: ${p.file} ${p.field || '(file)'}: ${p.message}`);
    return report;
  };

  const audit = async (trigger: AuditRun['trigger'], log: Log = quiet): Promise<StoredAuditRun[]> => {
    const runs = await runAudit(stores, trigger);
    for (const { run } of runs) {
      log(`audit ${run.jurisdiction}: ${run.passed}/${run.totalChecks} checks passed, ${run.warned} warned, ${run.failed} failed`);
    }
    return runs;
  };

  const stepsAfterIngest = async (log: Log): Promise<AfterIngest> => {
    const formats = after.has('formats') ? await syncFormats(log) : null;
    const refreshed = after.has('coverage') ? await coverage.refresh() : null;
    const runs = after.has('audit') ? await audit('ingest', log) : [];
    return { formats, coverage: refreshed, audit: runs.find((r) => r.run.jurisdiction === 'all')?.run ?? null };
  };

  return {
    async ingest(request, log = quiet, { afterwards = true } = {}) {
      const reports = await runIngest({ ...stores, ...(options.leases && { leases: options.leases }) }, request, log, {
        refreshSearch: afterwards,
      });
      // With `afterwards`, runIngest has refreshed the search index already (when anything changed).
      return afterwards ? { reports, ...(await stepsAfterIngest(log)) } : { reports, formats: null, coverage: null, audit: null };
    },
    // Ingests run with `afterwards: false` leave the search index's refresh (segments merged, ranking lists rebuilt:
    // seconds on a whole jurisdiction) to here, so a fetch of many batches pays for it once, not once a batch.
    async afterIngest(log = quiet) {
      await stores.search.refresh();
      return stepsAfterIngest(log);
    },
    async ingestCaseLaw(paths, log = quiet) {
      const replica = stores.caselaw();
      if (!replica) throw new Error('no case-law replica is bound here');
      return ingestCourtListener(replica, paths, log);
    },
    audit,
    probe: (probeOptions = {}) => probeCorpus(stores, probeOptions),
    refreshCoverage: () => coverage.refresh(),
    reindex: (log = quiet) => reindex(stores, log),
    syncFormats,
    checkFormats: (extra) => checkFormatRecords(stores, [...BUNDLED_RECORD_FILES, ...extra]),
  };
}
