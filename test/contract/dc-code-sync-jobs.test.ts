/**
 * The scheduled D.C. Code sync's Lambda steps (functions/lambda/jobs/dc-code-*.ts), run for real: the Council's
 * remote stood in for by git itself serving the repo's slice of the real history over smart HTTP
 * (test/support/git-http-server.ts), a local S3 that checks checksums as S3 does (test/support/fake-s3.ts, through the
 * SDK's endpoint override) and the embedded stores (DynamoDB on dynalite, as a deployed job function reaches it; the
 * embedded search index in place of OpenSearch). The steps are driven as the state machine does
 * (lib/source-sync-machine.ts, from DC_CODE_RUN): sync → an ingest per batch, in order → finish.
 *
 * One story on one store set: the remote unreachable on an empty bucket, a first run with the remote 60 publications
 * behind its head (a batch failing midway and retried), a run with nothing new, the remote publishing the rest; the
 * end state is the one `asof fetch dc-code` leaves from the same history.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchDcCode, publicationMarker } from '#ingest/dc-git/fetch-dc-code.ts';
import { s3GitPacks } from '#lambda/adapters/s3-git-packs.ts';
import { ENV } from '#lambda/env.ts';
import { dcCodeIngestHandler } from '#lambda/jobs/dc-code-ingest-job.ts';
import { MANIFEST_KEY, packKey, type RepositoryManifest } from '#lambda/jobs/dc-code-repository.ts';
import type { BatchJob, BatchState, FinishSummary, SyncResult } from '#lambda/jobs/dc-code-steps.ts';
import { dcCodeSyncHandler } from '#lambda/jobs/dc-code-sync-job.ts';
import type { SectionVersion } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { localJobs, openLocalStores } from '#local/local-runtime.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { type FakeS3, startFakeS3 } from '../support/fake-s3.ts';
import { type GitHttpServer, packObjectIds, startGitHttpServer } from '../support/git-http-server.ts';
import { lambdaContext as context, deployedLambdaEnv } from './lambda-env.ts';

const SLICE = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/dc-code-history/slice.bundle');
/** The slice's line of publications (PROVENANCE.md): 213 publications, the head `2024-10-20/2024-10-20`. */
const LINE_REF = 'refs/heads/slice/line';
const HEAD = 'c9107c7c4a8d5d13d69fb9c435b3ff052f98a895';
/** The remote before its last 60 publications: the first run sees 153. */
const EARLIER = `${HEAD}~60`;
const BUCKET = 'asof-test-sources';

let remote: GitHttpServer;
let s3: FakeS3;
let stores: DynaliteStores;
let env: Record<string, string>;
let work: string;
const saved = { ...process.env };

/** The search index, failing every upsert of a version from `failFrom` on while it is set (a store going away midway). */
const searchFault: { failFrom: string | null } = { failFrom: null };
const faultySearch = (): SearchIndex =>
  Object.create(stores.search, {
    upsert: {
      value: async (docs: Parameters<SearchIndex['upsert']>[0]) => {
        const { failFrom } = searchFault;
        if (failFrom && docs.some((d) => d.validFrom >= failFrom)) throw new Error('injected: the search index went away');
        return stores.search.upsert(docs);
      },
    },
  });

let syncStep: ReturnType<typeof dcCodeSyncHandler>;
let ingestStep: ReturnType<typeof dcCodeIngestHandler>;
const sync = async (request: Record<string, unknown> = { remote: remote.url }) =>
  (await syncStep({ step: 'sync', request }, context('sync'))) as SyncResult;
const ingest = async (batch: BatchJob) => (await ingestStep({ step: 'ingest', batch }, context('ingest'))) as BatchState;
const finish = async (plan: SyncResult['plan'], batches: BatchState[]) =>
  (await ingestStep({ step: 'finish', plan, batches }, context('finish'))) as FinishSummary;

const manifest = (): RepositoryManifest | null => {
  const stored = s3.get(BUCKET, MANIFEST_KEY);
  return stored ? (JSON.parse(stored.body.toString('utf8')) as RepositoryManifest) : null;
};
/** The object ids a stored pack's index lists. */
const objectsOf = (pack: string): Set<string> => packObjectIds(s3.get(BUCKET, packKey(pack, 'idx'))!.body);
const puts = () => s3.requests.filter((r) => r.startsWith('PUT '));
const markerOf = (commit: string) => stores.ops.getMarker(publicationMarker(commit));

const rowOf = (v: SectionVersion) =>
  [v.citation.key, v.validFrom, v.validTo, v.status, v.provenance.contentHash, v.provenance.versionLabel, v.catchline, v.note ?? ''].join(
    ' | ',
  );
