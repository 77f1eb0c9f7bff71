import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';

/**
 * An in-process PostgreSQL (WASM): in memory when `dataDir` is undefined, else persisted in that directory.
 *
 * Start-up cost, paid once per process: ~3 s in memory and ~6 s for a new data directory (both run initdb), ~0.6 s to
 * reopen an existing one. So open one instance per process (tests: one per file) and share it; PGlite has a single
 * connection and queues queries, which is why every write of the SQL adapters is one statement.
 */
/*
 * PostgreSQL's default 128 MB of shared buffers is allocated and touched at start: about 120 MB of resident memory
 * for a sample index of 2 MB. 32 MB holds the sample many times over; beyond it, reads come from the operating
 * system's file cache (measured in bench/RESULTS.md at 300,000 versions).
 */
export const PGLITE_SETTINGS = ['shared_buffers=32MB'];

export async function openPglite(dataDir?: string): Promise<PGlite> {
  return PGlite.create({ ...(dataDir !== undefined && { dataDir }), postgresqlconf: PGLITE_SETTINGS, extensions: { btree_gin } });
}

/** Closes the instance (flushing a data directory); calling it twice is harmless. */
export async function closePglite(db: PgliteLike): Promise<void> {
  if (!db.closed) await db.close();
}

/** The part of a PGlite instance the SQL client uses: a PGlite itself, or one running in a thread of its own. */
export interface PgliteLike {
  readonly closed: boolean;
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
  close(): Promise<void>;
}

interface ThreadReply {
  id?: number;
  ready?: boolean;
  rows?: unknown[];
  error?: { name: string; message: string; code?: string; detail?: string };
}

const revive = (e: NonNullable<ThreadReply['error']>): Error =>
  Object.assign(new Error(e.message), { name: e.name, code: e.code, detail: e.detail });

/**
 * PGlite in a worker thread: a long query (a search over hundreds of thousands of versions, a reindex) runs beside the
 * event loop that answers lookups instead of inside it. Costs one message each way per statement.
 */
export async function openPgliteThread(dataDir?: string): Promise<PgliteLike> {
  const worker = new Worker(new URL('./pglite-thread.mjs', import.meta.url), { workerData: { dataDir, settings: PGLITE_SETTINGS } });
  const pending = new Map<number, { resolve(reply: ThreadReply): void; reject(err: Error): void }>();
  let nextId = 0;
  let gone: Error | null = null;

  const ready = new Promise<void>((resolve, reject) => {
    const onFirst = (reply: ThreadReply) =>
      reply.ready ? resolve() : reject(revive(reply.error ?? { name: 'Error', message: 'PGlite failed to initialize' }));
    worker.once('message', onFirst);
    worker.once('error', reject);
  });
  await ready;
  worker.on('message', (reply: ThreadReply) => {
    if (reply.id === undefined) return;
    const call = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error) call?.reject(revive(reply.error));
    else call?.resolve(reply);
  });
  const fail = (reason: string) => {
    gone ??= new Error(`PGlite is closed (${reason})`);
    for (const call of pending.values()) call.reject(gone);
    pending.clear();
  };
  worker.on('error', (err) => fail(`its thread failed: ${err.message}`));
  worker.on('exit', (code) => fail(`its thread exited with code ${code}`));

  const send = (message: { kind: 'query' | 'exec' | 'close'; text?: string; params?: unknown[] }): Promise<ThreadReply> => {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  };

  return {
    get closed() {
      return gone !== null;
    },
    query: async <T>(text: string, params?: unknown[]) => ({
      rows: ((await send({ kind: 'query', text, ...(params && { params }) })).rows ?? []) as T[],
    }),
    exec: (text: string) => send({ kind: 'exec', text }),
    async close() {
      if (gone) return;
      await send({ kind: 'close' }).catch(() => undefined);
      fail('closed');
      await worker.terminate();
    },
  };
}
