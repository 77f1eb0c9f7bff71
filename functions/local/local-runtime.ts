import { mkdir, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@aws-lambda-powertools/logger';
import { SITE_READS_PER_MINUTE } from '#accounts/edge-limit.ts';
import { assembleJobs, type Jobs } from '#app/jobs.ts';
import { assembleServices, type Services } from '#app/services.ts';
import { type FallbackConfig, NO_FALLBACK } from '#caselaw/fallback.ts';
import { readRecordFiles } from '#formats/record-files.ts';
import type { RecordCheck } from '#formats/registry.ts';
import { createLocalServer } from '#http/local-server.ts';
import { PAGES } from '#http/pages/site-pages.ts';
import { ROUTES } from '#http/routes.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import type { FetchDcCodeRequest } from '#ingest/dc-git/fetch-dc-code.ts';
import type { FileIngestRequest, IngestRequest } from '#ingest/jobs.ts';
import { type FetchUscodeRequest, fetchUscode } from '#ingest/olrc/fetch-uscode.ts';
import { type FetchStateCodeRequest, fetchStateCode } from '#ingest/state-codes/fetch.ts';
import { COLLECTIONS } from '#law/collections.ts';
import type { VersionStore } from '#law/ports.ts';
import { PROBE_INTERVAL_SECONDS } from '#ops/health.ts';
import type { SqlTimeouts } from '#stores/postgres/sql-client.ts';
import type { RepairOptions } from '#stores/sqlite/repairing-index.ts';
import { type AdminJob, listenAdminSocket } from './admin-socket.ts';
import { type AdminSocketPlace, adminSocketPlace, removeRuntimeInfo, writeRuntimeInfo } from './data-dir.ts';
import { type EmbeddedStoreOptions, type EmbeddedStores, openEmbeddedStores } from './embedded-stores.ts';
import { localLogger, warnOfSqlRestarts } from './local-logger.ts';
import { LOCAL_PROCESSES } from './processes.ts';
import type { StoreThreads } from './store-threads.ts';

export const SAMPLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/sample');
export { PGLITE_RESTART_LOG } from './local-logger.ts';

const COVERAGE_SCHEDULE_MS = 15 * 60_000;
const AUDIT_SCHEDULE_MS = 6 * 3600_000;
const SAMPLE_STARTED = 'sample-corpus-started';
const SAMPLE_LOADED = 'sample-corpus-loaded';
const CASELAW_SAMPLE_LOADED = 'caselaw-sample-loaded';
/** What requests, admin jobs and background tasks in flight get to finish when the server closes. */
const SHUTDOWN_GRACE_MS = 2_000;
/** How long closing waits for the usage records still to be written. */
const SHUTDOWN_FLUSH_MS = 2_000;

/** Waits for `work`, or `ms` at most (the work goes on unawaited). */
const within = (ms: number, work: Promise<unknown> | undefined): Promise<unknown> =>
  Promise.race([work, new Promise((done) => setTimeout(done, ms).unref())]);

export interface LocalStores extends EmbeddedStores {
  now: () => Date;
}

export async function openLocalStores(opts: {
  dataDir: string | null;
  now?: () => Date;
  cache?: boolean;
  sqlTimeouts?: Partial<SqlTimeouts>;
  onSqlRestart?: EmbeddedStoreOptions['onSqlRestart'];
  /** Progress lines (building the search index of a data dir that has none). */
  log?: (line: string) => void;
  /** The stores' threads, already starting (see ServeOptions.storeThreads). */
  threads?: Promise<StoreThreads>;
  /** When a damaged search index is rebuilt (see ServeOptions.searchRepair). */
  searchRepair?: RepairOptions;
}): Promise<LocalStores> {
  const stores = await openEmbeddedStores(opts.dataDir, {
    ...(opts.threads && { threads: opts.threads }),
    ...(opts.log && { log: opts.log }),
    ...(opts.cache !== undefined && { cache: opts.cache }),
    ...(opts.sqlTimeouts && { sqlTimeouts: opts.sqlTimeouts }),
    ...(opts.onSqlRestart && { onSqlRestart: opts.onSqlRestart }),
    ...(opts.searchRepair && { searchRepair: opts.searchRepair }),
  });
  return { ...stores, now: opts.now ?? (() => new Date()) };
}

export type AdminJobName =
  | 'ingest'
  | 'ingest-courtlistener'
  | 'audit'
  | 'probe'
  | 'reindex'
  | 'formats-check'
  | 'fetch-uscode'
  | 'fetch-state-code'
  | 'fetch-dc-code';

/**
 * Jobs another `asof` command can ask of the stores, directly or through the running server: the jobs of every
 * deployment, with their log, and `asof fetch uscode` (the publisher's title zips, fetched and ingested here).
 */
export const ADMIN_JOBS: Record<AdminJobName, (jobs: Jobs, stores: LocalStores) => AdminJob> = {
  ingest: (jobs) => async (body, log) => {
    const { reports } = await jobs.ingest(body as IngestRequest, log);
    return reports.map((r) => ({
      edition: r.edition.id,
      label: r.edition.label,
      documents: r.documents,
      changedKeys: r.changedKeys,
      unchanged: r.unchanged,
      writes: r.writes,
    }));
  },
  'ingest-courtlistener': (jobs) => async (body, log) => jobs.ingestCaseLaw((body as { paths: string[] }).paths, log),
  audit: (jobs) => async (_body, log) => {
    const runs = await jobs.audit('manual', log);
    for (const { findings } of runs) for (const f of findings) log(`  ${f.status} ${f.scope} ${f.checkName}: ${f.detail}`);
    return runs;
  },
  probe: (jobs) => async (_body, log) => {
    const verdict = await jobs.probe({ force: true });
    log(`corpus probe: ${verdict.reachable ? 'reachable' : 'NOT reachable'} (${verdict.detail})`);
    return verdict;
  },
  reindex: (jobs) => async (_body, log) => jobs.reindex(log),
  'formats-check': (jobs) => async (body, log) => {
    const checks = await jobs.checkFormats(await readRecordFiles((body as { paths?: string[] }).paths ?? []));
    for (const c of checks) log(describeCheck(c));
    return checks;
  },
  'fetch-uscode': (jobs, stores) => async (body, log) =>
    fetchUscode(
      body as FetchUscodeRequest,
      {
        fetch: (url, init) => fetch(url, init),
        ingest: async (request, ingestLog) => (await jobs.ingest(request, ingestLog, { afterwards: false })).reports,
        afterIngest: (afterLog) => jobs.afterIngest(afterLog),
        markers: stores.ops,
        now: stores.now,
      },
      log,
    ),
  'fetch-state-code': (jobs) => async (body, log) =>
    fetchStateCode(
      body as FetchStateCodeRequest,
      {
        fetch: (url, init) => fetch(url, init),
        ingest: async (request, ingestLog) => (await jobs.ingest(request, ingestLog, { afterwards: false })).reports,
        afterIngest: (afterLog) => jobs.afterIngest(afterLog),
      },
      log,
    ),
  // Loaded when asked for: the git reader would add to every start of the CLI and the server.
  'fetch-dc-code': (jobs, stores) => async (body, log) =>
    (await import('#ingest/dc-git/fetch-dc-code.ts')).fetchDcCode(
      body as FetchDcCodeRequest,
      {
        ingest: async (request, ingestLog) => (await jobs.ingest(request, ingestLog, { afterwards: false })).reports,
        afterIngest: (afterLog) => jobs.afterIngest(afterLog),
        markers: stores.ops,
        now: stores.now,
      },
      log,
    ),
};

/** The jobs on the local stores (the same as every deployment's: functions/app/jobs.ts). */
export const localJobs = (stores: LocalStores): Jobs =>
  // This machine's processes are known: the ingest lease of one that is gone is taken over at once.
  assembleJobs({ ...stores, caselaw: () => stores.caselaw }, { leases: LOCAL_PROCESSES });

function describeCheck(c: RecordCheck): string {
  if (!c.valid) return `${c.file}: REFUSED\n${c.problems.map((p) => `  ${p.field || '(file)'}: ${p.message}`).join('\n')}`;
  const state = c.stale ? `STALE: ${c.staleDetail}` : 'current';
  return `${c.id} (${c.file}): valid, ${c.loaded ? 'loaded' : 'not loaded yet'}, ${state}`;
}

async function carriesAnything(versions: VersionStore): Promise<boolean> {
  for (const j of new Set(COLLECTIONS.map((c) => c.jurisdiction))) if (await versions.carries(j)) return true;
  return false;
}

/**
 * On a data dir that holds nothing, ingest the bundled sample corpus; resume one that was interrupted (the ingest is
 * idempotent). A data dir holding the operator's own data, or a completed sample load, is left alone.
 */
async function loadSampleIfNeeded(stores: LocalStores, jobs: Jobs, log: (line: string) => void): Promise<boolean> {
  if (await stores.ops.getMarker(SAMPLE_LOADED)) return false;
  const resuming = await stores.ops.getMarker(SAMPLE_STARTED);
  if (!resuming && (await carriesAnything(stores.versions))) return false; // the operator's own data: leave it alone
  await stores.ops.putMarker(SAMPLE_STARTED, stores.now().toISOString());
  const manifest = JSON.parse(await readFile(join(SAMPLE_DIR, 'sources.json'), 'utf8')) as {
    retrievedAt: string;
    ingest: FileIngestRequest[];
  };
  log(`asof: first start on this data dir: loading the bundled sample corpus (${SAMPLE_DIR})`);
  for (const req of manifest.ingest) {
    const at = (p: string) => join(SAMPLE_DIR, p);
    const absolute: IngestRequest =
      req.kind === 'uslm'
        ? { ...req, files: req.files.map(at) }
        : req.kind === 'dc-code'
          ? { ...req, manifest: at(req.manifest) }
          : { ...req, paths: req.paths.map(at) };
    const began = Date.now();
    const { reports } = await jobs.ingest({ ...absolute, retrievedAt: manifest.retrievedAt }, undefined, { afterwards: false });
    const versions = reports.reduce((n, r) => n + r.writes.put, 0);
    log(
      `  ingested ${req.kind}${req.kind === 'rules' ? ` ${req.set}` : req.kind === 'state-code' ? ` ${req.state}` : ''}: ${reports.length} edition(s), ${versions} versions written in ${Date.now() - began} ms`,
    );
  }
  const { coverage } = await jobs.afterIngest(log);
  for (const r of coverage?.records ?? []) {
    log(
      `  loaded ${r.jurisdiction}/${r.corpus} ${r.name}: ${r.sections} sections, ${r.versions} versions, from ${r.coverageFrom}, latest ${r.latestVersion}` +
        (r.titles ? ` (title${r.titles.length > 1 ? 's' : ''} ${r.titles.map((t) => t.title).join(', ')})` : ''),
    );
  }
  await stores.ops.putMarker(SAMPLE_LOADED, stores.now().toISOString());
  return true;
}

/**
 * The bundled CourtListener records into a replica that holds nothing yet (a data dir made before the case-law
 * replica existed gets them on its next start). A replica holding the operator's own data is left alone.
 */
export async function loadCaseLawSampleIfNeeded(stores: LocalStores, log: (line: string) => void): Promise<boolean> {
  if (await stores.ops.getMarker(CASELAW_SAMPLE_LOADED)) return false;
  if (await stores.caselaw.dataAsOf()) return false;
  const manifest = JSON.parse(await readFile(join(SAMPLE_DIR, 'sources.json'), 'utf8')) as { caselaw?: string[] };
  const began = Date.now();
  const report = await loadCourtListenerFiles(
    stores.caselaw,
    (manifest.caselaw ?? []).map((p) => join(SAMPLE_DIR, p)),
  );
  log(
    `  loaded the case-law sample: ${report.courts} courts, ${report.clusters} clusters, ${report.citations} citations, ` +
      `${report.opinionsCited} citing edges, data as of ${report.dataAsOf ?? 'unknown'}, in ${Date.now() - began} ms`,
  );
  await stores.ops.putMarker(CASELAW_SAMPLE_LOADED, stores.now().toISOString());
  return true;
}

export interface LocalServer {
  url: string;
  port: number;
  services: Services;
  stores: LocalStores;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** null = everything in memory (tests). */
  dataDir: string | null;
  /** The case-law fallback provider and its budget (default: none configured). */
  fallback?: FallbackConfig;
  port: number;
  host?: string;
  log?: (line: string) => void;
  now?: () => Date;
  /** Load the bundled sample corpus on a first start (default true). */
  sample?: boolean;
  /** Run the probe, coverage and audit schedules (default true). */
  schedules?: boolean;
  /** Answer repeated reads from memory while the stores are unchanged (default true; see embedded-stores.ts). */
  cache?: boolean;
  /**
   * Count every metered call against its key's ceilings (default true). Off (`asof serve --no-meter`), keys are still
   * checked but nothing is counted or limited: the benchmark measures the meter's cost this way.
   */
  meter?: boolean;
  logger?: Logger;
  /** The embedded PostgreSQL's time budgets per statement (see EmbeddedStoreOptions.sqlTimeouts). */
  sqlTimeouts?: Partial<SqlTimeouts>;
  /**
   * The stores' threads, started by the caller before it loaded this module (`asof serve`: startStoreThreads), so that
   * they open while the server's code loads; `sqlTimeouts` and the restart warning are then the caller's to give them.
   */
  storeThreads?: Promise<StoreThreads>;
  /**
   * When the SQLite search index, found damaged or missing, is rebuilt from the version store (default: at once, at
   * most every 10 s; repairing-index.ts). Ignored with `storeThreads`, whose options are the caller's.
   */
  searchRepair?: RepairOptions;
  /** The site's pages that read the law, per address and minute (default SITE_READS_PER_MINUTE; 0: no limit). */
  siteReadsPerMinute?: number;
}

/** `asof serve`: the whole API on embedded stores, the admin socket for other `asof` commands, and the schedules. */
export async function serveLocal(opts: ServeOptions): Promise<LocalServer> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  if (opts.dataDir) await mkdir(opts.dataDir, { recursive: true });
  const logger = opts.logger ?? localLogger();
  const stores = await openLocalStores({
    dataDir: opts.dataDir,
    ...(opts.now && { now: opts.now }),
    ...(opts.cache !== undefined && { cache: opts.cache }),
    ...(opts.sqlTimeouts && { sqlTimeouts: opts.sqlTimeouts }),
    ...(opts.searchRepair && { searchRepair: opts.searchRepair }),
    onSqlRestart: warnOfSqlRestarts(logger),
    log,
    ...(opts.storeThreads && { threads: opts.storeThreads }),
  });
  const jobs = localJobs(stores);
  if (opts.sample ?? true) {
    await loadSampleIfNeeded(stores, jobs, log);
    await loadCaseLawSampleIfNeeded(stores, log);
  }
  await jobs.syncFormats(log);

  const background = new Set<Promise<unknown>>();
  const behind = (task: () => Promise<unknown>) => {
    const p = task()
      .catch((err: unknown) => logger.warn('background task failed', { error: err }))
      .finally(() => background.delete(p));
    background.add(p);
  };
  // The corpus health says at once that search is down, and again when its index answers once more.
  stores.sqliteSearch?.onRepair((event) => event.kind !== 'rebuilding' && behind(() => jobs.probe({ force: true })));
  const site = { siteUrl: '', baseUrl: '' };
  const services = assembleServices(stores, {
    site,
    logger,
    now: stores.now,
    metered: opts.meter ?? true,
    edgeLimit: true,
    // Its own budget, not the module's: two servers in one process (tests) do not count each other's readers.
    siteReadsPerMinute: opts.siteReadsPerMinute ?? SITE_READS_PER_MINUTE,
    refreshBehind: behind,
    fallback: opts.fallback ?? NO_FALLBACK,
    // The MCP SDK loads with the first /mcp request, not with every start of the server (about half a second).
    mcp: async (request) => (await import('#http/handlers/mcp.ts')).mcpEndpoint(request),
  });
  const server = createLocalServer({ services, routes: ROUTES, pages: PAGES });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';
  const siteUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  site.siteUrl = siteUrl;
  site.baseUrl = `${siteUrl}/v1`;

  const timers: NodeJS.Timeout[] = [];
  let admin: Server | null = null;
  let socketPlace: AdminSocketPlace | null = null;
  if (opts.schedules ?? true) {
    const { coverage } = services;
    behind(() => jobs.probe({ force: true }));
    timers.push(setInterval(() => behind(() => jobs.probe()), PROBE_INTERVAL_SECONDS * 1000));
    // The served CoverageService refreshes on schedule too: it keeps the last good numbers through an outage.
    if (coverage) timers.push(setInterval(() => behind(() => coverage.refresh()), COVERAGE_SCHEDULE_MS));
    timers.push(setInterval(() => behind(() => jobs.audit('schedule')), AUDIT_SCHEDULE_MS));
    for (const t of timers) t.unref();
  }
  if (opts.dataDir) {
    socketPlace = await adminSocketPlace(opts.dataDir);
    const socket = socketPlace.path;
    admin = await listenAdminSocket(
      socket,
      Object.fromEntries(Object.entries(ADMIN_JOBS).map(([name, make]) => [name, make(jobs, stores)])),
    );
    await writeRuntimeInfo(opts.dataDir, {
      pid: process.pid,
      apiUrl: services.site.baseUrl,
      adminSocket: socket,
      startedAt: new Date().toISOString(),
    });
  }
  log(
    `asof: serving ${services.site.baseUrl} (data dir ${opts.dataDir ?? 'in memory'}; ${COLLECTIONS.length} collections known; ready in ${Date.now() - started} ms)`,
  );

  return {
    url: services.site.baseUrl,
    port,
    services,
    stores,
    /**
     * Within seconds whatever is in flight: stop accepting; requests, admin jobs and background tasks get a short
     * grace, then their connections are dropped; usage records are flushed for at most a few seconds; the stores close
     * (PGlite's thread is terminated if its statement in flight does not end: the data dir is recovered on the next start).
     */
    async close() {
      timers.forEach(clearInterval);
      const httpClosed = new Promise<void>((done) => server.close(() => done()));
      const adminClosed = new Promise<void>((done) => (admin ? admin.close(() => done()) : done()));
      server.closeIdleConnections();
      admin?.closeIdleConnections();
      await within(SHUTDOWN_GRACE_MS, Promise.allSettled([httpClosed, adminClosed, ...background]));
      server.closeAllConnections();
      admin?.closeAllConnections();
      await Promise.all([httpClosed, adminClosed]);
      await within(
        SHUTDOWN_FLUSH_MS,
        services.usageLog?.flush().catch((err: unknown) => logger.warn('usage records lost at shutdown', { error: err })),
      );
      if (opts.dataDir) await removeRuntimeInfo(opts.dataDir);
      await socketPlace?.remove();
      await stores.close();
    },
  };
}
