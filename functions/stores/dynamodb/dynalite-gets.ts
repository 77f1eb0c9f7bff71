/**
 * dynalite reads each item (GetItem, BatchGetItem, the stored item a conditional write checks) with LevelDB's
 * asynchronous get: a trip to libuv's thread pool and back, and a promise, for a read that LevelDB answers from its
 * cache in microseconds. dynalite runs in a thread of its own (dynalite.ts), so a read may block that thread: where the
 * store has a synchronous get (classic-level, on disk), reads use it and answer on the next tick. In the embedded
 * DynamoDB's thread a GetItem took 76 µs of CPU before, 48 after (in process, 32 at a time, 2026-12-06). Anything the
 * synchronous read refuses (a store not open, a value it cannot decode) goes the asynchronous way, which answers it
 * as before.
 */
import { createRequire } from 'node:module';

type Callback = (err: Error | null, value?: unknown) => void;

interface MainDb {
  supports: { getSync?: boolean };
  getSync(key: string): unknown;
  get(key: string, cb?: Callback): unknown;
}

interface DynaliteDb {
  create(options: unknown): { db: MainDb };
  getsSynchronously?: true;
}

export function letDynaliteGetSynchronously(): void {
  const db = createRequire(createRequire(import.meta.url).resolve('dynalite'))('./db') as DynaliteDb;
  if (db.getsSynchronously) return;
  db.getsSynchronously = true;
  const create = db.create;
  db.create = (options: unknown) => {
    const store = create(options);
    const main = store.db;
    if (!main.supports.getSync) return store;
    const get = main.get;
    main.get = (key, cb) => {
      if (typeof cb !== 'function') return get.call(main, key);
      let value: unknown;
      try {
        value = main.getSync(key);
      } catch {
        return get.call(main, key, cb);
      }
      process.nextTick(cb, null, value);
      return undefined;
    };
    return store;
  };
}
