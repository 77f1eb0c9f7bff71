/** One dynalite per test file, and fresh tables for every store a test builds: tests never see each other's items. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { ensureTables, type TableNames, tableNames } from '#stores/dynamodb/tables.ts';

export interface DynaliteTables {
  /** The document client on this file's dynalite (set once `beforeAll` has run). */
  readonly doc: DynamoDBDocumentClient;
  readonly endpoint: string;
  fresh(): Promise<TableNames>;
}

export function useDynaliteTables(prefix: string): DynaliteTables {
  let dynalite: RunningDynalite | undefined;
  let client: DynamoDBDocumentClient | undefined;
  let count = 0;
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = createDocumentClient({ endpoint: dynalite.endpoint });
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
    get endpoint() {
      if (!dynalite) throw new Error('useDynaliteTables: dynalite runs once beforeAll has run');
      return dynalite.endpoint;
    },
    async fresh() {
      const names = tableNames(`${prefix}-${++count}`);
      await ensureTables(this.doc, names);
      return names;
    },
  };
}
