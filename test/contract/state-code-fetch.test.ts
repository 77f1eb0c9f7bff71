/**
 * `asof fetch state-code` against a local stand-in of the publisher (real sockets, serving the repo's real title files
 * in UniCourt's layout) and against a folder, into the real embedded stores of a data dir: only the files asked for
 * are requested, a re-run requests none and changes nothing, a file the source lacks or fails to serve is reported
 * (the rest are ingested), and the versions name the publisher's file of their release.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '#local/cli.ts';
import { openLocalStores } from '#local/local-runtime.ts';

const STATES = fileURLToPath(new URL('../../data/states/', import.meta.url));

let server: Server;
let source: string;
const requests: string[] = [];
/** Paths the stand-in answers with this status instead of the file. */
const failing = new Map<string, number>();
const temps: string[] = [];

const tempDir = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `asof-${name}-`));
  temps.push(dir);
  return dir;
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    requests.push(path);
    const status = failing.get(path);
    if (status) return void res.writeHead(status).end(status === 200 ? '<html><body>Sign in to continue</body></html>' : 'no');
    const file = normalize(join(STATES, path));
    if (!file.startsWith(STATES)) return void res.writeHead(403).end();
    readFile(file).then(
      (bytes) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bytes),
      () => res.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  source = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, process.cwd());
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** `fetch state-code tn` of releases 72 and 73 of title 15 from the stand-in. */
const tn15 = (dataDir: string) => [
  'fetch',
  'state-code',
  'tn',
  '--source',
  source,
  '--releases',
  '72,73',
  '--titles',
  '15',
  '--data-dir',
  dataDir,
  '--json',
];

async function versionsIn(dataDir: string, jurisdiction: string, key: string) {
  const stores = await openLocalStores({ dataDir });
  try {
    const ref = { jurisdiction, corpus: 'statutes' as const, key };
    const summaries = await stores.versions.listVersions(ref);
    return await Promise.all(summaries.map(async (s) => (await stores.versions.getVersion(ref, s.validFrom))!));
  } finally {
    await stores.close();
  }
}

