/**
 * `asof fetch uscode` against a local fake of the publisher (real sockets, the repo's real title zips in OLRC's
 * layout) and the real embedded stores: only the zips asked for are requested, a second run requests none and writes
 * nothing, a cut download resumes (or restarts where Range is not honoured), a corrupt zip, a 404, a 503 or an
 * unreachable publisher are refused with nothing of that title ingested, and the versions name the zip and the
 * release point they were read from.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FetchUscodeDeps, type FetchUscodeRequest, fetchUscode } from '#ingest/olrc/fetch-uscode.ts';
import { ingestedMarker } from '#ingest/olrc/ingest-title.ts';
import { main } from '#local/cli.ts';
import { type LocalStores, localJobs, openLocalStores } from '#local/local-runtime.ts';
import { type FakeOlrc, startFakeOlrc, zipPath } from '../support/fake-olrc.ts';

let fake: FakeOlrc;
let stores: LocalStores;
let deps: FetchUscodeDeps;
let cacheDir: string;
const temps: string[] = [];

const tempDir = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `asof-${name}-`));
  temps.push(dir);
  return dir;
};

beforeAll(async () => {
  fake = await startFakeOlrc();
  stores = await openLocalStores({ dataDir: null });
  const jobs = localJobs(stores);
  deps = {
    fetch: (url, init) => fetch(url, init),
    ingest: async (request, log) => (await jobs.ingest(request, log, { afterwards: false })).reports,
    afterIngest: (log) => jobs.afterIngest(log),
    markers: stores.ops,
    now: stores.now,
    timeouts: { responseMs: 5_000, stallMs: 5_000 },
    attempts: 1,
    retryDelayMs: 10,
  };
});

afterAll(async () => {
  await fake?.close();
  await stores?.close();
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

beforeEach(async () => {
  fake.requests.length = 0;
  fake.cut = null;
  fake.corrupt.clear();
  fake.zipStatus = null;
  fake.ranges = true;
  cacheDir = await tempDir('olrc-cache');
});

const run = (request: Omit<FetchUscodeRequest, 'cacheDir'>, overrides: Partial<FetchUscodeDeps> = {}) => {
  const lines: string[] = [];
  return fetchUscode({ source: fake.url, cacheDir, ...request }, { ...deps, ...overrides }, (line) => lines.push(line)).then((result) => ({
    result,
    lines,
  }));
};

const inForce = (key: string, date: string) => stores.versions.findInForce({ jurisdiction: 'us', corpus: 'statutes', key }, date);

/** Every file below `dir`, relative. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** An address where nothing listens. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}`;
}

const ZIP_113_31 = (title: string) => `download/releasepoints/us/pl/113/31/xml_usc${title}@113-31.zip`;

describe('asof fetch uscode against a fake publisher', () => {
  it('with a release point and titles requests those zips only, ingests them with their address and release point, and a re-run requests nothing', async () => {
    const { result, lines } = await run({ releasePoint: '113-31', titles: ['1'] });
    expect(fake.requests.map((r) => `${r.status} ${r.path}`)).toEqual([`200 ${zipPath('113-31', '01')}`]);
    expect(result).toMatchObject({ failed: 0, titles: [{ releasePoint: '113-31', title: '1', outcome: 'ingested', sections: 39 }] });
    expect(lines.join('\n')).toMatch(/title 1: 30 KB downloaded, checked \(usc01\.xml\)/);

    const url = `${fake.url}/${ZIP_113_31('01')}`;
    const version = await inForce('1-112b', '2014-01-01');
    expect(version?.provenance).toMatchObject({ sourceUrl: url, versionLabel: '113-31' });
    expect(JSON.parse((await stores.ops.getMarker(ingestedMarker('113-31', '01')))!)).toMatchObject({ url, sections: 39 });
    // The checked zip and its record stay in the cache; nothing partial or extracted is left behind.
    expect(await filesBelow(cacheDir)).toEqual([ZIP_113_31('01'), `${ZIP_113_31('01')}.json`]);

    const editions = await stores.versions.listEditions('usc');
    fake.requests.length = 0;
    const again = await run({ releasePoint: '113-31', titles: ['1'] });
    expect(fake.requests).toEqual([]);
    expect(again.result.titles).toMatchObject([{ outcome: 'held', sections: 39 }]);
    expect(await stores.versions.listEditions('usc')).toEqual(editions);
  });

  it('--latest reads the download page only and fetches the current release point’s zip; the versions name their own release point', async () => {
    const { result } = await run({ latest: true, titles: ['1'] });
    expect(fake.requests.map((r) => r.path)).toEqual(['/download/download.shtml', zipPath('117-80', '01')]);
    expect(result.titles).toMatchObject([{ releasePoint: '117-80', outcome: 'ingested' }]);
    expect((await inForce('1-112b', '2023-01-01'))?.provenance).toMatchObject({
      sourceUrl: `${fake.url}/download/releasepoints/us/pl/117/80/xml_usc01@117-80.zip`,
      versionLabel: '117-80',
    });
    // The version of 2013 keeps the address it was read from.
    expect((await inForce('1-112b', '2014-01-01'))?.provenance.sourceUrl).toMatch(/xml_usc01@113-31\.zip$/);
  });

  it('--since fetches every title asked for at the first release point, then at later ones the titles they changed', async () => {
    const { result } = await run({ since: '113-31', titles: ['1', '40'] });
    // 1 at 113-31 and 117-80 is held from the tests above; 40 is fetched at 113-31 only (117-80 did not change it).
    expect(result.titles.map((t) => `${t.releasePoint}/${t.title} ${t.outcome}`)).toEqual([
      '113-31/1 held',
      '113-31/40 ingested',
      '117-80/1 held',
    ]);
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/download/download.shtml',
      '/download/priorreleasepoints.htm',
      zipPath('113-31', '40'),
    ]);
  });

  it('resumes a download cut midway with a Range request', async () => {
    fake.cut = { afterBytes: 100_000, times: 1 };
    const first = await run({ releasePoint: '113-31', titles: ['6'] });
    expect(first.result.titles).toMatchObject([
      { outcome: 'failed', detail: expect.stringMatching(/after 100,000 (of 492,996 )?bytes; running again resumes it/) },
    ]);
    expect(await stores.ops.getMarker(ingestedMarker('113-31', '06'))).toBeNull();
    expect(await inForce('6-101', '2014-01-01')).toBeNull();
    expect((await stat(join(cacheDir, `${ZIP_113_31('06')}.part`))).size).toBe(100_000);

    const second = await run({ releasePoint: '113-31', titles: ['6'] });
    expect(fake.zipRequests().map((r) => `${r.status} ${r.range ?? ''}`)).toEqual(['200 ', '206 bytes=100000-']);
    expect(second.result.titles).toMatchObject([{ outcome: 'ingested', transferred: 492_996 - 100_000 }]);
    expect(second.lines.join('\n')).toMatch(/resumed at 98 KB/);
    expect(await inForce('6-101', '2014-01-01')).not.toBeNull();
  });

  it('starts over cleanly when the publisher does not honour Range', async () => {
    fake.ranges = false;
    fake.cut = { afterBytes: 50_000, times: 1 };
    // Within one run: the second try asks for the rest and gets the whole file.
    const { result } = await run({ releasePoint: '113-31', titles: ['11'] }, { attempts: 2 });
    expect(fake.zipRequests().map((r) => `${r.status} ${r.range ?? ''}`)).toEqual(['200 ', '200 bytes=50000-']);
    expect(result.titles).toMatchObject([{ outcome: 'ingested', transferred: 605_170 }]);
    expect(await filesBelow(cacheDir)).toEqual([ZIP_113_31('11'), `${ZIP_113_31('11')}.json`]);
  });

  it('refuses a corrupt zip and ingests nothing of it', async () => {
    fake.corrupt.add(zipPath('113-31', '37'));
    const editions = await stores.versions.listEditions('usc');
    const { result } = await run({ releasePoint: '113-31', titles: ['37', '41'] });
    expect(result.failed).toBe(1);
    expect(result.titles[0]).toMatchObject({
      title: '37',
      outcome: 'failed',
      detail: expect.stringMatching(/CRC-32|damaged|not a readable zip/),
    });
    expect(result.titles[1]).toMatchObject({ title: '41', outcome: 'ingested' });
    expect(await inForce('37-101', '2014-01-01')).toBeNull();
    expect(await stores.ops.getMarker(ingestedMarker('113-31', '37'))).toBeNull();
    expect((await stores.versions.listEditions('usc')).filter((e) => !editions.some((d) => d.id === e.id)).map((e) => e.scope)).toEqual([
      { kind: 'prefix', prefix: '41-' },
    ]);
    expect(await filesBelow(cacheDir)).toEqual([ZIP_113_31('41'), `${ZIP_113_31('41')}.json`]);
  });

  it('says what is wrong on a 404, a 503 and an unreachable publisher, and ingests nothing', async () => {
    const missing = await run({ releasePoint: '113-21', titles: ['1'] });
    expect(missing.result.titles).toMatchObject([
      { outcome: 'failed', detail: expect.stringMatching(/xml_usc01@113-21\.zip: HTTP 404 .*no such file/) },
    ]);

    fake.zipStatus = 503;
    const failing = await run({ releasePoint: '113-31', titles: ['39'] }, { attempts: 2 });
    expect(failing.result.titles).toMatchObject([{ outcome: 'failed', detail: expect.stringMatching(/HTTP 503 .*try again later/) }]);
    expect(fake.zipRequests()).toHaveLength(3); // the 404, then the 503 tried twice
    expect(failing.lines.join('\n')).toMatch(/trying again in 0\.01 s \(2 of 2\)/);
    expect(await inForce('39-101', '2014-01-01')).toBeNull();

    const nowhere = { source: await closedPort() };
    const direct = await run({ ...nowhere, releasePoint: '113-31', titles: ['39'] });
    expect(direct.result.titles).toMatchObject([
      { outcome: 'failed', detail: expect.stringMatching(/cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/) },
    ]);
    await expect(run({ ...nowhere, latest: true })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(await stores.ops.getMarker(ingestedMarker('113-31', '39'))).toBeNull();
  });
});

describe('the command line', () => {
  const cli = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, process.cwd());
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('refuses unclear options before requesting anything', async () => {
    fake.requests.length = 0;
    expect(await cli(['fetch', 'uscode'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/needs --release-point ID, --latest or --since ID/),
    });
    expect(await cli(['fetch', 'uscode', '--latest', '--since', '113-31'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/not several/),
    });
    expect(await cli(['fetch', 'uscode', '--latest', '--titles', '1,99'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/'99' is not a US Code title/),
    });
    expect(await cli(['fetch', 'uscode', '--release-point', '118'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/'118' is not a release point/),
    });
    expect(await cli(['fetch', 'dc-code', '--latest'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/fetch dc-code takes --repo and --since, not --latest/),
    });
    expect(await cli(['fetch', 'statutes', '--latest'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/fetch takes one source: uscode, dc-code or state-code \(got 'statutes'\)/),
    });
    expect(fake.requests).toEqual([]);
  });

  it('fetches into a data dir, prints its progress, and a re-run fetches and writes nothing', async () => {
    const dataDir = await tempDir('fetch-data');
    const args = ['fetch', 'uscode', '--release-point', '117-80', '--titles', '1', '--source', fake.url, '--data-dir', dataDir];
    const first = await cli(args);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toMatch(
      /release point 117-80: 1 title\n {2}title 1: 34 KB downloaded, checked \(usc01\.xml\)\n {2}title 1: ingesting usc01\.xml/,
    );
    expect(first.out).toMatch(/usc 117-80 \(2022-01-27\): 39 sections, 39 changed/);
    expect(await filesBelow(join(dataDir, 'sources'))).toEqual([
      'olrc/download/releasepoints/us/pl/117/80/xml_usc01@117-80.zip',
      'olrc/download/releasepoints/us/pl/117/80/xml_usc01@117-80.zip.json',
    ]);

    fake.requests.length = 0;
    const second = await cli([...args, '--json']);
    expect(second.code, second.err).toBe(0);
    expect(fake.requests).toEqual([]);
    expect(second.out).toMatch(/title 1: already ingested \(39 sections/);
    expect(second.out).toMatch(/0 ingested, 1 already held, 0 not published, 0 failed; 0 bytes downloaded/);
  });
});
