/** One dynalite per test file, and fresh tables for every store a test builds: tests never see each other's items. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { createDocumentClient, type LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { ensureTables, type TableNames, tableNames } from '#stores/dynamodb/tables.ts';

export interface DynaliteTables {
  /** The document client on this file's dynalite (set once `beforeAll` has run). */
  readonly doc: DynamoDBDocumentClient;
  /** Its address and credentials. */
  readonly access: LocalDynamoAccess;
  fresh(): Promise<TableNames>;
}

/** dynalite as it ships (functions/stores/dynamodb/dynalite.ts), reached over HTTP as DynamoDB is. */
export function useDynaliteTables(prefix: string): DynaliteTables {
  let dynalite: RunningDynalite | undefined;
  let client: DynamoDBDocumentClient | undefined;
  let count = 0;
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = createDocumentClient(dynalite.access);
  });
  afterAll(async () => {
    client?.destroy();
    await dynalite?.close();
  });
  return {
    get doc() {
      if (!client) throw new Error('useDynaliteTables: the client exists once beforeAll has run');
      return client;
    },
    get access() {
      if (!dynalite) throw new Error('useDynaliteTables: dynalite runs once beforeAll has run');
      return dynalite.access;
    },
    async fresh() {
      const names = tableNames(`${prefix}-${++count}`);
      await ensureTables(this.doc, names);
      return names;
    },
  };
}
