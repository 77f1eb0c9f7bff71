/**
 * Every statement has a time budget (functions/stores/postgres/sql-client.ts). On a server, statement_timeout enforces
 * it; on PGlite, whose statements nothing can interrupt, the thread client does (functions/stores/postgres/pglite.ts):
 * deadlines that count the wait, a probe ahead of the queue, a bounded queue, and a restart to stop a statement.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '#shared/errors.ts';
import { openPgliteThread, type PgliteThread, type PgliteThreadOptions } from '#stores/postgres/pglite-thread-client.ts';
import { connectPostgres, pgliteClient, type SqlClient, type SqlTimeouts } from '#stores/postgres/sql-client.ts';

const DATABASE_URL = process.env.DATABASE_URL;

/** Generous: the machine may be shared and busy. */
const SLACK_MS = 5_000;
const SHORT: Partial<SqlTimeouts> = { request: 500, probe: 3_000 };

const since = (start: number) => performance.now() - start;
const failure = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (err: unknown) => err,
  );

let dirs: string[] = [];
const dataDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'asof-budgets-'));
  dirs.push(dir);
  return join(dir, 'postgres');
};
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

/** A table with committed rows, to see what survives a stopped statement. */
async function seed(client: SqlClient): Promise<void> {
  await client.exec(`
    CREATE TABLE kept (id integer PRIMARY KEY, body text NOT NULL, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED);
    CREATE INDEX kept_tsv ON kept USING gin (tsv);
    INSERT INTO kept (id, body) SELECT g, 'section ' || g || ' of the court rules' FROM generate_series(1, 5000) g;
  `);
}

const keptRows = async (client: SqlClient) =>
  (
    await client.query<{ n: number; matched: number }>(
      `SELECT count(*)::int AS n, (SELECT count(*)::int FROM kept WHERE tsv @@ to_tsquery('english', 'court')) AS matched FROM kept`,
    )
  ).rows[0];

function expectTimeout(err: unknown, store = 'search'): void {
  expect(err).toBeInstanceOf(StoreUnavailableError);
  expect((err as StoreUnavailableError).reason).toBe('timeout');
  expect((err as StoreUnavailableError).store).toBe(store);
  expect((err as Error).message).toMatch(/did not answer in time/);
}

describe('a statement past its budget answers as a store that did not answer in time', () => {
  const adapters: Array<[string, () => Promise<{ client: SqlClient; done(): Promise<void> }>]> = [
    [
      'PGlite in its own thread, on a data dir',
      async () => {
        const db = await openPgliteThread(await dataDir());
        return { client: pgliteClient(db, { timeouts: SHORT }), done: () => db.close() };
      },
    ],
    [
      'PGlite in its own thread, in memory',
      async () => {
        const db = await openPgliteThread();
        return { client: pgliteClient(db, { timeouts: SHORT }), done: () => db.close() };
      },
    ],
  ];
  if (DATABASE_URL) {
    adapters.push([
      'PostgreSQL server (statement_timeout)',
      async () => {
        const client = connectPostgres(DATABASE_URL, { statementTimeoutMillis: 500, max: 2 });
        return { client, done: () => client.close() };
      },
    ]);
  }

  for (const [name, open] of adapters) {
    it(name, async () => {
      const { client, done } = await open();
      try {
        const start = performance.now();
        const err = await failure(client.query('SELECT pg_sleep(2)', [], { budget: 'request' }));

        expectTimeout(err);
        expect(since(start)).toBeGreaterThanOrEqual(490);
        expect(since(start)).toBeLessThan(500 + SLACK_MS);
        expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await done();
      }
    });
  }
});