describe("asof fetch state-code from an address in the publisher's layout", () => {
  it('requests only the releases and titles asked for, ingests them, and a re-run requests nothing', { timeout: 120_000 }, async () => {
    // Prepare
    const dataDir = await tempDir('state-fetch');
    requests.length = 0;

    // Act
    const first = await cli(tn15(dataDir));

    // Assess
    expect(first.code, first.err).toBe(0);
    expect(requests.sort()).toEqual(['transforms/tn/octn/r72/gov.tn.tca.title.15.html', 'transforms/tn/octn/r73/gov.tn.tca.title.15.html']);
    expect(first.out).toMatch(/tn: ingesting 2 title file\(s\)/);
    const result = JSON.parse(first.out.slice(first.out.indexOf('{\n')));
    expect(result).toMatchObject({ state: 'tn', files: 2, downloaded: 2, missing: [], failed: [], editions: 2, changedEditions: 2 });
    await stat(join(dataDir, 'sources/state-codes/transforms/tn/octn/r73/gov.tn.tca.title.15.html'));
    const mothersDay = await versionsIn(dataDir, 'tn', '15-2-102');
    expect(mothersDay.map((v) => [v.validFrom.slice(0, 10), v.provenance.versionLabel, v.provenance.sourceUrl])).toEqual([
      [
        '2020-09-01',
        'r72',
        'https://github.com/UniCourt/cic-code-tn/blob/507a4fb0e463c55a81147a3deba042aa18f562c1/transforms/tn/octn/r72/gov.tn.tca.title.15.html',
      ],
      [
        '2020-09-30',
        'r73',
        'https://github.com/UniCourt/cic-code-tn/blob/507a4fb0e463c55a81147a3deba042aa18f562c1/transforms/tn/octn/r73/gov.tn.tca.title.15.html',
      ],
    ]);

    requests.length = 0;
    const again = await cli(tn15(dataDir));
    expect(again.code, again.err).toBe(0);
    expect(requests).toEqual([]);
    expect(JSON.parse(again.out.slice(again.out.indexOf('{\n')))).toMatchObject({ downloaded: 0, editions: 2, changedEditions: 0 });
    expect(again.out).toMatch(/0 changed \(the same as at its last complete ingest: nothing written\)/);
  });

  it('reports a file the source lacks or fails to serve, keeps no page that is not a title file, and ingests the rest', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await tempDir('state-fetch-failing');
    failing.set('transforms/ms/ocms/r78/gov.ms.code.title.87.html', 503);
    failing.set('transforms/ms/ocms/r78/gov.ms.code.title.95.html', 200);
    try {
      const r = await cli([
        'fetch',
        'state-code',
        'ms',
        '--source',
        `${source}/`,
        '--releases',
        '78',
        '--titles',
        '3,87,95,99',
        '--data-dir',
        dataDir,
        '--json',
      ]);
      expect(r.code).toBe(1);
      const result = JSON.parse(r.out.slice(r.out.indexOf('{\n')));
      expect(result).toMatchObject({ files: 1, downloaded: 1, missing: ['r78/gov.ms.code.title.99.html'], editions: 1 });
      expect(result.failed.map((f: { file: string; error: string }) => [f.file.split('/').at(-1), f.error])).toEqual([
        ['gov.ms.code.title.87.html', expect.stringMatching(/HTTP 503/)],
        ['gov.ms.code.title.95.html', expect.stringMatching(/not a title file/)],
      ]);
      await expect(stat(join(dataDir, 'sources/state-codes/transforms/ms/ocms/r78/gov.ms.code.title.95.html'))).rejects.toThrow();
      expect(await versionsIn(dataDir, 'ms', '3-3-15.1')).toHaveLength(1);
      expect(await versionsIn(dataDir, 'ms', '87-1-1')).toEqual([]);
    } finally {
      failing.clear();
    }
  });
});

describe('asof fetch state-code from a folder', () => {
  it('reads the layout in place, as many releases as asked', { timeout: 120_000 }, async () => {
    const dataDir = await tempDir('state-fetch-folder');
    const r = await cli([
      'fetch',
      'state-code',
      'ms',
      '--source',
      STATES,
      '--releases',
      'r74,r75',
      '--titles',
      '95',
      '--data-dir',
      dataDir,
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /ms-code r74 \(2019-07-08\): 47 sections, 47 changed.*1 section\(s\) skipped \(t95c15s95-15-1: not-in-force-on-release-date/,
    );
    expect(r.out).toMatch(/ms-code r75 \(2019-10-08\): 47 sections, 1 changed/);
    expect((await versionsIn(dataDir, 'ms', '95-15-1')).map((v) => v.validFrom.slice(0, 10))).toEqual(['2019-07-08', '2019-10-08']);
  });

  it('refuses unclear options before reading anything', async () => {
    expect(await cli(['fetch', 'state-code'])).toMatchObject({ code: 2, err: expect.stringMatching(/needs a state: tn, ms/) });
    expect(await cli(['fetch', 'state-code', 'ga'])).toMatchObject({ code: 2, err: expect.stringMatching(/no state code 'ga'/) });
    expect(await cli(['fetch', 'state-code', 'tn', 'ms'])).toMatchObject({ code: 2, err: expect.stringMatching(/takes one state/) });
    expect(await cli(['fetch', 'state-code', 'tn', '--releases', '72,latest'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--releases takes release numbers/),
    });
    expect(await cli(['fetch', 'state-code', 'tn', '--source', 'ftp://example.org/tn'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--source is a folder or an http\(s\) address/),
    });
    expect(await cli(['ingest', 'state-code', STATES])).toMatchObject({ code: 2, err: expect.stringMatching(/needs --state tn\|ms/) });
  });
});
