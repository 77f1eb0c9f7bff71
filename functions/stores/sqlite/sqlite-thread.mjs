// One SQLite connection (better-sqlite3) in a thread of its own (see sqlite-workers.ts). Plain JavaScript on purpose:
// a worker thread does not inherit the TypeScript loader of the process that starts it. It only runs the statements
// it is sent; every statement is written on the TypeScript side.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { buildImpactLists, searchTopK } from './impact-lists.mjs';

const { file, readonly, pragmas } = workerData;

/** What survives the trip back: enough for the caller to classify the failure. */
const failure = (err) => ({
  name: err?.name ?? 'Error',
  message: err?.message ?? String(err),
  code: typeof err?.code === 'string' ? err.code : undefined,
});

let db;
try {
  db = new Database(file, { readonly, fileMustExist: readonly });
  for (const pragma of pragmas) db.pragma(pragma);
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
