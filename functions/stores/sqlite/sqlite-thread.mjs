// One SQLite connection (better-sqlite3) in a thread of its own (see sqlite-workers.ts). Plain JavaScript on purpose:
// a worker thread does not inherit the TypeScript loader of the process that starts it. It only runs the statements
// it is sent; every statement is written on the TypeScript side. Type-checked from its JSDoc (tsconfig.json, checkJs;
// why not TypeScript: docs/DECISIONS.md, "Typed worker modules").
// @ts-check
import { statSync } from 'node:fs';
import { parentPort as port, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { buildImpactLists, searchTopK } from './impact-lists.mjs';

/**
 * @import { Stats } from 'node:fs'
 * @import { BuildSql, SearchSql } from './impact-lists.mjs'
 * @import { Db, Prepared, Statement } from './postings.mjs'
 */
/**
 * Parameters of one statement: positional (`?`) or named (`@name`).
 * @typedef {readonly unknown[] | Readonly<Record<string, unknown>>} SqlParams
 */
/**
 * What the thread is sent (sqlite-workers.ts, outgoing), each with the id its reply carries: a call's statements come
 * with their number the first time (`sql` and `sqlSet`), by the number alone after.
 * @typedef {{ sql?: undefined; params?: undefined; rows?: undefined; procedure?: undefined; sqlSet?: undefined }} Unused
 * @typedef {{ id: number; kind: 'close' } & Unused} CloseMessage
 * @typedef {{ id: number; kind: 'all'; sql: string; params?: SqlParams } & Omit<Unused, 'sql' | 'params'>} AllMessage
 * @typedef {{ id: number; kind: 'batch'; sql: string | readonly string[]; rows: readonly SqlParams[] } & Omit<Unused, 'sql' | 'rows'>} BatchMessage
 * @typedef {{ id: number; kind: 'exec'; sql: string } & Omit<Unused, 'sql'>} ExecMessage
 * @typedef {{ id: number; kind: 'sleep'; params: { ms: number } } & Omit<Unused, 'params'>} SleepMessage
 * @typedef {Parameters<typeof buildImpactLists>} BuildArgs
 * @typedef {Parameters<typeof searchTopK>} SearchArgs
 * @typedef {{ id: number; kind: 'call'; procedure: 'buildImpactLists'; sql?: BuildArgs[2]; sqlSet?: number; params: BuildArgs[3]; rows?: undefined }} BuildCall
 * @typedef {{ id: number; kind: 'call'; procedure: 'searchTopK'; sql?: SearchArgs[2]; sqlSet?: number; params: SearchArgs[3]; rows?: undefined }} SearchCall
 * @typedef {CloseMessage | AllMessage | BatchMessage | ExecMessage | SleepMessage | BuildCall | SearchCall} Message
 */
/**
 * A failure as it survives the trip back: enough for the caller to classify it.
 * @typedef {{ name: string; message: string; code?: string | undefined }} Failure
 */
/**
 * What the thread answers: once `ready` (or not, with the error), then each message by its id.
 * @typedef {{ id?: number; ready?: boolean; rows?: unknown[]; changes?: number; result?: unknown; error?: Failure }} Reply
 */
/**
 * The port to the parent as this thread uses it (always there: this module runs only as a worker).
 * @typedef {object} Port
 * @property {(reply: Reply) => void} postMessage
 * @property {(event: 'message', listener: (message: Message) => void) => unknown} on
 * @property {() => void} close
 */
const parentPort = /** @type {Port} */ (port);

const { file, readonly, pragmas } = /** @type {{ file: string; readonly: boolean; pragmas: readonly string[] }} */ (workerData);

/** The code of a reply refused because the file at the path is not the one opened (sqlite-workers.ts maps it). */
const FILE_GONE = 'ASOF_FILE_GONE';

/** What survives the trip back: enough for the caller to classify the failure. @type {(err: any) => Failure} */
const failure = (err) => ({
  name: err?.name ?? 'Error',
  message: err?.message ?? String(err),
  code: typeof err?.code === 'string' ? err.code : undefined,
});

/**
 * The file this connection opened, to tell when it is no longer the one at its path: on Linux a connection to a file
 * removed (or replaced) under it goes on reading the old inode, and one truncated to nothing may answer from its cache.
 * @type {Stats}
 */
let opened;
let largest = 0;
const SQLITE_HEADER_BYTES = 100;
/** Why the file at the path is not the database this connection reads, or null while it is. */
const fileGone = () => {
  const now = statSync(file, { throwIfNoEntry: false });
  if (!now) return 'was removed';
  if (now.ino !== opened.ino || now.dev !== opened.dev) return 'was replaced';
  // A database file never shrinks below its header: a new one in WAL mode may be empty until its first checkpoint.
  if (largest >= SQLITE_HEADER_BYTES && now.size < SQLITE_HEADER_BYTES) return 'was truncated';
  largest = Math.max(largest, now.size);
  return null;
};

/** The connection: unset only if it failed to open, after which the parent sends nothing but `close`. @type {Db} */
let db;
try {
  db = new Database(file, { readonly, fileMustExist: readonly });
  for (const pragma of pragmas) db.pragma(pragma);
  opened = statSync(file);
  largest = opened.size;
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ ready: false, error: failure(err) });
}

