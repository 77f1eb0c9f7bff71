import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { openPgliteThread, type PgliteThread, type PgliteThreadOptions } from '#stores/postgres/pglite-thread-client.ts';
import type { SqlTimeouts } from '#stores/postgres/sql-client.ts';
import { RepairingSearchIndex, type RepairOptions } from '#stores/sqlite/repairing-index.ts';
import { sqliteAvailable } from '#stores/sqlite/search-index.ts';
import { makeDataDirPrivate } from './data-dir.ts';

/**
 * The embedded stores' threads (dynalite on LevelDB, PGlite, SQLite's search workers), started side by side. This
 * module imports no DynamoDB or PostgreSQL adapter, no AWS SDK and no HTTP code (only the SQLite index, which opens
 * here), so that `asof serve` can start the threads first and load the rest of the server while they open
 * (docs/DECISIONS.md "Local runtime", start-up).
 */

export type SearchEngine = 'sqlite' | 'postgres';

export interface StoreThreadOptions {
  /**
   * The embedded search engine: `sqlite` (default; SQLite FTS5, docs/DECISIONS.md "Embedded search engine") or
   * `postgres` (full-text search on the PGlite that holds the case-law replica, the engine before issue 17). Default
   * from ASOF_SEARCH_ENGINE.
   */
  searchEngine?: SearchEngine;
  /**
   * The embedded PostgreSQL's time budgets (functions/stores/postgres/sql-client.ts; default DEFAULT_SQL_TIMEOUTS, the
   * request budget overridable with ASOF_SQL_REQUEST_TIMEOUT_MS). A statement past its budget answers 503 and, on a
   * data dir, is stopped by restarting PGlite's thread.
   */
  sqlTimeouts?: Partial<SqlTimeouts>;
  /** Told each time PGlite's thread was restarted to stop a statement past its budget (see PgliteThread). */
  onSqlRestart?: PgliteThreadOptions['onRestart'];
  /** The line saying why the search engine is PostgreSQL (better-sqlite3 not installed), and the index's repairs. */
  log?: (line: string) => void;
  /** When the SQLite index, found damaged or missing, is rebuilt (default: at once, at most every 10 s). */
  searchRepair?: RepairOptions;
}

export interface StoreThreads {
  dynalite: RunningDynalite;
  /** Counts every write the embedded DynamoDB admits (the caches rely on it). */
  tracker: WriteTracker;
  pglite: PgliteThread;
  /** The SQLite search index, when it is the engine (rebuilt in place when found damaged: repairing-index.ts). */
  sqlite: { index: RepairingSearchIndex; removeTemp(): Promise<void> } | null;
  /** The time budgets in force (options over the environment). */
  timeouts: Partial<SqlTimeouts>;
  close(): Promise<void>;
}

/** The engine asked for (option, then ASOF_SEARCH_ENGINE), or null: the default. */
function searchEngineAsked(option: SearchEngine | undefined): SearchEngine | null {
  const value = option ?? process.env.ASOF_SEARCH_ENGINE;
  if (value === undefined || value === '') return null;
  if (value === 'sqlite' || value === 'postgres') return value;
  throw new Error(`ASOF_SEARCH_ENGINE must be sqlite or postgres (got ${JSON.stringify(value)})`);
}

/** SQLite unless told otherwise; PostgreSQL (with a line on the log) where better-sqlite3 could not be installed. */
async function chooseSearchEngine(option: SearchEngine | undefined, log: (line: string) => void): Promise<SearchEngine> {
  const asked = searchEngineAsked(option);
  if (asked) return asked;
  if (await sqliteAvailable()) return 'sqlite';
  log('asof: better-sqlite3 is not installed (no prebuilt binary and no compiler?): searching with PostgreSQL on PGlite, slower at scale');
  return 'postgres';
}

/** The request budget from the environment, when it names a positive number of milliseconds. */
function requestTimeoutFromEnv(): Partial<SqlTimeouts> {
  const ms = Number(process.env.ASOF_SQL_REQUEST_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? { request: ms } : {};
}

/** dynalite on `<dataDir>/dynamodb` (made private by the caller first), or in memory. */
export async function openDynamo(dataDir: string | null, tracker?: WriteTracker): Promise<RunningDynalite> {
  if (dataDir === null) return startDynalite({ ...(tracker && { tracker }) });
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  try {
    return await startDynalite({ path, ...(tracker && { tracker }) });
  } catch (err) {
    throw new Error(`cannot open ${path}: is another asof process using this data dir? (${(err as Error).message})`, { cause: err });
  }
}

/** The SQLite search index of a data dir (its own folder), or of a temporary folder removed at close. */
async function openSqliteSearch(dataDir: string | null, timeouts: Partial<SqlTimeouts>, options: StoreThreadOptions) {
  const dir = dataDir === null ? await mkdtemp(join(tmpdir(), 'asof-search-')) : join(dataDir, 'search');
  await mkdir(dir, { recursive: true });
  const index = await RepairingSearchIndex.open(join(dir, 'search.sqlite'), {
    timeouts,
    ...(options.searchRepair && { repair: options.searchRepair }),
    ...(options.log && { log: options.log }),
  });
  const removeTemp = () => (dataDir === null ? rm(dir, { recursive: true, force: true }) : Promise.resolve());
  return { index, removeTemp };
}

/** Makes the data dir private, then opens its three stores side by side (in memory when `dataDir` is null). */
export async function startStoreThreads(dataDir: string | null, options: StoreThreadOptions = {}): Promise<StoreThreads> {
  const tracker = new WriteTracker();
  const engine = await chooseSearchEngine(options.searchEngine, options.log ?? (() => undefined));
  const timeouts = { ...requestTimeoutFromEnv(), ...options.sqlTimeouts };
  if (dataDir !== null) await makeDataDirPrivate(dataDir);
  const pgDir = dataDir === null ? undefined : join(dataDir, 'postgres');
  const opened = await Promise.allSettled([
    openDynamo(dataDir, tracker),
    openPgliteThread(pgDir, { ...(options.onSqlRestart && { onRestart: options.onSqlRestart }) }),
    engine === 'sqlite' ? openSqliteSearch(dataDir, timeouts, options) : Promise.resolve(null),
  ] as const);
  const [dynaliteOpened, pgliteOpened, sqliteOpened] = opened;
  if (dynaliteOpened.status === 'rejected' || pgliteOpened.status === 'rejected' || sqliteOpened.status === 'rejected') {
    // One failed: close what the others opened (a thread left running would keep the process alive), then fail.
    await Promise.allSettled([
      dynaliteOpened.status === 'fulfilled' && dynaliteOpened.value.close(),
      pgliteOpened.status === 'fulfilled' && pgliteOpened.value.close(),
      sqliteOpened.status === 'fulfilled' && sqliteOpened.value?.index.close().then(sqliteOpened.value.removeTemp),
    ]);
    throw opened.find((o) => o.status === 'rejected')!.reason;
  }
  const [dynalite, pglite, sqlite] = [dynaliteOpened.value, pgliteOpened.value, sqliteOpened.value];
  return {
    dynalite,
    tracker,
    pglite,
    sqlite,
    timeouts,
    async close() {
      await Promise.all([dynalite.close(), pglite.close(), sqlite?.index.close()]);
      await sqlite?.removeTemp();
    },
  };
}
