import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { probeCorpus } from '#ops/health.ts';
import { testLogger } from '../support/test-logger.ts';

const USLM = ['usc01@113-31.xml', 'usc01@117-80.xml'].map((f) => fileURLToPath(new URL(`../../data/sample/uslm/${f}`, import.meta.url)));

/** A server of its own (in memory, the US Code sample only) whose stores this file stops under it. */
let server: LocalServer;
let key: string;
let clock = new Date('2026-11-22T12:00:00Z');

const get = async (path: string, auth = true) => {
  const res = await fetch(`${server.url}${path}`, { headers: auth ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};
const advance = (minutes: number) => {
  clock = new Date(clock.getTime() + minutes * 60_000);
};

beforeAll(async () => {
  server = await serveLocal({ dataDir: null, port: 0, sample: false, schedules: false, now: () => clock, logger: testLogger() });
  await runIngest(server.stores, { kind: 'uslm', files: USLM });
  key = (await issueKey(server.stores.accounts, { name: 'outage' }, clock)).key;
});
afterAll(() => server.close());

describe('corpus health verdicts', () => {
  it('is unknown before any probe, healthy after one, and unknown again once the verdict is over fifteen minutes old', async () => {
    expect((await get('/health/corpus', false)).body).toMatchObject({ ok: false, status: 'unknown', reason: 'no_recent_probe' });
    await probeCorpus(server.stores, { force: true });
    advance(14);
    const fresh = await get('/health/corpus', false);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ ok: true, status: 'healthy', reason: 'ok', checkedSecondsAgo: 14 * 60 });
    advance(2);
    const old = await get('/health/corpus', false);
    expect(old.status).toBe(503);
    expect(old.body).toMatchObject({ ok: false, status: 'unknown', reason: 'no_recent_probe', checkedSecondsAgo: 16 * 60 });
  });

  it('probes at most every five minutes however often it is asked', async () => {
    const first = await probeCorpus(server.stores, { force: true });
    advance(4);
    expect((await probeCorpus(server.stores)).checkedAt).toBe(first.checkedAt);
    advance(1);
    expect((await probeCorpus(server.stores)).checkedAt).not.toBe(first.checkedAt);
  });
});

describe('with the SQLite stores stopped under the running server', () => {
  beforeAll(async () => {
    await probeCorpus(server.stores, { force: true });
    expect((await get('/law/lookup?jurisdiction=us&citation=1-1')).status).toBe(200);
    expect((await get('/law/coverage', false)).status).toBe(200);
    await server.stores.stopStores();
  });

  it('keeps liveness green', async () => {
    const r = await get('/health', false);
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
  });

  it('answers the data endpoints with 503 statutes_unavailable and Retry-After', async () => {
    for (const path of [
      '/law/lookup?jurisdiction=us&citation=1-1',
      '/law/text?jurisdiction=us&citation=1-1',
      '/law/search?q=congress',
      '/statutes/lookup?jurisdiction=us&citation=1-1',
      '/law/quality',
    ]) {
      const started = Date.now();
      const r = await get(path);
      expect(r.status, path).toBe(503);
      expect(r.body.error.code).toBe('statutes_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it('reports corpus health unhealthy', async () => {
    const r = await get('/health/corpus', false);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ ok: false, status: 'unhealthy', reason: 'store_unreachable' });
  });

  it('serves the last known coverage, marked stale', async () => {
    const r = await get('/law/coverage', false);
    expect(r.status).toBe(200);
    expect(r.body.coverage.length).toBeGreaterThan(0);
    expect(r.body.stale).toMatchObject({
      refreshFailures: expect.any(Number),
      lastError: expect.stringMatching(/unreachable|versions|ops/i),
    });
  });
});
