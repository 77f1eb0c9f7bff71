// The embedded PostgreSQL in a thread of its own (see pglite-thread-client.ts). Plain JavaScript on purpose: a worker
// thread does not inherit the TypeScript loader of the process that starts it. Type-checked from its JSDoc
// (tsconfig.json, checkJs).
// @ts-check
import { parentPort as port, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';

/**
 * What the thread is sent (pglite-thread-client.ts), each with the id its reply carries.
 * @typedef {{ id: number; kind: 'close'; text?: undefined; params?: undefined }
 *   | { id: number; kind: 'exec'; text: string; params?: undefined }
 *   | { id: number; kind: 'query'; text: string; params?: unknown[] }} Message
 */
/**
 * A failure as it survives the trip back: enough for the caller to classify it (name, SQLSTATE code, message).
 * @typedef {{ name: string; message: string; code?: string | undefined; detail?: string | undefined }} Failure
 */
/**
 * What the thread answers: once `ready` (or not, with the error), then each message by its id.
 * @typedef {{ id?: number; ready?: boolean; rows?: unknown[]; error?: Failure }} Reply
 */
/**
 * The port to the parent as this thread uses it (always there: this module runs only as a worker).
 * @typedef {object} Port
 * @property {(reply: Reply) => void} postMessage
 * @property {(event: 'message', listener: (message: Message) => Promise<void>) => unknown} on
 * @property {() => void} close
 */
const parentPort = /** @type {Port} */ (port);

const { dataDir, settings } = /** @type {{ dataDir?: string; settings: string[] }} */ (workerData);

/** What survives the trip back: enough for the caller to classify the failure (name, SQLSTATE code, message). @type {(err: any) => Failure} */
const failure = (err) => ({
  name: err?.name ?? 'Error',
  message: err?.message ?? String(err),
  code: typeof err?.code === 'string' ? err.code : undefined,
  detail: typeof err?.detail === 'string' ? err.detail : undefined,
});

/** The database: unset only if it failed to start, after which the parent sends nothing but `close`. @type {PGlite} */
let db;
try {
  // btree_gin, as openPglite loads it: a data dir from before the SQLite search index still holds the old PostgreSQL
  // search schema, whose index uses it.
  db = await PGlite.create({ ...(dataDir && { dataDir }), postgresqlconf: settings, extensions: { btree_gin } });
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ ready: false, error: failure(err) });
}

parentPort.on('message', async ({ id, kind, text, params }) => {
  try {
    if (kind === 'close') {
      if (!db.closed) await db.close();
      parentPort.postMessage({ id });
      parentPort.close();
      return;
    }
    if (kind === 'exec') {
      await db.exec(text);
      parentPort.postMessage({ id });
    } else {
      const result = await db.query(text, params);
      parentPort.postMessage({ id, rows: result.rows });
    }
  } catch (err) {
    parentPort.postMessage({ id, error: failure(err) });
  }
});
