import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountStore, MeterStore } from '#accounts/ports.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { OpsStore } from '#ops/ports.ts';
import { CachingAccountStore } from '#stores/cache/account-store.ts';
import { CachingFormatStore } from '#stores/cache/format-store.ts';
import { CachingSearchIndex } from '#stores/cache/search-index.ts';
import { CachingVersionStore } from '#stores/cache/version-store.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { pgliteClient, type SqlClient } from '#stores/postgres/sql-client.ts';
import { ACCOUNT_SCHEMA, importDynamoItems as importAccounts, SqliteAccountStore } from '#stores/sqlite/account-store.ts';
import { WalCheckpointer } from '#stores/sqlite/checkpointer.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import {
  FORMAT_STORE_SCHEMA,
  importDynamoItems as importFormats,
  isRebuiltDynamoItem as rebuiltFormatItem,
  SqliteFormatStore,
} from '#stores/sqlite/format-store.ts';
import { importDynamoItems as importMeters, METER_SCHEMA, SqliteMeterStore } from '#stores/sqlite/meter-store.ts';
import { importDynamoItems as importOps, OPS_SCHEMA, SqliteOpsStore } from '#stores/sqlite/ops-store.ts';
import type { RepairingSearchIndex } from '#stores/sqlite/repairing-index.ts';
import { importDynamoItems as importVersions, SqliteVersionStore, VERSION_STORE_SCHEMA } from '#stores/sqlite/version-store.ts';
import { makeDataDirPrivate } from './data-dir.ts';
import { buildSearchIndex } from './search-build.ts';
import { holdsOldLayout, STORE_DIR } from './store-layout.ts';
import { type StoreThreadOptions, type StoreThreads, startStoreThreads } from './store-threads.ts';
import type { ItemImporter } from './upgrade-data-dir.ts';

/** The name the search index's writes are tracked under. */
const SEARCH_TABLE = 'search_documents';

export interface EmbeddedStoreOptions extends StoreThreadOptions {
  /**
   * Answer repeated reads from memory while the stores have not changed (default true). Exact: the SQLite stores say
   * when any process committed to them (`PRAGMA data_version`), and the search index is written only through this
   * process (functions/stores/cache/). Off, every request reads the stores (the benchmark measures both).
   */
  cache?: boolean;
  /** The stores' threads, already starting (`asof serve` starts them before loading the rest of the server). */
  threads?: Promise<StoreThreads>;
  /** Progress of an upgrade and of building the search index from the version store (a data dir that has none yet). */
  log?: (line: string) => void;
}

/** The embedded stores: the SQLite adapters, the SQLite search index, the PostgreSQL case-law adapter on PGlite. */
export interface EmbeddedStores {
  versions: VersionStore;
  search: SearchIndex;
  /** The case-law replica, on the embedded PostgreSQL. */
  caselaw: CaseLawStore;
  ops: OpsStore;
  /** The validated filing-format records (beside the law). */
  formats: FormatStore;
  accounts: AccountStore;
  /** Per-key counters and usage records (never cached: every charge is one conditional write). */
  meters: MeterStore;
  /** The SQLite files themselves: the law (versions, histories, editions, format records) and the accounts (keys, meters, ops). */
  databases: LocalDatabases;
  /** The embedded PostgreSQL itself (jobs and tests that work below the ports). */
  sql: SqlClient;
  /** The SQLite search index itself (tests that work below the port; its repairs). */
  sqliteSearch: RepairingSearchIndex;
  /** Close both SQLite files (law, accounts) while the search index and PGlite run (an outage under a live server). */
  stopStores(): Promise<void>;
  /** Close the search index's store while everything else runs. */
  stopSearch(): Promise<void>;
  /** Close the embedded PostgreSQL (the case-law replica) while everything else runs. */
  stopCaseLaw(): Promise<void>;
  close(): Promise<void>;
}

/** The two SQLite files of a data dir, each opened by every process that uses it (WAL: readers never wait). */
export interface LocalDatabases {
  law: SqliteDatabase;
  accounts: SqliteDatabase;
  close(): void;
}

const LAW_FILE = 'law.sqlite';
const ACCOUNTS_FILE = 'accounts.sqlite';

/** Opens (creating on first use) the two files in `dir`. */
function openDatabasesIn(dir: string): LocalDatabases {
  const law = SqliteDatabase.open(join(dir, LAW_FILE), {
    store: 'versions',
    label: 'law',
    schemas: [VERSION_STORE_SCHEMA, FORMAT_STORE_SCHEMA],
  });
  let accounts: SqliteDatabase;
  try {
    accounts = SqliteDatabase.open(join(dir, ACCOUNTS_FILE), {
      store: 'accounts',
      label: 'accounts and ops',
      schemas: [ACCOUNT_SCHEMA, METER_SCHEMA, OPS_SCHEMA],
    });
  } catch (err) {
    law.close();
    throw err;
  }
  return {
    law,
    accounts,
    close() {
      law.close();
      accounts.close();
    },
  };
}

/** What takes each old table's items in an upgrade (upgrade-data-dir.ts). */
const importersOn = (dbs: LocalDatabases): ItemImporter[] => [
  { name: 'versions', db: dbs.law, tables: ['versions'], importItems: importVersions },
  { name: 'formats', db: dbs.law, tables: ['ops'], importItems: importFormats, rebuilt: rebuiltFormatItem },
  { name: 'accounts', db: dbs.accounts, tables: ['accounts'], importItems: importAccounts },
  { name: 'meters', db: dbs.accounts, tables: ['meters'], importItems: importMeters },
  { name: 'ops', db: dbs.accounts, tables: ['ops'], importItems: importOps },
];

