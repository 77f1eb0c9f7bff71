import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { PGLITE_SETTINGS, type PgliteLike } from './pglite-thread-client.ts';

/**
 * An in-process PostgreSQL (WASM): in memory when `dataDir` is undefined, else persisted in that directory.
 *
 * Start-up cost, paid once per process: ~3 s in memory and ~6 s for a new data directory (both run initdb), ~0.6 s to
 * reopen an existing one. So open one instance per process (tests: one per file) and share it; PGlite has a single
 * connection and queues queries, which is why every write of the SQL adapters is one statement.
 */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  return PGlite.create({ ...(dataDir !== undefined && { dataDir }), postgresqlconf: PGLITE_SETTINGS, extensions: { btree_gin } });
}

/** Closes the instance (flushing a data directory); calling it twice is harmless. */
export async function closePglite(db: PgliteLike): Promise<void> {
  if (!db.closed) await db.close();
}
