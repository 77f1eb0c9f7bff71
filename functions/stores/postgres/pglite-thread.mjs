// The embedded PostgreSQL in a thread of its own (see pglite-thread-client.ts). Plain JavaScript on purpose: a worker
// thread does not inherit the TypeScript loader of the process that starts it.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';

const { dataDir, settings } = workerData;

/** What survives the trip back: enough for the caller to classify the failure (name, SQLSTATE code, message). */
const failure = (err) => ({
  name: err?.name ?? 'Error',
  message: err?.message ?? String(err),
  code: typeof err?.code === 'string' ? err.code : undefined,
  detail: typeof err?.detail === 'string' ? err.detail : undefined,
});

let db;
try {
  // The extensions the migrations use (functions/stores/postgres/migrations.ts), as openPglite loads them.
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
