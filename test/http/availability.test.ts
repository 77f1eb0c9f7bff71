/**
 * One request must not take the API down for everyone (issue 15): a search's `q` is bounded, and a statement that
 * runs long is stopped at its budget while lookups, other searches, the case endpoints and the health probe go on
 * answering. A server of its own, on a data dir (so that PGlite can be restarted to stop a statement), with a short
 * request budget.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { runIngest } from '#ingest/jobs.ts';
import { QUERY_MAX_WORDS } from '#law/search.ts';
import { type LocalServer, loadCaseLawSampleIfNeeded, serveLocal } from '#local/local-runtime.ts';
import { probeCorpus } from '#ops/health.ts';
import { StoreUnavailableError } from '#shared/errors.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
const REQUEST_BUDGET_MS = 1_500;
const PROBE_BUDGET_MS = 8_000;
/** Generous: the machine may be shared and busy. */
const SLACK_MS = 5_000;
/** Time to answer when the answer does not wait for the embedded PostgreSQL at all. */
const PROMPT_MS = 3_000;
/** Time to answer behind a statement stopped at its budget: the budget, a restart of PGlite's thread, slack. */
const BEHIND_MS = REQUEST_BUDGET_MS + SLACK_MS;

let server: LocalServer;
let dataDir: string;
let key: string;