describe('PGlite in its own thread, on a data dir', () => {
  let db: PgliteThread;
  let client: SqlClient;
  const told: { restarts: number; reopenMs: number }[] = [];
  beforeAll(async () => {
    db = await openPgliteThread(await dataDir(), { onRestart: (restart) => told.push(restart) });
    client = pgliteClient(db, { timeouts: { ...SHORT, job: 3_000 } });
    await seed(client);
  });
  afterAll(() => db.close());

  it('stops a read past its deadline by restarting the thread, and keeps every committed row', async () => {
    const before = db.restarts;

    const err = await failure(client.query('SELECT count(*) FROM generate_series(1, 500000000)', [], { budget: 'request' }));

    expectTimeout(err);
    expect(db.restarts).toBe(before + 1);
    expect(await keptRows(client)).toEqual({ n: 5000, matched: 5000 });
    expect(told.at(-1)).toEqual({ restarts: before + 1, reopenMs: expect.any(Number) });
    expect(told.at(-1)!.reopenMs).toBeGreaterThan(0);
  });

  it('rolls back a write stopped at its deadline: the data dir is recovered as PostgreSQL recovers from a crash', async () => {
    const before = db.restarts;

    const err = await failure(
      client.query(`INSERT INTO kept (id, body) SELECT g, 'court ' || md5(g::text) FROM generate_series(5001, 50000000) g`),
    );

    expectTimeout(err);
    expect(db.restarts).toBe(before + 1);
    expect(await keptRows(client)).toEqual({ n: 5000, matched: 5000 });
    await client.query(`INSERT INTO kept (id, body) VALUES (5001, 'a court written after the recovery')`);
    expect(await keptRows(client)).toEqual({ n: 5001, matched: 5001 });
    await client.query('DELETE FROM kept WHERE id = 5001');
  });

  it('drops a statement whose deadline passes while it waits: it never runs, and nothing is restarted', async () => {
    const before = db.restarts;
    const holding = client.query('SELECT pg_sleep(1.2)');
    const start = performance.now();

    const err = await failure(client.query(`INSERT INTO kept (id, body) VALUES (9999, 'too late')`, [], { budget: 'request' }));

    expectTimeout(err);
    expect(since(start)).toBeLessThan(1_200);
    await holding;
    expect(db.restarts).toBe(before);
    expect((await client.query('SELECT 1 FROM kept WHERE id = 9999')).rows).toEqual([]);
  });

  it('answers "too busy", without running it, a statement that waited past half its budget: no restart for it', async () => {
    // Prepare: the thread held for three quarters of the request budget (500 ms), a request statement behind it
    const before = db.restarts;
    const holding = client.query('SELECT pg_sleep(0.375)');
    const start = performance.now();

    // Act
    const err = await failure(client.query(`INSERT INTO kept (id, body) VALUES (9998, 'started too late')`, [], { budget: 'request' }));

    // Assess: answered when its turn came (after the holding statement, before its own deadline), never run
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).reason).toBe('busy');
    expect((err as Error).message).toMatch(/is too busy: the statement waited \d+ ms for the database, more than half its time budget/);
    expect(since(start)).toBeGreaterThanOrEqual(250);
    await holding;
    expect(db.restarts).toBe(before);
    expect((await client.query('SELECT 1 FROM kept WHERE id = 9998')).rows).toEqual([]);
  });

  it('starts a statement that waited less than half its budget', async () => {
    // A budget far above the hold, so that a loaded machine cannot stretch the wait past half of it.
    const patient = pgliteClient(db, { timeouts: { ...SHORT, request: 20_000 } });
    const holding = patient.query('SELECT pg_sleep(0.1)');

    const answered = await patient.query<{ one: number }>('SELECT 1 AS one', [], { budget: 'request' });

    expect(answered.rows).toEqual([{ one: 1 }]);
    await holding;
  });

  it('runs a probe before the statements waiting, so the health verdict is taken within a bound', async () => {
    const order: string[] = [];
    const run = (label: string, budget: 'job' | 'probe', sql = 'SELECT 1') =>
      client.query(sql, [], { budget }).then(() => order.push(label));
    const holding = run('holding', 'job', 'SELECT pg_sleep(0.5)');
    const users = [run('user 1', 'job'), run('user 2', 'job'), run('user 3', 'job')];

    await run('probe', 'probe');
    await Promise.all([holding, ...users]);

    expect(order).toEqual(['holding', 'probe', 'user 1', 'user 2', 'user 3']);
  });

  it('closes within its grace whatever runs, and the data dir reopens with its committed rows', async () => {
    const dir = await dataDir();
    const own = await openPgliteThread(dir, { closeGraceMs: 500 });
    const ownClient = pgliteClient(own);
    await seed(ownClient);
    const running = failure(ownClient.query('SELECT pg_sleep(60)'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const start = performance.now();

    await own.close();

    expect(since(start)).toBeLessThan(500 + SLACK_MS);
    expect(await running).toBeInstanceOf(StoreUnavailableError);
    const reopened = await openPgliteThread(dir);
    try {
      expect(await keptRows(pgliteClient(reopened))).toEqual({ n: 5000, matched: 5000 });
    } finally {
      await reopened.close();
    }
  });
});

describe('PGlite in its own thread: the queue', () => {
  const open = async (options: PgliteThreadOptions = {}) => {
    const db = await openPgliteThread(undefined, options);
    return { db, client: pgliteClient(db, { timeouts: SHORT }) };
  };

  it('refuses at once beyond its bound, as a store too busy to answer; a probe is still admitted', async () => {
    const { db, client } = await open({ maxWaiting: 3 });
    try {
      const holding = client.query('SELECT pg_sleep(0.5)');
      const waiting = [1, 2, 3].map(() => client.query('SELECT 1'));
      const start = performance.now();

      const err = await failure(client.query('SELECT 1'));

      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('busy');
      expect(since(start)).toBeLessThan(200);
      await expect(client.query('SELECT 1', [], { budget: 'probe' })).resolves.toEqual({ rows: [{ '?column?': 1 }] });
      await Promise.all([holding, ...waiting]);
    } finally {
      await db.close();
    }
  });

  it('in memory, answers a statement at its deadline but lets it finish: a restart would lose the data', async () => {
    const { db, client } = await open();
    try {
      await seed(client);
      const start = performance.now();

      const err = await failure(client.query('SELECT pg_sleep(1.5)', [], { budget: 'request' }));

      expectTimeout(err);
      expect(since(start)).toBeLessThan(1_500);
      expect(db.restarts).toBe(0);
      expect(await keptRows(client)).toEqual({ n: 5000, matched: 5000 });
    } finally {
      await db.close();
    }
  });
});
