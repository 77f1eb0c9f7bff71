/**
 * The embedded stores with DynamoDB where AWS has it: the version, ops, format, account and meter stores are the
 * DynamoDB adapters on dynalite as it ships (functions/stores/dynamodb/dynalite.ts), beside the embedded search index
 * and case-law replica. For the tests that run the Lambda entries (they read their tables from the environment, as a
 * deployed function does) and the jobs they share with the local runtime.
 */

import { type EmbeddedStoreOptions, type EmbeddedStores, openEmbeddedStores } from '#local/embedded-stores.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import type { LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { startDynalite } from '#stores/dynamodb/dynalite.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';

/** The table names a deployed stage's tables would have, with a local prefix. */
export const LOCAL_TABLES = tableNames('asof');

export interface DynaliteStores extends EmbeddedStores {
  /** dynalite's address and the credentials to sign with (it accepts any). */
  dynamo: LocalDynamoAccess;
  /** Stop dynalite while everything else runs (an outage under a live server). */
  stopDynamo(): Promise<void>;
}

/** Fresh in-memory stores (nothing cached: DynamoDB tells no process of another's writes). */
export async function openDynaliteStores(options: Omit<EmbeddedStoreOptions, 'cache'> = {}): Promise<DynaliteStores> {
  const dynalite = await startDynalite();
  const doc = createDocumentClient(dynalite.access);
  let embedded: EmbeddedStores;
  try {
    await ensureTables(doc, LOCAL_TABLES);
    embedded = await openEmbeddedStores(null, { ...options, cache: false });
  } catch (err) {
    doc.destroy();
    await dynalite.close();
    throw err;
  }
  return {
    ...embedded,
    versions: new DynamoVersionStore(doc, LOCAL_TABLES.versions),
    ops: new DynamoOpsStore(doc, LOCAL_TABLES.ops),
    formats: new DynamoFormatStore(doc, LOCAL_TABLES.ops),
    accounts: new DynamoAccountStore(doc, LOCAL_TABLES.accounts),
    meters: new DynamoMeterStore(doc, LOCAL_TABLES.meters),
    dynamo: dynalite.access,
    stopDynamo: () => dynalite.close(),
    stopStores: () => dynalite.close(),
    async close() {
      doc.destroy();
      await dynalite.close();
      await embedded.close();
    },
  };
}