interface Timed {
  status: number;
  headers: Headers;
  body: any;
  ms: number;
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown, auth = true): Promise<Timed> {
  const start = performance.now();
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(auth && { authorization: `Bearer ${key}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const parsed = (await res.json()) as unknown;
  return { status: res.status, headers: res.headers, body: parsed, ms: performance.now() - start };
}
const get = (path: string, auth = true) => call('GET', path, undefined, auth);
const timed = async <T>(work: Promise<T>): Promise<{ value: T; ms: number }> => {
  const start = performance.now();
  const value = await work;
  return { value, ms: performance.now() - start };
};
const failure = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (err: unknown) => err,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each search a query of its own: a repeated one could be answered from the search cache without PGlite. */
let searches = 0;
const freshSearch = () =>
  `/law/search?q=${['congress', 'vessel', 'oath', 'statute', 'seal', 'officer', 'archivist', 'title'][searches % 8]}+${searches++}`;

/** A 503 as the spec asks it: the store's code, Retry-After, a message that says what happened. */
function expectUnavailable(r: Timed, code: 'statutes_unavailable' | 'caselaw_unavailable'): void {
  expect(r.status).toBe(503);
  expect(r.body.error.code).toBe(code);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** Answered within `ms`, either with the data or with a 503 of the store's code. */
function expectAnswered(r: Timed, ms: number, code: 'statutes_unavailable' | 'caselaw_unavailable'): void {
  expect(r.ms).toBeLessThan(ms);
  if (r.status !== 200) expectUnavailable(r, code);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asof-availability-'));
  server = await serveLocal({
    dataDir,
    port: 0,
    sample: false,
    schedules: false,
    sqlTimeouts: { request: REQUEST_BUDGET_MS, probe: PROBE_BUDGET_MS },
    // The 503s below are expected: their warnings would only bury the test output.
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  await runIngest(server.stores, { kind: 'uslm', files: [USLM] });
  await loadCaseLawSampleIfNeeded(server.stores, () => undefined);
  key = (
    await issueKey(
      server.stores.accounts,
      { name: 'availability', limits: { perMinute: 120, daily: 100_000, monthly: 1_000_000 } },
      new Date(),
    )
  ).key;
});
afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the limits on q', () => {
  it('refuses a search of 65,000 terms (a ~700 KB body, under the 1 MiB limit) with 400 query_too_long, at once', async () => {
    const q = Array.from({ length: 65_000 }, (_, i) => `w${i}`).join(' ');
    const bytes = Buffer.byteLength(JSON.stringify({ q }));
    expect(bytes).toBeGreaterThan(400_000);
    expect(bytes).toBeLessThan(1024 * 1024);

    const r = await call('POST', '/law/search', { q });

    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'query_too_long', field: 'q' });
    expect(r.body.error.message).toMatch(/at most 32 words and 1,000 characters/);
    expect(r.ms).toBeLessThan(PROMPT_MS);
    expect((await get(freshSearch())).status).toBe(200);
  });

  it(`answers ${QUERY_MAX_WORDS} words and refuses one more, by GET and by POST; an empty q is still missing_fields`, async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `congress${i}`).join(' ');

    expect((await get(`/law/search?q=${encodeURIComponent(words(QUERY_MAX_WORDS))}`)).status).toBe(200);
    const get33 = await get(`/law/search?q=${encodeURIComponent(words(QUERY_MAX_WORDS + 1))}`);
    const post33 = await call('POST', '/law/search', { q: words(QUERY_MAX_WORDS + 1) });
    const long = await call('POST', '/law/search', { q: 'x'.repeat(1_001) });
    const empty = await call('POST', '/law/search', { q: '  ' });

    expect(get33.body.error).toMatchObject({ code: 'query_too_long', message: expect.stringContaining('got 33 words') });
    expect(post33.body.error.code).toBe('query_too_long');
    expect(long.body.error).toMatchObject({ code: 'query_too_long', message: expect.stringContaining('got 1,001 characters') });
    expect(empty.body.error.code).toBe('missing_fields');
    expect([get33.status, post33.status, long.status, empty.status]).toEqual([400, 400, 400, 400]);
  });
});

describe('while a statement that runs long holds the embedded PostgreSQL', () => {
  it('stops it at its budget; lookups, a second search, a case, corpus health and the probe answer within a bound', async () => {
    const holding = timed(failure(server.stores.sql.query('SELECT pg_sleep(600)', [], { budget: 'request' })));
    await sleep(100);

    const [lookup, search, kase, health, probe] = await Promise.all([
      get('/law/lookup?jurisdiction=us&citation=1-1'),
      get(freshSearch()),
      get('/law/cases/111014'),
      get('/health/corpus', false),
      timed(probeCorpus(server.stores, { force: true })),
    ]);

    expect(lookup.status).toBe(200);
    expect(lookup.ms).toBeLessThan(PROMPT_MS);
    expect(health.ms).toBeLessThan(PROMPT_MS);
    expectAnswered(search, BEHIND_MS, 'statutes_unavailable');
    expectAnswered(kase, BEHIND_MS, 'caselaw_unavailable');
    // The probe goes ahead of the waiting statements and runs once the long one is stopped: the store is healthy.
    expect(probe.value).toMatchObject({ reachable: true, detail: 'ok' });
    expect(probe.ms).toBeLessThan(PROBE_BUDGET_MS);
    const held = await holding;
    expect(held.value).toBeInstanceOf(StoreUnavailableError);
    expect((held.value as StoreUnavailableError).reason).toBe('timeout');
    expect(held.ms).toBeLessThan(BEHIND_MS);

    expect((await get(freshSearch())).status).toBe(200);
    // The probe no longer waits for PGlite (it pings the search engine): wait here for its thread to be back.
    await server.stores.sql.query('SELECT 1', [], { budget: 'probe' });
    expect((await get('/law/cases/111014')).status).toBe(200);
    expect((await get('/health/corpus', false)).body).toMatchObject({ ok: true, status: 'healthy' });
  });

  it('answers a case waiting behind it 503 caselaw_unavailable with Retry-After at its budget; searches do not wait', async () => {
    // A job's statement (its budget is minutes): it ends by itself, so the case is the one that runs out of time.
    const holding = server.stores.sql.query('SELECT pg_sleep(4)');
    await sleep(100);

    const [search, kase] = await Promise.all([get(freshSearch()), get('/law/cases/111014')]);

    // Search is on its own engine (SQLite), not behind the case-law replica.
    expect(search.status).toBe(200);
    expect(search.ms).toBeLessThan(PROMPT_MS);
    expectUnavailable(kase, 'caselaw_unavailable');
    expect(kase.body.error.message).toMatch(/did not answer in time/);
    expect(kase.ms).toBeGreaterThanOrEqual(REQUEST_BUDGET_MS - 150);
    expect(kase.ms).toBeLessThan(BEHIND_MS);
    await holding;
    expect((await get('/law/cases/111014')).status).toBe(200);
  });

  it('many long statements at once: each one, the searches and cases behind them, lookups and the probe answer within a bound', async () => {
    const holds = Array.from({ length: 16 }, () =>
      timed(failure(server.stores.sql.query('SELECT pg_sleep(600)', [], { budget: 'request' }))),
    );
    await sleep(100);

    const [searchesBehind, cases, lookups, probe] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => get(freshSearch()))),
      Promise.all(Array.from({ length: 4 }, () => get('/law/cases/111014'))),
      Promise.all(['1-1', '1-2', '1-3', '1-4'].map((c) => get(`/law/lookup?jurisdiction=us&citation=${c}`))),
      timed(probeCorpus(server.stores, { force: true })),
    ]);

    for (const r of lookups) {
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(PROMPT_MS);
    }
    for (const r of searchesBehind) expectAnswered(r, BEHIND_MS, 'statutes_unavailable');
    for (const r of cases) expectAnswered(r, BEHIND_MS, 'caselaw_unavailable');
    expect(probe.value).toMatchObject({ reachable: true, detail: 'ok' });
    expect(probe.ms).toBeLessThan(PROBE_BUDGET_MS);
    for (const held of await Promise.all(holds)) {
      expect((held.value as StoreUnavailableError).reason).toBe('timeout');
      // Stopped at their budget, whether running or waiting: none waits for the one before it to run its course.
      expect(held.ms).toBeLessThan(BEHIND_MS);
    }

    expect((await get(freshSearch())).status).toBe(200);
    await server.stores.sql.query('SELECT 1', [], { budget: 'probe' });
    expect((await get('/law/cases/111014/cited-by')).status).toBe(200);
  });
});

/** A statement that keeps one of the search engine's reader threads busy for seconds (SQLite counting, no table). */
const COUNTING = (n: number) =>
  `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM (SELECT x FROM c LIMIT ${n})`;

describe('while statements that run long hold the search engine (SQLite)', () => {
  const engine = () => {
    const sqlite = server.stores.sqliteSearch;
    if (!sqlite) throw new Error('the server runs without the SQLite search engine');
    return sqlite.workers;
  };

  it('answers a search waiting behind them 503 statutes_unavailable with Retry-After at the search budget', async () => {
    // Job statements (their budget is minutes) on every reader: they end by themselves, so the search runs out of time.
    const holding = [1, 2].map(() => engine().sleep(4_000));
    await sleep(100);

    const [search, lookup, kase, health] = await Promise.all([
      get(freshSearch()),
      get('/law/lookup?jurisdiction=us&citation=1-1'),
      get('/law/cases/111014'),
      get('/health/corpus', false),
    ]);

    expectUnavailable(search, 'statutes_unavailable');
    expect(search.body.error.message).toMatch(/did not answer in time/);
    expect(search.ms).toBeGreaterThanOrEqual(REQUEST_BUDGET_MS - 150);
    expect(search.ms).toBeLessThan(BEHIND_MS);
    for (const r of [lookup, kase, health]) {
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(PROMPT_MS);
    }
    await Promise.all(holding);
    expect((await get(freshSearch())).status).toBe(200);
  });

  it('gives up a statement past its request budget and replaces its thread: searches, lookups and the probe go on', async () => {
    const restartsBefore = engine().restarts;
    const runaway = timed(failure(engine().all(COUNTING(200_000_000), [], 'request')));
    await sleep(100);

    const [searches, lookup, probe] = await Promise.all([
      Promise.all(Array.from({ length: 4 }, () => get(freshSearch()))),
      get('/law/lookup?jurisdiction=us&citation=1-2'),
      timed(probeCorpus(server.stores, { force: true })),
    ]);

    for (const r of searches) expectAnswered(r, BEHIND_MS, 'statutes_unavailable');
    expect(lookup.status).toBe(200);
    expect(probe.value).toMatchObject({ reachable: true, detail: 'ok' });
    const stopped = await runaway;
    expect(stopped.value).toBeInstanceOf(StoreUnavailableError);
    expect((stopped.value as StoreUnavailableError).reason).toBe('timeout');
    expect(stopped.ms).toBeLessThan(BEHIND_MS);
    expect(engine().restarts).toBe(restartsBefore + 1);
    expect((await get(freshSearch())).status).toBe(200);
  });
});
