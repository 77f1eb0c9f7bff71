/** The tables as plain data (the CDK stack builds the same tables from it), and local creation. */
import { CreateTableCommand, type CreateTableCommandInput, DescribeTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export type TableKind = 'versions' | 'accounts' | 'meters' | 'ops';
export type TableNames = Record<TableKind, string>;

export interface KeyAttribute {
  name: string;
  type: 'S' | 'N' | 'B';
}

export interface IndexSpec {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
}

export interface TableSpec {
  /** Table names are `${prefix}-${suffix}` (see tableNames). */
  suffix: TableKind;
  partitionKey: KeyAttribute;
  sortKey: KeyAttribute;
  globalSecondaryIndexes: IndexSpec[];
  /** Epoch-seconds attribute DynamoDB expires items by, or null. */
  timeToLiveAttribute: string | null;
}

const pk: KeyAttribute = { name: 'pk', type: 'S' };
const sk: KeyAttribute = { name: 'sk', type: 'S' };

export const TABLES: Record<TableKind, TableSpec> = {
  versions: { suffix: 'versions', partitionKey: pk, sortKey: sk, globalSecondaryIndexes: [], timeToLiveAttribute: null },
  // Lookup by key id goes through an id item in the same table (see account-store.ts), so no index is needed.
  accounts: { suffix: 'accounts', partitionKey: pk, sortKey: sk, globalSecondaryIndexes: [], timeToLiveAttribute: 'expiresAt' },
  // Per-key counters (one item per key and UTC month) and usage records (see meter-store.ts): the hottest writes
  // of the service, kept apart from the keys so that a key read never waits on them.
  meters: { suffix: 'meters', partitionKey: pk, sortKey: sk, globalSecondaryIndexes: [], timeToLiveAttribute: 'expiresAt' },
  ops: { suffix: 'ops', partitionKey: pk, sortKey: sk, globalSecondaryIndexes: [], timeToLiveAttribute: 'expiresAt' },
};

export const tableNames = (prefix: string): TableNames => ({
  versions: `${prefix}-${TABLES.versions.suffix}`,
  accounts: `${prefix}-${TABLES.accounts.suffix}`,
  meters: `${prefix}-${TABLES.meters.suffix}`,
  ops: `${prefix}-${TABLES.ops.suffix}`,
});

function createTableInput(spec: TableSpec, tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    spec.partitionKey,
    spec.sortKey,
    ...spec.globalSecondaryIndexes.flatMap((i) => (i.sortKey ? [i.partitionKey, i.sortKey] : [i.partitionKey])),
  ];
  const definitions = [...new Map(keyAttributes.map((a) => [a.name, a])).values()];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: definitions.map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: [
      { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: spec.sortKey.name, KeyType: 'RANGE' },
    ],
    ...(spec.globalSecondaryIndexes.length && {
      GlobalSecondaryIndexes: spec.globalSecondaryIndexes.map((i) => ({
        IndexName: i.indexName,
        KeySchema: [
          { AttributeName: i.partitionKey.name, KeyType: 'HASH' as const },
          ...(i.sortKey ? [{ AttributeName: i.sortKey.name, KeyType: 'RANGE' as const }] : []),
        ],
        Projection: { ProjectionType: 'ALL' as const },
      })),
    }),
  };
}

const errorName = (err: unknown): string => (err instanceof Error ? err.name : '');

async function tableStatus(client: DynamoDBDocumentClient, tableName: string): Promise<string | null> {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return out.Table?.TableStatus ?? null;
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return null;
    throw err;
  }
}

async function waitUntilActive(client: DynamoDBDocumentClient, tableName: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 1_000)) {
    if ((await tableStatus(client, tableName)) === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function ensureTable(client: DynamoDBDocumentClient, spec: TableSpec, tableName: string): Promise<void> {
  let created = false;
  const status = await tableStatus(client, tableName);
  if (status === 'ACTIVE') return;
  if (status === null) {
    try {
      await client.send(new CreateTableCommand(createTableInput(spec, tableName)));
      created = true;
    } catch (err) {
      if (errorName(err) !== 'ResourceInUseException') throw err; // another process created it first
    }
  }
  await waitUntilActive(client, tableName, 60_000);
  if (created && spec.timeToLiveAttribute) {
    try {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: spec.timeToLiveAttribute, Enabled: true },
        }),
      );
    } catch (err) {
      // dynalite has no TTL (UnknownOperationException): expired items stay; nothing relies on their removal.
      if (errorName(err) !== 'UnknownOperationException') throw err;
    }
  }
}

/** Creates the missing tables (on-demand billing) and waits until each is ACTIVE. Tables that exist are left alone. */
export async function ensureTables(client: DynamoDBDocumentClient, names: Partial<TableNames>): Promise<void> {
  await Promise.all(
    (Object.keys(names) as TableKind[]).map((kind) => {
      const tableName = names[kind];
      return tableName ? ensureTable(client, TABLES[kind], tableName) : Promise.resolve();
    }),
  );
}
