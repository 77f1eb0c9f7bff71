/**
 * dynalite reads a Query's items through a Node stream over a LevelDB iterator that it wraps in `lazy` streams again
 * (take-while, join): each item crosses three layers of events, and the streams' garbage kept the collector's threads
 * busy. For a lookup (one Query of `Limit: 1`) that was about two thirds of the embedded DynamoDB's time for the call.
 * A Query of the table itself (no index) is read here straight from the iterator, a batch at a time (`nextv`), and
 * answered exactly as dynalite's queryTable answers it: the items taken while under the Limit and the 1 MB page, then
 * the filter, LastEvaluatedKey, the projection, Count and consumed capacity. It reads no further than the Limit
 * (dynalite reads one item more and drops it: for a lookup, `Limit: 1`, the version before, texts and all). Index
 * queries stay dynalite's own (no table of asof's has an index).
 */
import { createRequire } from 'node:module';

type Item = Record<string, unknown>;
type Callback = (err: Error | null, value?: unknown) => void;

interface RangeOptions {
  reverse?: boolean;
  limit?: number;
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
}

interface QueryData {
  TableName: string;
  IndexName?: string;
  Limit?: number;
  Select?: string;
  ConsistentRead?: boolean;
  ReturnConsumedCapacity?: string;
  QueryFilter?: unknown;
  ScanFilter?: unknown;
  ConditionalOperator?: string;
  AttributesToGet?: string[];
  _filter?: { expression: unknown };
  _projection?: { paths: unknown };
}

interface Table {
  KeySchema: { AttributeName: string }[];
}

interface ValueIterator {
  nextv(size: number): Promise<Item[]>;
  close(): Promise<void>;
}

interface Store {
  db: { values(options: RangeOptions): ValueIterator };
}

type QueryTable = (
  store: Store,
  table: Table,
  data: QueryData,
  opts: RangeOptions,
  isLocal: boolean,
  fetchFromItemDb: boolean,
  startKeyNames: string[],
  cb: Callback,
) => void;

interface Db {
  queryTable: QueryTable & { withoutStreams?: true };
  itemSize(item: Item, compress?: boolean, addMetaSize?: boolean, rangeKey?: string): number;
  matchesExprFilter(item: Item, expression: unknown): boolean;
  matchesFilter(item: Item, filter: unknown, conditionalOperator?: string): boolean;
  mapPaths(paths: unknown, item: Item): Item;
}

/** dynalite's page size: a Query stops taking items once they reach it. */
const PAGE_BYTES = 1024 * 1024;
/** Items read from LevelDB at a time when the Limit does not bound the read. */
const BATCH = 100;

/** The range of a table's items as dynalite's item database gives it (createPrefixedDbWrapper's createValueStream). */
function itemRange(tableName: string, options: RangeOptions): RangeOptions {
  const prefix = `item-${tableName}~`;
  const range = { ...options };
  if (range.gte) range.gte = prefix + range.gte;
  else if (range.gt) range.gt = prefix + range.gt;
  else range.gte = prefix;
  if (range.lte) range.lte = prefix + range.lte;
  else if (range.lt) range.lt = prefix + range.lt;
  else range.lt = `${prefix}\xFF`;
  return range;
}

interface Taken {
  items: Item[];
  count: number;
  size: number;
  capacity: number;
}

async function take(db: Db, iterator: ValueIterator, data: QueryData, rangeKey: string | undefined, withCapacity: boolean): Promise<Taken> {
  const taken: Taken = { items: [], count: 0, size: 0, capacity: 0 };
  // `count >= undefined` is false: without a Limit only the page size stops the read, as in dynalite.
  const full = () => taken.count >= (data.Limit as number) || taken.size >= PAGE_BYTES;
  try {
    while (!full()) {
      const batch = await iterator.nextv(data.Limit ? Math.min(data.Limit - taken.count, BATCH) : BATCH);
      if (batch.length === 0) break;
      for (const item of batch) {
        if (full()) break;
        if (withCapacity) taken.capacity += db.itemSize(item);
        taken.count++;
        taken.size += db.itemSize(item, true, true, rangeKey);
        taken.items.push(item);
      }
    }
  } finally {
    await iterator.close();
  }
  return taken;
}

function answer(db: Db, data: QueryData, startKeyNames: string[], taken: Taken, withCapacity: boolean): Item {
  const { count, size, capacity } = taken;
  let items = taken.items;
  const lastItem = items.at(-1);
  const queryFilter = data.QueryFilter ?? data.ScanFilter;
  if (data._filter) {
    const { expression } = data._filter;
    items = items.filter((item) => db.matchesExprFilter(item, expression));
  } else if (queryFilter) items = items.filter((item) => db.matchesFilter(item, queryFilter, data.ConditionalOperator));
  const result: Item = { ScannedCount: count };
  // No more than the Limit was read (dynalite reads one more, and drops it here).
  if (count >= (data.Limit as number) || size >= PAGE_BYTES) {
    if (lastItem) result.LastEvaluatedKey = Object.fromEntries(startKeyNames.map((name) => [name, lastItem[name]]));
  }
  const paths = data._projection ? data._projection.paths : data.AttributesToGet;
  if (paths) items = items.map((item) => db.mapPaths(paths, item));
  result.Count = items.length;
  if (data.Select !== 'COUNT') result.Items = items;
  if (withCapacity) {
    const units = Math.ceil(capacity / 1024 / 4) * (data.ConsistentRead ? 1 : 0.5);
    result.ConsumedCapacity = {
      CapacityUnits: units,
      TableName: data.TableName,
      ...(data.ReturnConsumedCapacity === 'INDEXES' && { Table: { CapacityUnits: units } }),
    };
  }
  return result;
}

export function letDynaliteQueryWithoutStreams(): void {
  const db = createRequire(createRequire(import.meta.url).resolve('dynalite'))('./db') as Db;
  if (db.queryTable.withoutStreams) return;
  const queryTable = db.queryTable;
  const withoutStreams: QueryTable = (store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb) => {
    if (data.IndexName) return queryTable(store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb);
    const rangeKey = table.KeySchema[1]?.AttributeName;
    const withCapacity = data.ReturnConsumedCapacity === 'TOTAL' || data.ReturnConsumedCapacity === 'INDEXES';
    let iterator: ValueIterator;
    try {
      iterator = store.db.values(itemRange(data.TableName, opts));
    } catch (err) {
      return cb(err as Error);
    }
    take(db, iterator, data, rangeKey, withCapacity)
      .then((taken) => answer(db, data, startKeyNames, taken, withCapacity))
      // Answered outside the promise, as dynalite's own callbacks are: an error thrown by what answers is not a rejection.
      .then(
        (result) => process.nextTick(cb, null, result),
        (err: Error) => process.nextTick(cb, err),
      );
  };
  db.queryTable = Object.assign(withoutStreams, { withoutStreams: true as const });
}
