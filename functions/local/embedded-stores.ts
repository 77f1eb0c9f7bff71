import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountStore, MeterStore } from '#accounts/ports.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { OpsStore } from '#ops/ports.ts';
import { CachingAccountStore } from '#stores/cache/account-store.ts';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { CachingFormatStore } from '#stores/cache/format-store.ts';
import { CachingSearchIndex } from '#stores/cache/search-index.ts';
import { CachingVersionStore } from '#stores/cache/version-store.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient, type LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { migrate } from '#stores/postgres/migrations.ts';
import { closePglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread, type PgliteThreadOptions } from '#stores/postgres/pglite-thread-client.ts';
import { PostgresSearchIndex } from '#stores/postgres/search-index.ts';
import { pgliteClient, type SqlClient, type SqlTimeouts } from '#stores/postgres/sql-client.ts';
import { SqliteSearchIndex, sqliteAvailable } from '#stores/sqlite/search-index.ts';
import { makeDataDirPrivate } from './data-dir.ts';
import { buildSearchIndex } from './search-build.ts';

/** Local table names: the same tables the AWS stack creates, with a local prefix. */
export const LOCAL_TABLES = tableNames('asof');
/** The name the search index's writes are tracked under. */
const SEARCH_TABLE = 'search_documents';

export interface EmbeddedStoreOptions {
  /**
   * Answer repeated reads from memory while the stores have not changed (default true). Exact: every write reaches
   * the embedded stores through this process, which sees it (functions/stores/cache/). Off, every request reads the
   * stores (the benchmark measures both).
   */
  cache?: boolean;
  /**
   * The embedded PostgreSQL's time budgets (functions/stores/postgres/sql-client.ts; default DEFAULT_SQL_TIMEOUTS, the
   * request budget overridable with ASOF_SQL_REQUEST_TIMEOUT_MS). A statement past its budget answers 503 and, on a
   * data dir, is stopped by restarting PGlite's thread.
   */
  sqlTimeouts?: Partial<SqlTimeouts>;
  /** Told each time PGlite's thread was restarted to stop a statement past its budget (see PgliteThread). */
  onSqlRestart?: PgliteThreadOptions['onRestart'];
  /**
   * The embedded search engine: `sqlite` (default; SQLite FTS5, docs/DECISIONS.md "Embedded search engine") or
   * `postgres` (full-text search on the PGlite that holds the case-law replica, the engine before issue 17). Default
   * from ASOF_SEARCH_ENGINE.
   */
  searchEngine?: SearchEngine;
  /** Progress of building the search index from the version store (a data dir that has none yet). */
  log?: (line: string) => void;
}

export type SearchEngine = 'sqlite' | 'postgres';

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

/** The production adapters on embedded stores: the DynamoDB adapter on dynalite, the PostgreSQL adapter on PGlite. */
export interface EmbeddedStores {
  versions: VersionStore;
  search: SearchIndex;
  /** The case-law replica, on the same embedded PostgreSQL as the search index (its own schema). */
  caselaw: CaseLawStore;
  ops: OpsStore;
  /** The validated filing-format records (in the ops table). */
  formats: FormatStore;
  accounts: AccountStore;
  /** Per-key counters and usage records (never cached: every charge is a conditional write). */
  meters: MeterStore;
  /** The embedded DynamoDB's address and the credentials it accepts (it refuses requests signed otherwise). */
  dynamo: LocalDynamoAccess;
  /** The embedded PostgreSQL itself (jobs and tests that work below the ports). */
  sql: SqlClient;
  /** The SQLite search index itself, when it is the engine (tests that work below the port). */
  sqliteSearch: SqliteSearchIndex | null;
  /** Stop the embedded DynamoDB while everything else runs (to test an outage under a live server). */
  stopDynamo(): Promise<void>;
  /** Close the search index's store while everything else runs. */
  stopSearch(): Promise<void>;
  /** Close the embedded PostgreSQL (the case-law replica) while everything else runs. */
  stopCaseLaw(): Promise<void>;
  close(): Promise<void>;
}

async function openDynamo(dataDir: string | null, tracker?: WriteTracker): Promise<RunningDynalite> {
  if (dataDir === null) return startDynalite({ ...(tracker && { tracker }) });
  await makeDataDirPrivate(dataDir);
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  try {
    return await startDynalite({ path, ...(tracker && { tracker }) });
  } catch (err) {
    throw new Error(`cannot open ${path}: is another asof process using this data dir? (${(err as Error).message})`, { cause: err });
  }
}

/** The SQLite search index of a data dir (its own folder), or of a temporary folder removed at close. */
async function openSqliteSearch(dataDir: string | null, timeouts: Partial<SqlTimeouts>) {
  const dir = dataDir === null ? await mkdtemp(join(tmpdir(), 'asof-search-')) : join(dataDir, 'search');
  await mkdir(dir, { recursive: true });
  const index = await SqliteSearchIndex.open(join(dir, 'search.sqlite'), { timeouts });
  const removeTemp = () => (dataDir === null ? rm(dir, { recursive: true, force: true }) : Promise.resolve());
  return { index, removeTemp };
}