/** @type {Map<string, Statement>} */
const statements = new Map();
/** @type {Prepared} */
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};

/**
 * For each parameter list, runs the statement(s) of `sql` in order; all in one transaction.
 * @type {(sql: string | readonly string[], rows: readonly SqlParams[]) => number}
 */
const batch = (sql, rows) =>
  db.transaction(() => {
    const statements = (Array.isArray(sql) ? sql : [sql]).map(prepared);
    let changes = 0;
    for (const params of rows) for (const statement of statements) changes += statement.run(params).changes;
    return changes;
  })();

/**
 * What a `call` may run: procedures of more than one statement, each a function of (db, prepared, sql, params). A
 * call's `sql` and `params` are checked against its procedure's by the message's type (BuildCall, SearchCall); a
 * lookup by name cannot carry that pairing, so the procedure found is called as one that takes what its message holds.
 */
const procedures = { buildImpactLists, searchTopK };
/** @typedef {(db: Db, prepared: Prepared, sql: unknown, params: unknown) => unknown} Procedure */

/**
 * A call's statements by number: each set comes once, with its number, and later calls name only the number.
 * @type {Map<number, BuildSql | SearchSql>}
 */
const sqlSets = new Map();

parentPort.on('message', ({ id, kind, sql, params, rows, procedure, sqlSet }) => {
  try {
    if (kind === 'close') {
      db?.close();
      parentPort.postMessage({ id });
      parentPort.close();
      return;
    }
    const gone = fileGone();
    if (gone) {
      parentPort.postMessage({ id, error: { name: 'SqliteError', message: `the database file ${gone}`, code: FILE_GONE } });
      return;
    }
    if (kind === 'all') parentPort.postMessage({ id, rows: prepared(sql).all(params ?? []) });
    else if (kind === 'batch') parentPort.postMessage({ id, changes: batch(sql, rows) });
    else if (kind === 'call') {
      if (sql !== undefined && sqlSet !== undefined) sqlSets.set(sqlSet, sql);
      const statements = sql ?? sqlSets.get(/** @type {number} */ (sqlSet));
      parentPort.postMessage({ id, result: /** @type {Procedure} */ (procedures[procedure])(db, prepared, statements, params) });
    } else if (kind === 'exec') {
      db.exec(sql);
      parentPort.postMessage({ id });
    } else if (kind === 'sleep') {
      // SQLite has no sleep(): this holds the thread as a long statement would (tests of the budgets, like pg_sleep).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, params.ms);
      parentPort.postMessage({ id, rows: [] });
    } else parentPort.postMessage({ id, error: { name: 'Error', message: `unknown kind ${kind}` } });
  } catch (err) {
    parentPort.postMessage({ id, error: failure(err) });
  }
});
