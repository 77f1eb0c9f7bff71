/**
 * `asof fetch dc-code` on a real slice of the D.C. Council's repository (data/dc-code-history/slice.bundle: 16 section
 * files through all 213 publications of the default branch, plus the off-line publication and `main`) into the real
 * embedded stores: every version of every section, deletions and renumberings ending intervals, idempotent re-runs,
 * an out-of-order run, an interrupted run resumed, unreadable repositories refused with nothing ingested, and lookups
 * through the local server over a real socket.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { readBundleHeader } from '#ingest/dc-git/bundle.ts';
import { type FetchDcCodeDeps, type FetchDcCodeRequest, fetchDcCode, publicationMarker } from '#ingest/dc-git/fetch-dc-code.ts';
import { RepositoryError } from '#ingest/dc-git/repository.ts';
import type { SectionVersion } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { main } from '#local/cli.ts';
import { type LocalServer, type LocalStores, localJobs, openLocalStores, serveLocal } from '#local/local-runtime.ts';
import { packObjectIds, startGitHttpServer } from '../support/git-http-server.ts';

const SLICE = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/dc-code-history/slice.bundle');
const temps: string[] = [];
const opened: { close(): Promise<void> }[] = [];

const tempDir = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `asof-${name}-`));
  temps.push(dir);
  return dir;
};

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function freshStores(): Promise<LocalStores> {
  const stores = await openLocalStores({ dataDir: null });
  opened.push(stores);
  return stores;
}

const depsOf = (stores: LocalStores, versions: VersionStore = stores.versions): FetchDcCodeDeps => {
  const jobs = localJobs({ ...stores, versions });
  return {
    ingest: async (request, log) => (await jobs.ingest(request, log, { afterwards: false })).reports,
    afterIngest: (log) => jobs.afterIngest(log),
    markers: stores.ops,
    now: stores.now,
  };
};

async function fetchInto(stores: LocalStores, request: Partial<FetchDcCodeRequest> = {}, deps = depsOf(stores)) {
  const lines: string[] = [];
  const result = await fetchDcCode({ repo: SLICE, cacheDir: await tempDir('dc-cache'), ...request }, deps, (l) => lines.push(l));
  return { result, lines };
}

const ref = (key: string) => ({ jurisdiction: 'dc', corpus: 'statutes' as const, key });
const inForce = (stores: LocalStores, key: string, date: string) => stores.versions.findInForce(ref(key), date);

/** Every stored version, as a lookup sees it (the times of this run left out), in a stable order. */
async function stateOf(stores: LocalStores): Promise<string[]> {
  const rows: string[] = [];
  for await (const v of stores.versions.scanVersions()) rows.push(rowOf(v));
  return rows.sort();
}

const rowOf = (v: SectionVersion) =>
  [v.citation.key, v.validFrom, v.validTo, v.status, v.provenance.contentHash, v.provenance.versionLabel, v.catchline, v.note ?? ''].join(
    ' | ',
  );