/** Opens (creating on first use) the stores of a data dir, or in memory when `dataDir` is null. */
export async function openEmbeddedStores(dataDir: string | null, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStores> {
  const tracker = new WriteTracker();
  const engine = await chooseSearchEngine(options.searchEngine, options.log ?? (() => undefined));
  const timeouts = { ...requestTimeoutFromEnv(), ...options.sqlTimeouts };
  if (dataDir !== null) await makeDataDirPrivate(dataDir);
  // The three stores open side by side: PGlite's start (~0.6 s on a loaded data dir) is most of a start.
  const opened = await Promise.allSettled([
    openDynamo(dataDir, tracker),
    openPgliteThread(dataDir === null ? undefined : join(dataDir, 'postgres'), {
      ...(options.onSqlRestart && { onRestart: options.onSqlRestart }),
    }),
    engine === 'sqlite' ? openSqliteSearch(dataDir, timeouts) : Promise.resolve(null),
  ] as const);
  const [dynaliteOpened, pgliteOpened, sqliteOpened] = opened;
  if (dynaliteOpened.status === 'rejected' || pgliteOpened.status === 'rejected' || sqliteOpened.status === 'rejected') {
    // One failed: close what the others opened (a thread left running would keep the process alive), then fail.
    await Promise.allSettled([
      dynaliteOpened.status === 'fulfilled' && dynaliteOpened.value.close(),
      pgliteOpened.status === 'fulfilled' && closePglite(pgliteOpened.value),
      sqliteOpened.status === 'fulfilled' && sqliteOpened.value?.index.close().then(sqliteOpened.value.removeTemp),
    ]);
    throw opened.find((o) => o.status === 'rejected')!.reason;
  }
  const [dynalite, pglite, sqlite] = [dynaliteOpened.value, pgliteOpened.value, sqliteOpened.value];
  const doc = createDocumentClient(dynalite.access);
  const sql = pgliteClient(pglite, { timeouts });
  // The replica's own client on the same instance, so that its failures are reported as caselaw_unavailable.
  const caselawSql = pgliteClient(pglite, { store: 'caselaw', timeouts });
  await Promise.all([ensureTables(doc, LOCAL_TABLES), migrate(sql).then(() => migrateCaseLaw(caselawSql))]);
  // PGlite sets modes of its own (0666 on the files of a new cluster): make them private again now, and at close.
  const privateAgain = () => (dataDir === null ? Promise.resolve() : makeDataDirPrivate(dataDir));
  await privateAgain();
  const versions = new DynamoVersionStore(doc, LOCAL_TABLES.versions);
  const search = sqlite?.index ?? new PostgresSearchIndex(sql);
  if (sqlite && !(await sqlite.index.isBuilt())) {
    await buildSearchIndex(versions, sqlite.index, options.log ?? (() => undefined));
    await sqlite.index.markBuilt();
  }
  const accounts = new DynamoAccountStore(doc, LOCAL_TABLES.accounts);
  const formats = new DynamoFormatStore(doc, LOCAL_TABLES.ops);
  const cache = options.cache ?? true;
  const stopSearch = () => {
    tracker.close(SEARCH_TABLE);
    return sqlite ? sqlite.index.close() : closePglite(pglite);
  };
  return {
    versions: cache ? new CachingVersionStore(versions, { stamps: tracker, table: LOCAL_TABLES.versions }) : versions,
    search: cache ? new CachingSearchIndex(search, { tracker, table: SEARCH_TABLE }) : search,
    caselaw: new PostgresCaseLawStore(caselawSql),
    ops: new DynamoOpsStore(doc, LOCAL_TABLES.ops),
    formats: cache ? new CachingFormatStore(formats, { stamps: tracker, table: LOCAL_TABLES.ops }) : formats,
    accounts: cache ? new CachingAccountStore(accounts, { stamps: tracker, table: LOCAL_TABLES.accounts }) : accounts,
    meters: new DynamoMeterStore(doc, LOCAL_TABLES.meters),
    dynamo: dynalite.access,
    sql,
    sqliteSearch: sqlite?.index ?? null,
    stopDynamo: () => dynalite.close(),
    stopSearch,
    stopCaseLaw: () => (sqlite ? closePglite(pglite) : stopSearch()),
    async close() {
      doc.destroy();
      await Promise.all([dynalite.close(), closePglite(pglite), sqlite?.index.close()]);
      await sqlite?.removeTemp();
      await privateAgain();
    },
  };
}

/**
 * Just the key store and the meters: through a running server's DynamoDB (so a key is usable at once), or on the data
 * dir directly when no server runs.
 */
export async function openEmbeddedAccountStore(
  dataDir: string,
  running?: LocalDynamoAccess,
): Promise<{ store: AccountStore; meters: MeterStore; close(): Promise<void> }> {
  const dynalite = running ? null : await openDynamo(dataDir);
  const doc = createDocumentClient(running ?? dynalite!.access);
  await ensureTables(doc, LOCAL_TABLES);
  return {
    store: new DynamoAccountStore(doc, LOCAL_TABLES.accounts),
    meters: new DynamoMeterStore(doc, LOCAL_TABLES.meters),
    async close() {
      doc.destroy();
      await dynalite?.close();
    },
  };
}
