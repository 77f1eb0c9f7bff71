import pg from 'pg';
import { StoreUnavailableError } from '#shared/errors.ts';
import type { PgliteLike } from './pglite.ts';

/** Which store a connection failure is reported against (the 503's `statutes_unavailable` / `caselaw_unavailable`). */
export type StoreName = ConstructorParameters<typeof StoreUnavailableError>[0];

/**
 * The little of a PostgreSQL connection the SQL adapters need, the same on PGlite and on a server.
 *
 * Every call is one round trip and, for writes, one statement: nothing holds a transaction open across an `await`,
 * so the same code is safe on a single-connection PGlite that request handlers share, and on a pool.
 */
export interface SqlClient {
  /** One statement, `$1…` parameters (extended protocol). */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
  /**
   * Several `;`-separated statements without parameters in one simple-protocol message. The server runs them as one
   * implicit transaction: all or nothing (used by migrations; never put BEGIN/COMMIT in `text`).
   */
  exec(text: string): Promise<void>;
  /** Releases what the client owns; later calls reject with StoreUnavailableError. */
  close(): Promise<void>;
}

export interface SqlClientOptions {
  /** The store named in StoreUnavailableError. Default `search`. */
  store?: StoreName;
  /** Whether `close()` also closes the PGlite instance / ends the pool. Default false: whoever opened it closes it. */
  owned?: boolean;
}

/** Node socket errors that mean "the server is not there (any more)". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * SQLSTATEs that say nothing about the statement and everything about the server: 08 connection exception,
 * 53 insufficient resources (too many connections, out of memory, disk full), 57P admin/crash shutdown or
 * "cannot connect now", 57014 query cancelled (statement_timeout).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|57014$)/;

/** Messages of `pg` and PGlite for a connection or instance that is gone, closing, or timed out. */
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|query read timeout|cannot use a pool after calling end|not queryable|pglite is clos(ed|ing)|pglite failed to initialize/i;

/** Does `err` mean the database could not be reached (as opposed to a bad statement or a constraint)? */
export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof StoreUnavailableError) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) fails with an AggregateError of socket errors.
  if (err instanceof AggregateError && err.errors.some(isConnectionFailure)) return true;
  // A trapped WASM instance (PGlite) cannot answer again.
  if (err.name === 'RuntimeError') return true;
  return UNAVAILABLE_MESSAGE.test(err.message);
}

/** A connection failure becomes StoreUnavailableError(store) (a 503); anything else is returned unchanged. */
export function toStoreError(err: unknown, store: StoreName): unknown {
  if (err instanceof StoreUnavailableError || !isConnectionFailure(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(store, `The ${store} database cannot be reached: ${reason}`, { cause: err });
}

/** Shared by both clients: refuse after close(), map connection failures. */
function guarded(store: StoreName, run: Omit<SqlClient, 'close'>, release: () => Promise<void>): SqlClient {
  let closed = false;
  const call = async <R>(fn: () => Promise<R>): Promise<R> => {
    if (closed) throw new StoreUnavailableError(store, `The ${store} database client is closed.`);
    try {
      return await fn();
    } catch (err) {
      throw toStoreError(err, store);
    }
  };
  return {
    query: (text, params) => call(() => run.query(text, params)),
    exec: (text) => call(() => run.exec(text)),
    close: async () => {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}

/** A client over one PGlite instance, in this thread or its own (its queries are queued one at a time by PGlite itself). */
export function pgliteClient(db: PgliteLike, options: SqlClientOptions = {}): SqlClient {
  const { store = 'search', owned = false } = options;
  return guarded(
    store,
    {
      query: async <T>(text: string, params?: readonly unknown[]) => {
        const result = await db.query<T>(text, params ? [...params] : undefined);
        return { rows: result.rows };
      },
      exec: async (text) => {
        await db.exec(text);
      },
    },
    async () => {
      if (owned && !db.closed) await db.close();
    },
  );
}

/** A client over a `pg` pool: each call checks out a connection for one round trip only. */
export function poolClient(pool: pg.Pool, options: SqlClientOptions = {}): SqlClient {
  const { store = 'search', owned = false } = options;
  // An idle connection that dies (server restart) is reported on the pool; unhandled, it would crash the process.
  // The pool discards it and the next call reconnects or fails with a mapped error.
  if (pool.listenerCount('error') === 0) pool.on('error', () => undefined);
  return guarded(
    store,
    {
      query: async <T>(text: string, params?: readonly unknown[]) => {
        const result = await pool.query(text, params ? [...params] : undefined);
        return { rows: result.rows as T[] };
      },
      // No parameters: pg sends a simple Query message, which may hold several statements.
      exec: async (text) => {
        await pool.query(text);
      },
    },
    async () => {
      if (owned) await pool.end();
    },
  );
}

export interface PostgresConnectOptions extends Omit<SqlClientOptions, 'owned'> {
  /** Default 10. */
  max?: number;
  /** Give up connecting after this long. Default 5 000 ms. */
  connectionTimeoutMillis?: number;
  /** Server-side statement_timeout. Default 10 000 ms. */
  statementTimeoutMillis?: number;
}

/** A pool on `connectionString` (e.g. DATABASE_URL) wrapped as an owned SqlClient: close() ends the pool. */
export function connectPostgres(connectionString: string, options: PostgresConnectOptions = {}): SqlClient {
  const { max = 10, connectionTimeoutMillis = 5_000, statementTimeoutMillis = 10_000, store } = options;
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis,
    statement_timeout: statementTimeoutMillis,
    idleTimeoutMillis: 30_000,
  });
  return poolClient(pool, { store, owned: true });
}
