/**
 * A damaged or missing search index is a store fault, repaired without a restart (issue 29, row 6): with the SQLite
 * index truncated to nothing, then removed, under a running server, a search answers 503 with Retry-After (the
 * `/search` page its HTML 503), the corpus health and `asof probe` say the index is damaged, and the index is rebuilt
 * from the version store in the background until searches answer again, while cheap lookups keep answering at once.
 * A server of its own, on a data dir; its rebuild waits a few seconds after the damage is seen, so that every answer
 * of the damaged state can be asked for before the index is whole again.
 */
import { mkdtemp, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { runIngest } from '#ingest/jobs.ts';
import { main } from '#local/cli.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { besideLookups, CHEAP_MAX_MS, CHEAP_P50_MS } from '../support/beside-lookups.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
/** The rebuild starts this long after the damage is seen (the default is at once). */
const REPAIR_DELAY_MS = 6_000;
/** Time for the rebuild of the sample's Title 1 on a shared, busy machine, on top of the delay. */
const REBUILD_MS = 30_000;

let server: LocalServer;
let dataDir: string;
let indexFile: string;
let key: string;
let cheapKey: string;
/** A cheap lookup this often keeps its key under the edge's 120 calls a minute. */
const CHEAP_EVERY_MS = 550;
const lines: string[] = [];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function get(path: string, auth = true): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, { headers: auth ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const page = async (path: string): Promise<Answer> => {
  const res = await fetch(`${server.url.replace(/\/v1$/, '')}${path}`);
  return { status: res.status, headers: res.headers, text: await res.text() };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Each search a query of its own (a word Title 1 holds, a limit of its own): a repeated one is answered from the search
 * cache without the index.
 */
let searches = 0;
const WORDS = ['congress', 'vessel', 'oath', 'statute', 'seal', 'officer', 'archivist', 'title'];
const freshSearch = () => {
  const n = searches++;
  return `q=${WORDS[n % WORDS.length]}&limit=${1 + (Math.floor(n / WORDS.length) % 50)}`;
};
const search = () => get(`/law/search?${freshSearch()}&jurisdiction=us`);

async function corpusHealth(): Promise<{ ok: boolean; status: string; reason: string }> {
  return JSON.parse((await get('/health/corpus', false)).text);
}

/** Polls `check` until it holds, for `ms` at most; its last value. */
async function until<T>(ms: number, read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (holds(value) || performance.now() > deadline) return value;
    await sleep(300);
  }
}

async function cli(args: string[]) {
  const out: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) }, process.cwd());
  return { code, out: out.join('\n') };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asof-damaged-index-'));
  indexFile = join(dataDir, 'search', 'search.sqlite');
  server = await serveLocal({
    dataDir,
    port: 0,
    sample: false,
    schedules: false,
    searchRepair: { delayMs: REPAIR_DELAY_MS, spacingMs: 0 },
    log: (line) => lines.push(line),
    // The 503s below are expected: their warnings would only bury the test output.
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  await runIngest(server.stores, { kind: 'uslm', files: [USLM] });
  // Two keys, each within the edge's 120 calls a minute: the test's own searches, and the cheap lookups beside them.
  const issue = async (name: string) =>
    (await issueKey(server.stores.accounts, { name, limits: { perMinute: 120, daily: 100_000, monthly: 1_000_000 } }, new Date())).key;
  key = await issue('damaged-index');
  cheapKey = await issue('damaged-index-cheap');
}, 120_000);
afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Everything the damaged state answers, then the repair: searches answer again, the health says so. */
async function damagedThenRepaired(): Promise<{ repairedInMs: number }> {
  const searched = await search();
  const damagedAt = performance.now();
  const probed = await cli(['probe', '--data-dir', dataDir]);
  const pageAnswer = await page(`/search?q=${WORDS[searches++ % WORDS.length]}&asOf=2023-0${1 + (searches % 9)}-01`);
  const health = await until(3_000, corpusHealth, (h) => !h.ok);

  expect(searched.status).toBe(503);
  expect(searched.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Number(searched.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(JSON.parse(searched.text).error).toMatchObject({
    code: 'statutes_unavailable',
    message: 'The law store is being repaired right now; try again shortly.',
  });
  expect(probed.out).toMatch(/corpus probe: NOT reachable \(search_damaged\)/);
  expect(pageAnswer.status).toBe(503);
  expect(pageAnswer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(Number(pageAnswer.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(pageAnswer.text).toMatch(/Search unavailable/);
  expect(health).toMatchObject({ ok: false, status: 'unhealthy', reason: 'search_damaged' });
  // Still inside the delay: every answer above was of the damaged state, not of a race with the rebuild.
  expect(performance.now() - damagedAt).toBeLessThan(REPAIR_DELAY_MS);

  const answered = await until(REPAIR_DELAY_MS + REBUILD_MS, search, (r) => r.status === 200);
  const repairedInMs = performance.now() - damagedAt;
  expect(answered.status).toBe(200);
  expect(JSON.parse(answered.text).results.length).toBeGreaterThan(0);
  const healthy = await until(5_000, corpusHealth, (h) => h.ok);
  expect(healthy).toMatchObject({ ok: true, status: 'healthy', reason: 'ok' });
  expect((await page(`/search?q=${WORDS[searches++ % WORDS.length]}&asOf=2023-0${1 + (searches % 9)}-01`)).status).toBe(200);
  return { repairedInMs };
}

describe('a damaged or missing search index under a running server', () => {
  it('truncated, then removed: 503 with Retry-After (HTML on the page), health and probe say so, rebuilt without a restart', async () => {
    const before = await search();
    expect(before.status).toBe(200);
    const repairsBefore = server.stores.sqliteSearch!.repairs;

    const { attack, p50, max, statuses } = await besideLookups(
      { url: server.url, key: cheapKey },
      async () => {
        await truncate(indexFile, 0);
        const truncated = await damagedThenRepaired();
        const inodeBefore = (await stat(indexFile)).ino;
        await rm(indexFile);
        const removed = await damagedThenRepaired();
        return { truncated, removed, inodeBefore };
      },
      { everyMs: CHEAP_EVERY_MS },
    );

    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(p50).toBeLessThan(CHEAP_P50_MS);
    expect(max).toBeLessThan(CHEAP_MAX_MS);
    // One rebuild for each damage, however many requests met it.
    expect(server.stores.sqliteSearch!.repairs).toBe(repairsBefore + 2);
    expect((await stat(indexFile)).size).toBeGreaterThan(0);
    expect(lines.join('\n')).toMatch(/search index is damaged or missing[\s\S]*search index rebuilt in \d+ ms/);
    console.log(
      `damaged index: repaired in ${Math.round(attack.truncated.repairedInMs)} / ${Math.round(attack.removed.repairedInMs)} ms ` +
        `(truncated / removed; ${REPAIR_DELAY_MS} ms of it the delay); cheap lookups p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
  }, 180_000);
});
