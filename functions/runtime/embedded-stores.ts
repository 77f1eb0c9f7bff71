import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountStore } from '#accounts/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { OpsStore } from '#ops/ports.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { startDynalite, type RunningDynalite } from '#stores/dynamodb/dynalite.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { migrate } from '#stores/postgres/migrations.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { PostgresSearchIndex } from '#stores/postgres/search-index.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';

/** Local table names: the same tables the AWS stack creates, with a local prefix. */
export const LOCAL_TABLES = tableNames('asof');

/** The production adapters on embedded stores: the DynamoDB adapter on dynalite, the PostgreSQL adapter on PGlite. */
export interface EmbeddedStores {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  accounts: AccountStore;
  dynamoEndpoint: string;
  /** Stop the embedded DynamoDB while everything else runs (to test an outage under a live server). */
  stopDynamo(): Promise<void>;
  /** Close the embedded PostgreSQL while everything else runs. */
  stopSearch(): Promise<void>;
  close(): Promise<void>;
}

async function openDynamo(dataDir: string | null): Promise<RunningDynalite> {
  if (dataDir === null) return startDynalite();
  const path = join(dataDir, 'dynamodb');
  await mkdir(path, { recursive: true });
  try {
    return await startDynalite({ path });
  } catch (err) {
    throw new Error(`cannot open ${path}: is another asof process using this data dir? (${(err as Error).message})`, { cause: err });
  }
}

/** Opens (creating on first use) the stores of a data dir, or in memory when `dataDir` is null. */
export async function openEmbeddedStores(dataDir: string | null): Promise<EmbeddedStores> {
  const dynalite = await openDynamo(dataDir);
  const doc = createDocumentClient({ endpoint: dynalite.endpoint });
  await ensureTables(doc, LOCAL_TABLES);
  const pglite = await openPglite(dataDir === null ? undefined : join(dataDir, 'postgres'));
  const sql = pgliteClient(pglite);
  await migrate(sql);
  return {
    versions: new DynamoVersionStore(doc, LOCAL_TABLES.versions),
    search: new PostgresSearchIndex(sql),
    ops: new DynamoOpsStore(doc, LOCAL_TABLES.ops),
    accounts: new DynamoAccountStore(doc, LOCAL_TABLES.accounts),
    dynamoEndpoint: dynalite.endpoint,
    stopDynamo: () => dynalite.close(),
    stopSearch: () => closePglite(pglite),
    async close() {
      doc.destroy();
      await Promise.all([dynalite.close(), closePglite(pglite)]);
    },
  };
}

/**
 * Just the key store: through a running server's DynamoDB endpoint (so a key is usable at once), or on the data
 * dir directly when no server runs.
 */
export async function openEmbeddedAccountStore(dataDir: string, runningEndpoint?: string): Promise<{ store: AccountStore; close(): Promise<void> }> {
  const dynalite = runningEndpoint ? null : await openDynamo(dataDir);
  const doc = createDocumentClient({ endpoint: runningEndpoint ?? dynalite!.endpoint });
  await ensureTables(doc, LOCAL_TABLES);
  return {
    store: new DynamoAccountStore(doc, LOCAL_TABLES.accounts),
    async close() {
      doc.destroy();
      await dynalite?.close();
    },
  };
}