async function stateOf(versions: VersionStore): Promise<string[]> {
  const rows: string[] = [];
  for await (const v of versions.scanVersions()) rows.push(rowOf(v));
  return rows.sort();
}

beforeAll(async () => {
  [remote, s3, stores] = await Promise.all([startGitHttpServer(SLICE, LINE_REF, EARLIER), startFakeS3(), openDynaliteStores()]);
  s3.createBucket(BUCKET);
  env = deployedLambdaEnv(
    stores.dynamo,
    { versions: LOCAL_TABLES.versions, ops: LOCAL_TABLES.ops },
    { AWS_ENDPOINT_URL_S3: s3.url, [ENV.sourcesBucket]: BUCKET },
  );
  // The SDK reads its endpoint override from the process's environment, as in a deployed function.
  Object.assign(process.env, env);
  work = await mkdtemp(join(tmpdir(), 'asof-dc-sync-'));
  // Two sandboxes, as the two functions have: each rebuilds the repository from the bucket into its own /tmp.
  syncStep = dcCodeSyncHandler({ packs: s3GitPacks, env, workDir: join(work, 'sync') });
  ingestStep = dcCodeIngestHandler({ search: faultySearch, packs: s3GitPacks, env, workDir: join(work, 'ingest') });
});

afterAll(async () => {
  process.env = saved;
  await Promise.all([remote?.close(), s3?.close(), stores?.close()]);
  await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  s3.requests.length = 0;
  remote.requests.length = 0;
  remote.down = false;
  searchFault.failFrom = null;
});

describe('the functions load as deployed', () => {
  it('loads both entries with the environment a deployed function gets, without calling AWS', async () => {
    for (const entry of ['dc-code-sync', 'dc-code-ingest']) {
      const loaded = (await import(`../../functions/lambda/jobs/${entry}.ts`)) as { handler?: unknown };
      expect(typeof loaded.handler, entry).toBe('function');
    }
  });
});

describe('a remote that cannot be read', () => {
  it.each([
    [
      'nobody answering',
      () => 'http://127.0.0.1:9/law-xml-codified.git',
      'RemoteUnavailable',
      /cannot fetch the D\.C\. Code repository from http:\/\/127\.0\.0\.1:9\//,
    ],
    ['answering 503', () => remote.url, 'RemoteUnavailable', /HTTP Error: 503/],
    ['with no such repository (404)', () => remote.url.replace('repo.git', 'nothing.git'), 'RemoteRefused', /HTTP Error: 404/],
  ])('fails the sync naming the remote (%s), storing and ingesting nothing', async (_what, url, name, message) => {
    remote.down = url() === remote.url;
    await expect(sync({ remote: url() })).rejects.toMatchObject({ name, message: expect.stringMatching(message) });
    expect(puts()).toEqual([]);
    expect(manifest()).toBeNull();
    expect(await stores.versions.listEditions('dc-code')).toEqual([]);
  });

  it('refuses a step event it can never run, before reaching anything', async () => {
    await expect(syncStep({ step: 'sync', request: { remote: 'ftp://mirror.example/law.git' } }, context('bad'))).rejects.toMatchObject({
      name: 'DcCodeStepRefused',
    });
    await expect(ingestStep({ step: 'ingest', batch: { commits: ['abc'] } }, context('bad'))).rejects.toMatchObject({
      name: 'DcCodeStepRefused',
      message: expect.stringMatching(/commits/),
    });
    expect(s3.requests).toEqual([]);
    expect(remote.requests).toEqual([]);
  });

  it('an ingest before any sync finds no repository in the bucket', async () => {
    const batch: BatchJob = { batch: 1, of: 1, commits: [HEAD], files: 1, first: 1, after: null };
    await expect(ingest(batch)).rejects.toMatchObject({ name: 'RepositoryNotInBucket' });
    expect(await markerOf(HEAD)).toBeNull();
  });
});