/**
 * The SQLite files of a data dir (made private first; upgraded from the old layout at the first open of this release),
 * or of a temporary folder removed at close when `dataDir` is null.
 */
export async function openLocalDatabases(dataDir: string | null, log: (line: string) => void = () => undefined): Promise<LocalDatabases> {
  if (dataDir === null) {
    const dir = await mkdtemp(join(tmpdir(), 'asof-store-'));
    const dbs = openDatabasesIn(dir);
    return {
      ...dbs,
      close() {
        dbs.close();
        void rm(dir, { recursive: true, force: true });
      },
    };
  }
  await makeDataDirPrivate(dataDir);
  // Only a data dir of the old layout loads the upgrade (dynalite and the DynamoDB client): nothing else of DynamoDB
  // is ever in an `asof` process.
  if (holdsOldLayout(dataDir)) {
    const { upgradeDataDir } = await import('./upgrade-data-dir.ts');
    await upgradeDataDir(
      dataDir,
      (dir) => {
        const dbs = openDatabasesIn(dir);
        return { importers: importersOn(dbs), close: () => dbs.close() };
      },
      log,
    );
  }
  const dir = join(dataDir, STORE_DIR);
  await mkdir(dir, { recursive: true });
  return openDatabasesIn(dir);
}

/** Opens (creating on first use) the stores of a data dir, or in memory when `dataDir` is null. */
export async function openEmbeddedStores(dataDir: string | null, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStores> {
  const log = options.log ?? (() => undefined);
  const threads = await (options.threads ?? startStoreThreads(dataDir, options));
  let dbs: LocalDatabases;
  try {
    dbs = await openLocalDatabases(dataDir, log);
  } catch (err) {
    await threads.close();
    throw err;
  }
  // The WAL checkpoints of both files in a thread of their own, off the requests' commits (checkpointer.ts).
  let checkpoints: WalCheckpointer;
  try {
    checkpoints = await WalCheckpointer.start([dbs.law, dbs.accounts]);
  } catch (err) {
    dbs.close();
    await threads.close();
    throw err;
  }
  const closeDatabases = async () => {
    await checkpoints.close();
    dbs.close();
  };
  const { tracker, pglite, sqlite, timeouts } = threads;
  // The replica's own client, so that its failures are reported as caselaw_unavailable.
  const caselawSql = pgliteClient(pglite, { store: 'caselaw', timeouts });
  const sql = pgliteClient(pglite, { timeouts });
  const [, indexBuilt] = await Promise.all([migrateCaseLaw(caselawSql), sqlite.index.isBuilt()]);
  // PGlite sets modes of its own (0666 on the files of a new cluster, and on those it writes at each start): make them
  // private again now, and at close.
  const privateAgain = () => (dataDir === null ? Promise.resolve() : makeDataDirPrivate(dataDir));
  await privateAgain();
  const versions = new SqliteVersionStore(dbs.law);
  if (!indexBuilt) {
    await buildSearchIndex(versions, sqlite.index, log);
    await sqlite.index.markBuilt();
  }
  // A damaged or missing index is rebuilt from the version store as at a first start; the cache forgets its answers.
  sqlite.index.rebuildWith((fresh) => tracker.around(SEARCH_TABLE, () => buildSearchIndex(versions, fresh, log)));
  const accounts = new SqliteAccountStore(dbs.accounts);
  const formats = new SqliteFormatStore(dbs.law);
  const cache = options.cache ?? true;
  const stopSearch = () => {
    tracker.close(SEARCH_TABLE);
    return sqlite.index.close();
  };
  return {
    versions: cache ? new CachingVersionStore(versions, { stamps: dbs.law, table: LAW_FILE }) : versions,
    search: cache ? new CachingSearchIndex(sqlite.index, { tracker, table: SEARCH_TABLE }) : sqlite.index,
    caselaw: new PostgresCaseLawStore(caselawSql),
    ops: new SqliteOpsStore(dbs.accounts),
    formats: cache ? new CachingFormatStore(formats, { stamps: dbs.law, table: LAW_FILE }) : formats,
    accounts: cache ? new CachingAccountStore(accounts, { stamps: dbs.accounts, table: ACCOUNTS_FILE }) : accounts,
    meters: new SqliteMeterStore(dbs.accounts),
    databases: dbs,
    sql,
    sqliteSearch: sqlite.index,
    stopStores: closeDatabases,
    stopSearch,
    stopCaseLaw: () => pglite.close(),
    async close() {
      await closeDatabases();
      await threads.close();
      await privateAgain();
    },
  };
}

/**
 * Just the key store and the meters of a data dir, opened directly (whether or not a server runs on it: WAL lets both
 * use the file, and the server sees a new or revoked key at its next request).
 */
export async function openEmbeddedAccountStore(
  dataDir: string,
  log?: (line: string) => void,
): Promise<{ store: AccountStore; meters: MeterStore; close(): Promise<void> }> {
  const dbs = await openLocalDatabases(dataDir, log);
  return {
    store: new SqliteAccountStore(dbs.accounts),
    meters: new SqliteMeterStore(dbs.accounts),
    async close() {
      dbs.close();
    },
  };
}
