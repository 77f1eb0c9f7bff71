import type { AccountStore, MeterStore } from '#accounts/ports.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { OpsStore } from '#ops/ports.ts';
import { CachingAccountStore } from '#stores/cache/account-store.ts';
import { CachingFormatStore } from '#stores/cache/format-store.ts';
import { CachingSearchIndex } from '#stores/cache/search-index.ts';
import { CachingVersionStore } from '#stores/cache/version-store.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient, type LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { createDirectDocumentClient } from '#stores/dynamodb/direct-document-client.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { migrate } from '#stores/postgres/migrations.ts';
import { PostgresSearchIndex } from '#stores/postgres/search-index.ts';
import { pgliteClient, type SqlClient } from '#stores/postgres/sql-client.ts';
import type { RepairingSearchIndex } from '#stores/sqlite/repairing-index.ts';
import { makeDataDirPrivate } from './data-dir.ts';
import { buildSearchIndex } from './search-build.ts';
import { openDynamo, type StoreThreadOptions, type StoreThreads, startStoreThreads } from './store-threads.ts';

/** Local table names: the same tables the AWS stack creates, with a local prefix. */
export const LOCAL_TABLES = tableNames('asof');
/** The name the search index's writes are tracked under. */
const SEARCH_TABLE = 'search_documents';

export interface EmbeddedStoreOptions extends StoreThreadOptions {
  /**
   * Answer repeated reads from memory while the stores have not changed (default true). Exact: every write reaches
   * the embedded stores through this process, which sees it (functions/stores/cache/). Off, every request reads the
   * stores (the benchmark measures both).
   */
  cache?: boolean;
  /** The stores' threads, already starting (`asof serve` starts them before loading the rest of the server). */
  threads?: Promise<StoreThreads>;
  /** Progress of building the search index from the version store (a data dir that has none yet). */
  log?: (line: string) => void;
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
  /** The SQLite search index itself, when it is the engine (tests that work below the port; its repairs). */
  sqliteSearch: RepairingSearchIndex | null;
  /** Stop the embedded DynamoDB while everything else runs (to test an outage under a live server). */
  stopDynamo(): Promise<void>;
  /** Close the search index's store while everything else runs. */
  stopSearch(): Promise<void>;
  /** Close the embedded PostgreSQL (the case-law replica) while everything else runs. */
  stopCaseLaw(): Promise<void>;
  close(): Promise<void>;
}

/** Opens (creating on first use) the stores of a data dir, or in memory when `dataDir` is null. */
export async function openEmbeddedStores(dataDir: string | null, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStores> {
  const threads = await (options.threads ?? startStoreThreads(dataDir, options));
  const { dynalite, tracker, pglite, sqlite, timeouts } = threads;
  const doc = createDirectDocumentClient({ ...dynalite.access, direct: dynalite.direct });
  const sql = pgliteClient(pglite, { timeouts });
  // The replica's own client on the same instance, so that its failures are reported as caselaw_unavailable.
  const caselawSql = pgliteClient(pglite, { store: 'caselaw', timeouts });
  const [, , indexBuilt] = await Promise.all([
    ensureTables(doc, LOCAL_TABLES),
    migrate(sql).then(() => migrateCaseLaw(caselawSql)),
    sqlite?.index.isBuilt() ?? true,
  ]);
  // PGlite sets modes of its own (0666 on the files of a new cluster, and on those it writes at each start): make them
  // private again now, and at close.
  const privateAgain = () => (dataDir === null ? Promise.resolve() : makeDataDirPrivate(dataDir));
  await privateAgain();
  const versions = new DynamoVersionStore(doc, LOCAL_TABLES.versions);
  const search = sqlite?.index ?? new PostgresSearchIndex(sql);
  if (sqlite && !indexBuilt) {
    await buildSearchIndex(versions, sqlite.index, options.log ?? (() => undefined));
    await sqlite.index.markBuilt();
  }
  // A damaged or missing index is rebuilt from the version store as at a first start; the cache forgets its answers.
  sqlite?.index.rebuildWith((fresh) =>
    tracker.around(SEARCH_TABLE, () => buildSearchIndex(versions, fresh, options.log ?? (() => undefined))),
  );
  const accounts = new DynamoAccountStore(doc, LOCAL_TABLES.accounts);
  const formats = new DynamoFormatStore(doc, LOCAL_TABLES.ops);
  const cache = options.cache ?? true;
  const stopSearch = () => {
    tracker.close(SEARCH_TABLE);
    return sqlite ? sqlite.index.close() : pglite.close();
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
    stopCaseLaw: () => (sqlite ? pglite.close() : stopSearch()),
    async close() {
      doc.destroy();
      await threads.close();
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
  if (!running) await makeDataDirPrivate(dataDir);
  const dynalite = running ? null : await openDynamo(dataDir);
  const doc = running ? createDocumentClient(running) : createDirectDocumentClient({ ...dynalite!.access, direct: dynalite!.direct });
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