describe('fetch dc-code on the real slice', () => {
  let stores: LocalStores;
  let first: Awaited<ReturnType<typeof fetchInto>>;

  // The search index's refreshes and the ingests (batches of publications) of the first run, counted.
  const calls = { refresh: 0, ingest: 0 };

  beforeAll(async () => {
    stores = await freshStores();
    const search: SearchIndex = Object.assign(Object.create(stores.search), {
      refresh: () => {
        calls.refresh++;
        return stores.search.refresh();
      },
    });
    const deps = depsOf({ ...stores, search });
    first = await fetchInto(
      stores,
      {},
      {
        ...deps,
        ingest: (request, log) => {
          calls.ingest++;
          return deps.ingest(request, log);
        },
      },
    );
  }, 120_000);

  it('refreshes the search index once, after the last batch of publications, not after each', () => {
    expect(calls.ingest).toBeGreaterThan(5);
    expect(calls.refresh).toBe(1);
  });

  it('walks the 213 publications of the default branch, oldest first, and says what it did', () => {
    expect(first.result).toMatchObject({ publications: 213, ingested: 213, held: 0 });
    expect(first.result.versionsWritten).toBeGreaterThan(60);
    expect(first.lines.some((l) => /213 publications on the default branch's line \(2021-10-18 → 2024-10-20/.test(l))).toBe(true);
    expect(first.lines.some((l) => /publication 2024-06-22 \(\d+ of 213, [0-9a-f]{12}\): \d+ section files changed/.test(l))).toBe(true);
    expect(first.lines.at(-1)).toMatch(/213 publication\(s\) ingested, 0 already held/);
  });

  it('gives a section its versions and ends its interval where a publication deletes it', async () => {
    // 22-404.05 (temporary law): added 2024-03-18, file changed 03-20, 03-26, 04-21 (a D.C. Register cite in an
    // annotation only: no new version), deleted 2024-06-22.
    const versions = await stores.versions.listVersions(ref('22-404.05'));
    expect(versions.map((v) => v.versionLabel)).toEqual(['2024-03-18', '2024-03-20', '2024-03-26']);
    expect(await inForce(stores, '22-404.05', '2024-03-17')).toBeNull();
    expect((await inForce(stores, '22-404.05', '2024-03-19'))?.provenance.versionLabel).toBe('2024-03-18');
    expect((await inForce(stores, '22-404.05', '2024-06-21'))?.provenance.versionLabel).toBe('2024-03-26');
    expect(await inForce(stores, '22-404.05', '2024-06-22')).toBeNull();
  });

  it('follows renumbered files: the old number ends, the new one starts, a number reused later starts again', async () => {
    // 22-405.01 → 22-406.01 (2024-06-22) → 22-432 (2024-07-23) → 22-405.01 (2024-08-20).
    expect(await inForce(stores, '22-405.01', '2024-06-21')).not.toBeNull();
    expect(await inForce(stores, '22-405.01', '2024-07-01')).toBeNull();
    expect((await inForce(stores, '22-405.01', '2024-08-20'))?.validFrom).toBe('2024-08-20T00:00:00-04:00');
    expect((await inForce(stores, '22-406.01', '2024-07-01'))?.validTo).toBe('2024-07-23T00:00:00-04:00');
    expect(await inForce(stores, '22-406.01', '2024-07-23')).toBeNull();
    const v432 = await inForce(stores, '22-432', '2024-08-01');
    expect([v432?.validFrom, v432?.validTo]).toEqual(['2024-07-23T00:00:00-04:00', '2024-08-20T00:00:00-04:00']);
  });

  it('keeps one section through a rename that only drops the brackets of its number', async () => {
    // [47-2887.16a].xml (2023-03-03) renamed 47-2887.16a.xml on 2023-10-13: one key, no gap.
    expect((await inForce(stores, '47-2887.16a', '2023-06-01'))?.provenance.versionLabel).toBe('2023-03-03');
    expect(await inForce(stores, '47-2887.16a', '2023-10-13')).not.toBeNull();
    expect(await inForce(stores, '47-2887.16a', '2023-03-02')).toBeNull();
  });

  it('reads the file names the Council writes for a file system: an en dash, the UCC colon, a number the XML misprints', async () => {
    expect((await inForce(stores, '31-3302.06a', '2024-01-01'))?.catchline).toBe('Application to multiple employer welfare arrangements.');
    expect((await inForce(stores, '28:1-101', '2024-01-01'))?.citation.display).toBe('D.C. Code § 28:1-101');
    // 22-408.xml marks itself <reason>Repealed</reason>: a status, not body text.
    const repealed = await inForce(stores, '22-408', '2022-01-01');
    expect([repealed?.status, repealed?.bodyText]).toEqual(['repealed', 'Repealed.']);
    // 28-3871.xml prints <num>IV</num>; the Council publishes it at 28-3871.
    expect((await inForce(stores, '28-3871', '2024-10-20'))?.catchline).toBe('Public health emergency credit alert.');
  });

  it('starts a version only where the text changed, and never from the publication off the line', async () => {
    // 22-4234's file changes in 28 publications; its text does not change in all of them.
    const versions = await stores.versions.listVersions(ref('22-4234'));
    expect(versions.length).toBeGreaterThan(10);
    expect(versions.length).toBeLessThan(28);
    // 42-3502.15a is modified by the off-line publication 2023-11-05 and again on the line on 2023-11-11.
    const labels = (await stores.versions.listVersions(ref('42-3502.15a'))).map((v) => v.versionLabel);
    expect(labels).toContain('2023-11-11');
    expect(labels).not.toContain('2023-11-05');
  });

  it('records a marker per publication and ingests nothing on a second run', async () => {
    const before = await stateOf(stores);
    const editions = (await stores.versions.listEditions('dc-code')).map((e) => `${e.id} ${e.ingestedAt}`).sort();
    const again = await fetchInto(stores);
    expect(again.result).toMatchObject({ publications: 213, ingested: 0, held: 213, versionsWritten: 0 });
    expect(await stateOf(stores)).toEqual(before);
    expect((await stores.versions.listEditions('dc-code')).map((e) => `${e.id} ${e.ingestedAt}`).sort()).toEqual(editions);
  });

  it('ends in the same state when later publications are fetched first, then the earlier ones', async () => {
    const other = await freshStores();
    const later = await fetchInto(other, { since: '2024-01-01' });
    expect(later.result.ingested).toBeGreaterThan(20);
    expect(later.result.ingested).toBeLessThan(213);
    expect((await fetchInto(other)).result.ingested).toBe(213 - later.result.ingested);
    expect(await stateOf(other)).toEqual(await stateOf(stores));
  }, 120_000);

  it('resumes an interrupted run: the publication cut short is completed, the state is the uninterrupted one', async () => {
    const other = await freshStores();
    // The store fails on the first write for 22-432 (renumbered into being on 2024-07-23), well into the history.
    const failing: VersionStore = Object.create(other.versions, {
      applyWrites: {
        value: async (w: Parameters<VersionStore['applyWrites']>[0]) => {
          if (w.some((x) => (x.kind === 'put' ? x.version.citation.key : x.ref.key) === '22-432'))
            throw new Error('injected: the store went away');
          return other.versions.applyWrites(w);
        },
      },
    });
    await expect(fetchInto(other, {}, depsOf(other, failing))).rejects.toThrow(/injected/);
    const cut = (await other.versions.listEditions('dc-code')).filter((e) => !e.completeDigest);
    expect(cut).toHaveLength(1); // the publication cut short: recorded as incomplete, and without a marker
    const cutCommit = /@ ([0-9a-f]{40}) /.exec(cut[0]!.source)?.[1];
    expect(await other.ops.getMarker(publicationMarker(cutCommit!))).toBeNull();

    const resumed = await fetchInto(other);
    expect(resumed.result.held).toBeGreaterThan(0);
    expect(resumed.result.held + resumed.result.ingested).toBe(213);
    expect((await other.versions.listEditions('dc-code')).every((e) => e.completeDigest)).toBe(true);
    expect(await stateOf(other)).toEqual(await stateOf(stores));
  }, 120_000);
});

describe('fetch dc-code from a git URL', () => {
  it('clones the remote once, and later runs fetch only what came after the commit held', async () => {
    // git itself serves the slice over smart HTTP, its default branch 60 publications behind at first.
    const head = (await readBundleHeader(SLICE)).head;
    const remote = await startGitHttpServer(SLICE, 'refs/heads/slice/line', `${head}~60`);
    opened.push(remote);
    const stores = await freshStores();
    const cacheDir = await tempDir('dc-url-cache');
    const fromUrl = (deps = depsOf(stores)) => fetchDcCode({ repo: remote.url, cacheDir }, deps);
    const answered = () => remote.requests.filter((r) => r.method === 'POST').map((r) => r.bytes);

    expect(await fromUrl()).toMatchObject({ repo: remote.url, publications: 153, ingested: 153 });
    remote.moveHead(head);
    remote.requests.length = 0;
    expect(await fromUrl()).toMatchObject({ publications: 213, ingested: 60, held: 153 });
    const [update] = answered();
    remote.requests.length = 0;
    expect(await fromUrl()).toMatchObject({ publications: 213, ingested: 0, held: 213 });
    // Nothing new: the remote's answer is its negotiation alone, no pack (a few hundred bytes, not the history again).
    expect(answered()[0]).toBeLessThan(1_000);
    expect(update).toBeGreaterThan(10_000);
    // Two packs, the second without an object of the first: the first clone's and the update's.
    const packDir = join((await readdir(cacheDir)).map((d) => join(cacheDir, d))[0]!, 'objects', 'pack');
    const idx = (await readdir(packDir)).filter((f) => f.endsWith('.idx'));
    expect(idx).toHaveLength(2);
    const [a, b] = await Promise.all(idx.map(async (f) => packObjectIds(await readFile(join(packDir, f)))));
    expect([...a!].filter((oid) => b!.has(oid))).toEqual([]);
  }, 120_000);
});

describe('fetch dc-code refuses what it cannot read, ingesting nothing', () => {
  let stores: LocalStores;
  beforeAll(async () => {
    stores = await freshStores();
  });

  it.each([
    ['a path that does not exist', () => join(tmpdir(), 'no-such-dc-repo.bundle'), /no such file or directory/],
    ['a file that is not a bundle', () => resolve(dirname(SLICE), 'PROVENANCE.md'), /is not a git bundle/],
    ['a folder that is not a repository', () => dirname(SLICE), /not a git repository/],
    ['a git URL nobody answers', () => 'http://127.0.0.1:9/law-xml-codified.git', /cannot read the D.C. Code repository at http/],
  ])('%s', async (_what, repo, message) => {
    const attempt = fetchInto(stores, { repo: repo() });
    await expect(attempt).rejects.toThrow(RepositoryError);
    await expect(attempt).rejects.toThrow(message);
    expect(await stores.versions.listEditions('dc-code')).toEqual([]);
    expect(await stores.versions.carries('dc')).toBe(false);
  });

  it('refuses a --since that names no publication on the line, before ingesting anything', async () => {
    await expect(fetchInto(stores, { since: 'deadbeef' })).rejects.toThrow(/no publication on the default branch's line/);
    expect(await stores.versions.listEditions('dc-code')).toEqual([]);
  });

  it('says what is wrong with the command line (exit 2) before opening a store', async () => {
    const err: string[] = [];
    const io = { out: () => undefined, err: (l: string) => err.push(l) };
    const dataDir = await tempDir('dc-cli');
    expect(await main(['fetch', 'dc-code', '--since', 'last-week', '--data-dir', dataDir], io, process.cwd())).toBe(2);
    expect(err.join('\n')).toMatch(/--since takes a publication's commit/);
    expect(await main(['fetch', 'dc-code', 'somefile', '--data-dir', dataDir], io, process.cwd())).toBe(2);
    expect(err.join('\n')).toMatch(/a repository is --repo PATH/);
  });
});

describe('lookups through the local server after fetch dc-code', () => {
  let server: LocalServer;
  let key: string;

  beforeAll(async () => {
    server = await serveLocal({ dataDir: null, port: 0, sample: false, schedules: false, cache: false });
    opened.push(server);
    await fetchInto(server.stores);
    key = (await issueKey(server.stores.accounts, { name: 'dc-history', limits: { perMinute: 120 } }, new Date())).key;
  }, 120_000);

  const lookup = async (citation: string, asOf: string) => {
    const url = new URL(`${server.url}/law/lookup`);
    for (const [k, v] of Object.entries({ jurisdiction: 'dc', citation, asOf })) url.searchParams.set(k, v);
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as { result?: SectionVersion; error?: { code: string } } };
  };

  it('answers each date with the version then in force, and 404 before, in the gap and after the deletion', async () => {
    const answers = await Promise.all(
      ['2024-03-17', '2024-03-19', '2024-03-21', '2024-04-01', '2024-05-01', '2024-06-22'].map((d) => lookup('22-404.05', d)),
    );
    expect(answers.map((a) => a.status)).toEqual([404, 200, 200, 200, 200, 404]);
    expect(answers.map((a) => a.body.result?.provenance.versionLabel ?? a.body.error?.code)).toEqual([
      'no_edition_on_file',
      '2024-03-18',
      '2024-03-20',
      '2024-03-26',
      '2024-03-26',
      'no_edition_on_file',
    ]);
    const gap = await lookup('D.C. Code § 22-405.01', '2024-07-01');
    expect([gap.status, gap.body.error?.code]).toEqual([404, 'no_edition_on_file']);
    const back = await lookup('22-405.01', '2024-09-01');
    expect(back.body.result?.temporalBasis).toBe('compiled-edition');
    expect(back.body.result?.provenance.versionLabel).toBe('2024-08-20');
  });
});