describe('the first run, the remote 60 publications behind', () => {
  let first: SyncResult;
  let firstPuts: string[];
  const results: BatchState[] = [];

  beforeAll(async () => {
    s3.requests.length = 0;
    first = await sync();
    firstPuts = puts();
  }, 60_000);

  it('fetches the whole line into one pack in the bucket, then the manifest naming it, and plans the publications in batches', () => {
    const { plan, batches } = first;
    expect(plan).toMatchObject({ remote: remote.url, publications: 153, held: 0, pending: 153, deferred: 0 });
    expect(plan.fetched?.pack).toMatch(/^pack-[0-9a-f]{40}$/);
    const stored = manifest()!;
    expect(stored).toMatchObject({ remote: remote.url, head: plan.head, packs: [plan.fetched!.pack] });
    expect(s3.get(BUCKET, packKey(plan.fetched!.pack, 'pack'))!.body.length).toBe(plan.fetched!.bytes);
    // The pack and its index first, the manifest last.
    expect(firstPuts.map((r) => r.split('/').pop())).toEqual([
      `${plan.fetched!.pack}.pack`,
      `${plan.fetched!.pack}.idx`,
      'repository.json',
    ]);
    // At most 60 publications a batch (the slice's changes are few files): in order, each after the last of the one before.
    expect(batches.map((b) => [b.batch, b.of, b.first, b.commits.length])).toEqual([
      [1, 3, 1, 60],
      [2, 3, 61, 60],
      [3, 3, 121, 33],
    ]);
    expect(batches[0]!.after).toBeNull();
    expect(batches[1]!.after).toBe(batches[0]!.commits.at(-1));
    expect(batches[2]!.after).toBe(batches[1]!.commits.at(-1));
    expect(batches.reduce((n, b) => n + b.files, 0)).toBeGreaterThan(0);
  });

  it('does not ingest a batch before the one ahead of it: it answers blocked and writes nothing', async () => {
    const blocked = await ingest(first.batches[1]!);
    expect(blocked).toMatchObject({ batch: 2, outcome: 'blocked' });
    expect(await stores.versions.listEditions('dc-code')).toEqual([]);
    expect(await markerOf(first.batches[1]!.commits[0]!)).toBeNull();
  });

  it('a batch that fails midway keeps what it completed; retried, it completes the rest and marks every publication', async () => {
    const batch = first.batches[0]!;
    searchFault.failFrom = '2021-12-01';
    await expect(ingest(batch)).rejects.toThrow(/injected/);
    // The publications of the inner ingests before the failure are in and marked; the one cut short and the rest are not.
    const marked = await Promise.all(batch.commits.map(async (c) => (await markerOf(c)) !== null));
    expect(marked.slice(0, 20)).toEqual(Array(20).fill(true));
    expect(marked.slice(20)).toEqual(Array(40).fill(false));

    searchFault.failFrom = null;
    s3.requests.length = 0;
    const retried = await ingest(batch);
    expect(retried).toMatchObject({ batch: 1, outcome: 'ingested', ingested: 40, held: 20 });
    expect(await Promise.all(batch.commits.map(async (c) => (await markerOf(c)) !== null))).toEqual(Array(60).fill(true));
    expect((await stores.versions.listEditions('dc-code')).every((e) => e.completeDigest)).toBe(true);
    // The sandbox kept the pack it fetched on the first try: the retry read only the manifest.
    expect(s3.requests).toEqual([`GET ${BUCKET}/${MANIFEST_KEY}`]);
    results.push(retried);
  }, 60_000);

  it('ingests the later batches in order, and the finish sums the run up', async () => {
    for (const batch of first.batches.slice(1)) results.push(await ingest(batch));
    expect(results.map((r) => r.outcome)).toEqual(['ingested', 'ingested', 'ingested']);
    const summary = await finish(first.plan, results);
    expect(summary).toMatchObject({ ingested: 40 + 60 + 33, held: 20, failed: 0, blocked: 0, failures: [], deferred: 0 });
    expect(summary.versionsWritten).toBeGreaterThan(0);
    expect(summary.message).toMatch(/^sync dc-code to [0-9a-f]{12}: 133 publication\(s\) ingested/);
    // The publication of 2023-07-28 (the 150th) is in; 2024-03-18 (the 181st) is not published yet.
    const v = await stores.versions.findInForce({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, '2024-04-01');
    expect(v).toBeNull();
  }, 60_000);

  it('a batch run again (a retried invocation whose answer was lost) changes nothing', async () => {
    const before = await stateOf(stores.versions);
    const again = await ingest(first.batches[2]!);
    expect(again).toMatchObject({ outcome: 'held', ingested: 0, held: 33, versionsWritten: 0 });
    expect(await stateOf(stores.versions)).toEqual(before);
  });

  it('a finish that names a failed batch fails the run’s summary, naming it and the batches it held back', async () => {
    const failed: BatchState = { ...first.batches[1]!, outcome: 'failed', error: 'IngestBusy' };
    const blocked: BatchState = { ...first.batches[2]!, outcome: 'blocked' };
    const summary = await finish(first.plan, [{ ...first.batches[0]!, outcome: 'held' }, failed, blocked]);
    expect(summary).toMatchObject({ failed: 1, blocked: 1, failures: ['batch 2 of 3 (publications 61–120): IngestBusy'] });
    expect(summary.message).toMatch(/1 batch\(es\) failed .*; 1 later batch\(es\) not run/);
  });
});

describe('later runs', () => {
  it('a run with nothing new fetches nothing, stores nothing and plans nothing', async () => {
    const before = manifest();
    const { plan, batches } = await sync();
    expect(plan).toMatchObject({ publications: 153, held: 153, pending: 0, fetched: null });
    expect(batches).toEqual([]);
    expect(puts()).toEqual([]);
    expect(manifest()).toEqual(before);
    // The sandbox is warm: only the manifest is read from the bucket.
    expect(s3.requests).toEqual([`GET ${BUCKET}/${MANIFEST_KEY}`]);
  });

  it('after the remote publishes, a run fetches only the objects that are new and plans only the new publications', async () => {
    const before = manifest()!;
    remote.moveHead(HEAD);
    const { plan, batches } = await sync();
    expect(plan).toMatchObject({ head: HEAD, publications: 213, held: 153, pending: 60 });
    const fresh = plan.fetched!.pack;
    const held = objectsOf(before.packs[0]!);
    const brought = objectsOf(fresh);
    expect(brought.has(HEAD)).toBe(true);
    expect([...brought].filter((oid) => held.has(oid))).toEqual([]);
    expect(manifest()).toMatchObject({ head: HEAD, packs: [...before.packs, fresh] });
    expect(batches.map((b) => [b.first, b.commits.length, b.after])).toEqual([[154, 60, expect.stringMatching(/^[0-9a-f]{40}$/)]]);

    const done = [await ingest(batches[0]!)];
    expect(done[0]).toMatchObject({ outcome: 'ingested', ingested: 60 });
    expect((await finish(plan, done)).failed).toBe(0);
    const v = await stores.versions.findInForce({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, '2024-04-01');
    expect(v?.provenance.versionLabel).toBe('2024-03-26');
  }, 60_000);

  it('a new sandbox rebuilds the repository from the bucket alone: every pack the manifest names, and it reads the same line', async () => {
    const cold = dcCodeSyncHandler({ packs: s3GitPacks, env, workDir: join(work, 'cold') });
    const { plan } = (await cold({ step: 'sync', request: { remote: remote.url } }, context('cold'))) as SyncResult;
    expect(plan).toMatchObject({ head: HEAD, publications: 213, held: 213, pending: 0, fetched: null });
    const gets = s3.requests.filter((r) => r.startsWith('GET ')).sort();
    expect(gets).toEqual(
      [MANIFEST_KEY, ...manifest()!.packs.flatMap((p) => [packKey(p, 'pack'), packKey(p, 'idx')])].map((k) => `GET ${BUCKET}/${k}`).sort(),
    );
  });

  it('refuses a pack altered in the bucket: a new sandbox stops before fetching or ingesting anything', async () => {
    const [pack] = manifest()!.packs;
    const stored = s3.get(BUCKET, packKey(pack!, 'pack'))!.body;
    const altered = Buffer.from(stored);
    altered.writeUInt8(altered.readUInt8(altered.length - 1) ^ 0xff, altered.length - 1);
    s3.replaceBody(BUCKET, packKey(pack!, 'pack'), altered);
    try {
      const cold = dcCodeSyncHandler({ packs: s3GitPacks, env, workDir: join(work, 'altered') });
      await expect(cold({ step: 'sync', request: { remote: remote.url } }, context('altered'))).rejects.toThrow(
        new RegExp(`the pack stored as ${pack} ends with the checksum [0-9a-f]{40}: it is not that pack`),
      );
      expect(remote.requests).toEqual([]);
      expect(puts()).toEqual([]);
    } finally {
      s3.replaceBody(BUCKET, packKey(pack!, 'pack'), stored);
    }
  });

  it('ends in the state `asof fetch dc-code` leaves from the same history', async () => {
    const local = await openLocalStores({ dataDir: null });
    try {
      const jobs = localJobs(local);
      await fetchDcCode(
        { repo: SLICE, cacheDir: join(work, 'local-cache') },
        {
          ingest: async (request, log) => (await jobs.ingest(request, log, { afterwards: false })).reports,
          afterIngest: (log) => jobs.afterIngest(log),
          markers: local.ops,
          now: local.now,
        },
      );
      expect(await stateOf(stores.versions)).toEqual(await stateOf(local.versions));
    } finally {
      await local.close();
    }
  }, 120_000);
});
