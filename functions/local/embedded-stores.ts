import { mkdir } from 'node:fs/promises';
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
import { makeDataDirPrivate } from './data-dir.ts';

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
  /** Stop the embedded DynamoDB while everything else runs (to test an outage under a live server). */
  stopDynamo(): Promise<void>;
  /** Close the embedded PostgreSQL while everything else runs. */
  stopSearch(): Promise<void>;
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

/** Opens (creating on first use) the stores of a data dir, or in memory when `dataDir` is null. */
export async function openEmbeddedStores(dataDir: string | null, options: EmbeddedStoreOptions = {}): Promise<EmbeddedStores> {
  const tracker = new WriteTracker();
  const dynalite = await openDynamo(dataDir, tracker);
  const doc = createDocumentClient(dynalite.access);
  await ensureTables(doc, LOCAL_TABLES);
  const pglite = await openPgliteThread(dataDir === null ? undefined : join(dataDir, 'postgres'), {
    ...(options.onSqlRestart && { onRestart: options.onSqlRestart }),
  });
  const timeouts = { ...requestTimeoutFromEnv(), ...options.sqlTimeouts };
  const sql = pgliteClient(pglite, { timeouts });
  await migrate(sql);
  // The replica's own client on the same instance, so that its failures are reported as caselaw_unavailable.
  const caselawSql = pgliteClient(pglite, { store: 'caselaw', timeouts });
  await migrateCaseLaw(caselawSql);
  // PGlite sets modes of its own (0666 on the files of a new cluster): make them private again now, and at close.
  const privateAgain = () => (dataDir === null ? Promise.resolve() : makeDataDirPrivate(dataDir));
  await privateAgain();
  const versions = new DynamoVersionStore(doc, LOCAL_TABLES.versions);
  const search = new PostgresSearchIndex(sql);
  const accounts = new DynamoAccountStore(doc, LOCAL_TABLES.accounts);
  const formats = new DynamoFormatStore(doc, LOCAL_TABLES.ops);
  const cache = options.cache ?? true;
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
    stopDynamo: () => dynalite.close(),
    stopSearch: () => {
      tracker.close(SEARCH_TABLE);
      return closePglite(pglite);
    },
    async close() {
      doc.destroy();
      await Promise.all([dynalite.close(), closePglite(pglite)]);
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
