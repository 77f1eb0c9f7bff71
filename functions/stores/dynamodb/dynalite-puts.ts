/**
 * dynalite's PutItem (and each put of a BatchWriteItem) reads the stored item before writing the new one, for what
 * only a condition, ReturnValues ALL_OLD, consumed capacity or a secondary index needs. An ingest writes its versions
 * as BatchWriteItems of plain puts, none of which asks for any of them: for those the read is skipped, and the
 * rest (the table's lookup, the item's validation, its key and its lock, the write) stays dynalite's own. Every
 * other put goes through dynalite's PutItem unchanged. Must run before dynalite's modules load: its BatchWriteItem
 * keeps the PutItem it found when it loaded.
 */
import { createRequire } from 'node:module';

type Callback = (err: Error | null, value?: unknown) => void;
type PutItem = (store: Store, data: PutData, cb: Callback) => void;

interface PutData {
  TableName: string;
  Item: Record<string, unknown>;
  _condition?: unknown;
  Expected?: unknown;
  ReturnValues?: string;
  ReturnConsumedCapacity?: string;
}

interface Table {
  LocalSecondaryIndexes?: unknown[];
  GlobalSecondaryIndexes?: unknown[];
}

interface Store {
  getTable(name: string, cb: (err: Error | null, table?: Table) => void): void;
  getItemDb(name: string): {
    lock(key: string, exec: (release: (cb: Callback) => Callback) => void): void;
    put(key: string, item: unknown, cb: Callback): void;
  };
}

interface Db {
  validateItem(item: unknown, table: Table): Error | null | undefined;
  createKey(item: unknown, table: Table): string;
}

const needsStoredItem = (data: PutData): boolean =>
  data._condition != null ||
  data.Expected != null ||
  data.ReturnValues === 'ALL_OLD' ||
  data.ReturnConsumedCapacity === 'TOTAL' ||
  data.ReturnConsumedCapacity === 'INDEXES';

const hasIndexes = (table: Table): boolean => Boolean(table.LocalSecondaryIndexes?.length || table.GlobalSecondaryIndexes?.length);

export function letDynalitePutWithoutReading(): void {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const path = fromDynalite.resolve('./actions/putItem');
  const original = fromDynalite(path) as PutItem & { withoutReading?: true };
  if (original.withoutReading) return;
  const db = fromDynalite('./db') as Db;
  const putItem: PutItem = (store, data, cb) => {
    if (needsStoredItem(data)) return original(store, data, cb);
    store.getTable(data.TableName, (err, table) => {
      if (err || !table) return cb(err);
      if (hasIndexes(table)) return original(store, data, cb);
      const invalid = db.validateItem(data.Item, table);
      if (invalid) return cb(invalid);
      const itemDb = store.getItemDb(data.TableName);
      const key = db.createKey(data.Item, table);
      itemDb.lock(key, (release) => {
        const done = release(cb);
        itemDb.put(key, data.Item, (putErr) => (putErr ? done(putErr) : done(null, {})));
      });
    });
  };
  const cached = fromDynalite.cache[path];
  if (!cached) throw new Error(`dynalite's PutItem (${path}) is not in the module cache`);
  cached.exports = Object.assign(putItem, { withoutReading: true as const });
}
