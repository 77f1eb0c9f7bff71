import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { StoreUnavailableError, type UnavailableReason } from '#shared/errors.ts';
import { PgliteThread } from './pglite-thread-client.ts';

/** Which store a connection failure is reported against (the 503's `statutes_unavailable` / `caselaw_unavailable`). */
export type StoreName = ConstructorParameters<typeof StoreUnavailableError>[0];

/**
 * The time a statement may take, by what it serves: `request` a read on a request's path (the caller is waiting),
 * `job` everything else (writes, ingest, ANALYZE, migrations, audits), `probe` the health probe's ping.
 */
export type StatementBudget = 'request' | 'job' | 'probe';

export interface QueryOptions {
  /** Default `job`: a statement that serves a request says so. */
  budget?: StatementBudget;
}

/**
 * The little of a PostgreSQL connection the SQL adapters need, the same on PGlite and on a server.
 *
 * Every call is one round trip and, for writes, one statement: nothing holds a transaction open across an `await`,
 * so the same code is safe on a single-connection PGlite that request handlers share, and on a pool.
 */
export interface SqlClient {
  /** One statement, `$1…` parameters (extended protocol). */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<{ rows: T[] }>;
  /**
   * Several `;`-separated statements without parameters in one simple-protocol message. The server runs them as one
   * implicit transaction: all or nothing (used by migrations; never put BEGIN/COMMIT in `text`).
   */
  exec(text: string, options?: QueryOptions): Promise<void>;
  /** Releases what the client owns; later calls reject with StoreUnavailableError. */
  close(): Promise<void>;
}

/** Milliseconds per budget, time spent waiting for the database included. */
export type SqlTimeouts = Record<StatementBudget, number>;

/**
 * A request's read gets 5 s (a search that ranks 300,000 versions takes 0.5–1 s on the benchmark machine); a job's
 * statement 10 minutes (one batch of an ingest, an ANALYZE, an index built by a migration on a large store); the
 * probe 10 s: it goes ahead of everything waiting, so it waits at most for the one statement in flight, which is
 * stopped within the request budget (plus the second or so a PGlite restart takes).
 */
export const DEFAULT_SQL_TIMEOUTS: SqlTimeouts = { request: 5_000, job: 10 * 60_000, probe: 10_000 };

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
 * 53 insufficient resources (too many connections, out of memory, disk full; PgliteThread's full queue), 57P
 * admin/crash shutdown or "cannot connect now", 57014 query cancelled (statement_timeout; PgliteThread's deadline).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|57014$)/;

/** Messages of `pg` and PGlite for a connection or instance that is gone, closing, or timed out. */
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|query read timeout|cannot use a pool after calling end|not queryable|pglite is clos(ed|ing)|pglite failed to initialize/i;

/** Why an unavailable store did not answer, for the 503's message. */
function reasonOf(err: Error): UnavailableReason {
  const code = (err as { code?: unknown }).code;
  if (code === '57014' || /query read timeout/i.test(err.message)) return 'timeout';
  if (code === '53000' || code === '53300') return 'busy';
  return 'unreachable';
}

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
  const reason = reasonOf(err as Error);
  const what = reason === 'unreachable' ? 'cannot be reached' : reason === 'timeout' ? 'did not answer in time' : 'is too busy';
  return new StoreUnavailableError(store, `The ${store} database ${what}: ${(err as Error).message}`, { cause: err, reason });
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
    query: (text, params, options) => call(() => run.query(text, params, options)),
    exec: (text, options) => call(() => run.exec(text, options)),
    close: async () => {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}

export interface PgliteClientOptions extends SqlClientOptions {
  /** Per budget, on a PgliteThread (default DEFAULT_SQL_TIMEOUTS). An in-process PGlite runs every statement to its end. */
  timeouts?: Partial<SqlTimeouts>;
}

/**
 * A client over one PGlite instance, in this thread or its own. In its own thread each statement has the deadline
 * of its budget and a probe goes ahead of waiting statements (see PgliteThread); in this thread a statement blocks
 * the event loop until it ends, so no deadline could be kept anyway.
 */
export function pgliteClient(db: PGlite | PgliteThread, options: PgliteClientOptions = {}): SqlClient {
  const { store = 'search', owned = false } = options;
  const timeouts = { ...DEFAULT_SQL_TIMEOUTS, ...options.timeouts };
  const statement = ({ budget = 'job' }: QueryOptions = {}) => ({
    timeoutMs: timeouts[budget],
    ...(budget === 'probe' && { priority: 'probe' as const }),
  });
  return guarded(
    store,
    {
      query: async <T>(text: string, params?: readonly unknown[], options?: QueryOptions) => {
        const values = params ? [...params] : undefined;
        const result = db instanceof PgliteThread ? await db.query<T>(text, values, statement(options)) : await db.query<T>(text, values);
        return { rows: result.rows };
      },
      exec: async (text, options) => {
        if (db instanceof PgliteThread) await db.exec(text, statement(options));
        else await db.exec(text);
      },
    },
    async () => {
      if (owned && !db.closed) await db.close();
    },
  );
}

/**
 * A client over a `pg` pool: each call checks out a connection for one round trip only. The budget is not the
 * client's: a server applies one statement_timeout to every statement of the pool's connections, chosen by whoever
 * opens the pool for the work of its process (request functions the request budget, jobs the job budget: see
 * connectPostgres and poolTimeouts).
 */
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

/** How long pg waits for an answer beyond the server's statement_timeout before it gives the connection up. */
const CLIENT_BACKSTOP_MS = 2_000;

/**
 * The pool settings that bound a statement: the server's statement_timeout (it cancels the statement: SQLSTATE
 * 57014), and pg's query_timeout a little later, for a server or network that does not answer at all.
 */
export const poolTimeouts = (statementTimeoutMillis: number) => ({
  statement_timeout: statementTimeoutMillis,
  query_timeout: statementTimeoutMillis + CLIENT_BACKSTOP_MS,
});

export interface PostgresConnectOptions extends Omit<SqlClientOptions, 'owned'> {
  /** Default 10. */
  max?: number;
  /** Give up connecting after this long. Default 5 000 ms. */
  connectionTimeoutMillis?: number;
  /** Server-side statement_timeout of every statement. Default 10 000 ms. */
  statementTimeoutMillis?: number;
}

/** A pool on `connectionString` (e.g. DATABASE_URL) wrapped as an owned SqlClient: close() ends the pool. */
export function connectPostgres(connectionString: string, options: PostgresConnectOptions = {}): SqlClient {
  const { max = 10, connectionTimeoutMillis = 5_000, statementTimeoutMillis = 10_000, store } = options;
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis,
    ...poolTimeouts(statementTimeoutMillis),
    idleTimeoutMillis: 30_000,
  });
  return poolClient(pool, { store, owned: true });
}
