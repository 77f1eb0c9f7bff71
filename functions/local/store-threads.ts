import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { openPgliteThread, type PgliteThread, type PgliteThreadOptions } from '#stores/postgres/pglite-thread-client.ts';
import type { SqlTimeouts } from '#stores/postgres/sql-client.ts';
import { RepairingSearchIndex, type RepairOptions } from '#stores/sqlite/repairing-index.ts';
import { makeDataDirPrivate } from './data-dir.ts';

/**
 * The embedded stores' threads (PGlite, SQLite's search workers), started side by side. This module imports no
 * store adapter, no AWS SDK and no HTTP code (only the SQLite index, which opens here), so that `asof serve` can
 * start the threads first and load the rest of the server while they open (docs/DECISIONS.md "Local runtime",
 * start-up). The law, keys, meters and ops live in SQLite files opened on the main thread (embedded-stores.ts).
 */

export interface StoreThreadOptions {
  /**
   * The embedded PostgreSQL's time budgets (functions/stores/postgres/sql-client.ts; default DEFAULT_SQL_TIMEOUTS, the
   * request budget overridable with ASOF_SQL_REQUEST_TIMEOUT_MS). A statement past its budget answers 503 and, on a
   * data dir, is stopped by restarting PGlite's thread.
   */
  sqlTimeouts?: Partial<SqlTimeouts>;
  /** Told each time PGlite's thread was restarted to stop a statement past its budget (see PgliteThread). */
  onSqlRestart?: PgliteThreadOptions['onRestart'];
  /** The search index's repairs. */
  log?: (line: string) => void;
  /** When the SQLite index, found damaged or missing, is rebuilt (default: at once, at most every 10 s). */
  searchRepair?: RepairOptions;
}

export interface StoreThreads {
  /** Counts the search index's writes, all made through this process (the search cache relies on it). */
  tracker: WriteTracker;
  pglite: PgliteThread;
  /** The SQLite search index (rebuilt in place when found damaged: repairing-index.ts). */
  sqlite: { index: RepairingSearchIndex; removeTemp(): Promise<void> };
  /** The time budgets in force (options over the environment). */
  timeouts: Partial<SqlTimeouts>;
  close(): Promise<void>;
}

/** The request budget from the environment, when it names a positive number of milliseconds. */
function requestTimeoutFromEnv(): Partial<SqlTimeouts> {
  const ms = Number(process.env.ASOF_SQL_REQUEST_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? { request: ms } : {};
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

/** Makes the data dir private, then opens PGlite and the search index side by side (in memory when `dataDir` is null). */
export async function startStoreThreads(dataDir: string | null, options: StoreThreadOptions = {}): Promise<StoreThreads> {
  const tracker = new WriteTracker();
  const timeouts = { ...requestTimeoutFromEnv(), ...options.sqlTimeouts };
  if (dataDir !== null) await makeDataDirPrivate(dataDir);
  const pgDir = dataDir === null ? undefined : join(dataDir, 'postgres');
  const [pgliteOpened, sqliteOpened] = await Promise.allSettled([
    openPgliteThread(pgDir, { ...(options.onSqlRestart && { onRestart: options.onSqlRestart }) }),
    openSqliteSearch(dataDir, timeouts, options),
  ] as const);
  if (pgliteOpened.status === 'rejected' || sqliteOpened.status === 'rejected') {
    // One failed: close what the other opened (a thread left running would keep the process alive), then fail.
    await Promise.allSettled([
      pgliteOpened.status === 'fulfilled' && pgliteOpened.value.close(),
      sqliteOpened.status === 'fulfilled' && sqliteOpened.value.index.close().then(sqliteOpened.value.removeTemp),
    ]);
    throw pgliteOpened.status === 'rejected' ? pgliteOpened.reason : (sqliteOpened as PromiseRejectedResult).reason;
  }
  const [pglite, sqlite] = [pgliteOpened.value, sqliteOpened.value];
  return {
    tracker,
    pglite,
    sqlite,
    timeouts,
    async close() {
      await Promise.all([pglite.close(), sqlite.index.close()]);
      await sqlite.removeTemp();
    },
  };
}
