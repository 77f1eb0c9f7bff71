// One SQLite connection (better-sqlite3) in a thread of its own (see sqlite-workers.ts). Plain JavaScript on purpose:
// a worker thread does not inherit the TypeScript loader of the process that starts it. It only runs the statements
// it is sent; every statement is written on the TypeScript side.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { buildImpactLists, searchTopK } from './impact-lists.mjs';

const { file, readonly, pragmas } = workerData;

/** The code of a reply refused because the file at the path is not the one opened (sqlite-workers.ts maps it). */
const FILE_GONE = 'ASOF_FILE_GONE';

/** What survives the trip back: enough for the caller to classify the failure. */
const failure = (err) => ({
  name: err?.name ?? 'Error',
  message: err?.message ?? String(err),
  code: typeof err?.code === 'string' ? err.code : undefined,
});

/**
 * The file this connection opened, to tell when it is no longer the one at its path: on Linux a connection to a file
 * removed (or replaced) under it goes on reading the old inode, and one truncated to nothing may answer from its cache.
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

const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};

/** For each parameter list, runs the statement(s) of `sql` in order; all in one transaction. */
const batch = (sql, rows) =>
  db.transaction(() => {
    const statements = (Array.isArray(sql) ? sql : [sql]).map(prepared);
    let changes = 0;
    for (const params of rows) for (const statement of statements) changes += statement.run(params).changes;
    return changes;
  })();

/** What a `call` may run: procedures of more than one statement, each a function of (db, prepared, sql, params). */
const procedures = { buildImpactLists, searchTopK };

/** A call's statements by number: each set comes once, with its number, and later calls name only the number. */
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
      const statements = sql ?? sqlSets.get(sqlSet);
      parentPort.postMessage({ id, result: procedures[procedure](db, prepared, statements, params) });
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
