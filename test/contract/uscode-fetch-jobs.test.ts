/**
 * The scheduled US Code fetch's Lambda steps (functions/lambda/jobs/uscode-*.ts), run for real against a local fake
 * of the publisher (test/support/fake-olrc.ts: the repo's real title zips in OLRC's layout), a local S3 that checks
 * checksums as S3 does (test/support/fake-s3.ts, reached through the SDK's endpoint override) and the embedded stores
 * (DynamoDB on dynalite, as a deployed job function reaches it; the SQLite search index in place of OpenSearch).
 * Each test drives the steps as the state machine does (lib/source-sync-machine.ts, from USCODE_RUN): check → a download per title →
 * an ingest per title → finish.
 *
 * One story on one store set: the first update, a title fetched and ingested, the same title again, the faults, then
 * the run's finish and the next update.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ingestedMarker } from '#ingest/olrc/ingest-title.ts';
import { CURRENT_MARKER, currentRecord } from '#ingest/olrc/title-jobs.ts';
import { s3TitleZips } from '#lambda/adapters/s3-title-zips.ts';
import { ENV } from '#lambda/env.ts';
import { titleZipKey } from '#lambda/jobs/title-zips.ts';
import { uscodeFetchHandler } from '#lambda/jobs/uscode-fetch-job.ts';
import { uscodeIngestHandler } from '#lambda/jobs/uscode-ingest-job.ts';
import type { CheckResult, FinishSummary, TitleJobEvent, TitleState } from '#lambda/jobs/uscode-steps.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { type FakeOlrc, OLRC_TREE, startFakeOlrc, zipPath } from '../support/fake-olrc.ts';
import { type FakeS3, startFakeS3 } from '../support/fake-s3.ts';
import { lambdaContext as context, deployedLambdaEnv } from './lambda-env.ts';

const BUCKET = 'asof-test-sources';

let olrc: FakeOlrc;
let s3: FakeS3;
let stores: DynaliteStores;
let env: Record<string, string>;
let work: string;
const saved = { ...process.env };

let fetchStep: ReturnType<typeof uscodeFetchHandler>;
let ingestStep: ReturnType<typeof uscodeIngestHandler>;
/** The check step, against the fake publisher (as a stage's schedule names its source). */
const check = async (request: Record<string, unknown> = {}) =>
  (await fetchStep({ step: 'check', request: { source: olrc.url, ...request } }, context('check'))) as CheckResult;
const download = async (job: TitleJobEvent) => (await fetchStep({ step: 'download', job }, context('download'))) as TitleState;
const ingest = async (job: TitleState) => (await ingestStep({ step: 'ingest', job }, context('ingest'))) as TitleState;
const finish = async (plan: CheckResult['plan'], titles: TitleState[]) =>
  (await ingestStep({ step: 'finish', plan, titles }, context('finish'))) as FinishSummary;

/** The job for a title at a release point, as the check step answers it (the publisher's address of the zip). */
const jobFor = (releasePoint: string, title: string, named = false): TitleJobEvent => ({
  releasePoint,
  title,
  url: `${olrc.url}${zipPath(releasePoint, title)}`,
  named,
});
const repoZip = (releasePoint: string, file: string) =>
  readFile(join(OLRC_TREE, 'download/releasepoints/us/pl', ...releasePoint.split('-'), file));
const inForce = (key: string, date: string) => stores.versions.findInForce({ jurisdiction: 'us', corpus: 'statutes', key }, date);
const marker = async (releasePoint: string, title: string) => {
  const stored = await stores.ops.getMarker(ingestedMarker(releasePoint, title));
  return stored ? (JSON.parse(stored) as Record<string, unknown>) : null;
};

beforeAll(async () => {
  [olrc, s3, stores] = await Promise.all([startFakeOlrc(), startFakeS3(), openDynaliteStores()]);
  s3.createBucket(BUCKET);
  env = deployedLambdaEnv(
    stores.dynamo,
    { versions: LOCAL_TABLES.versions, ops: LOCAL_TABLES.ops },
    { AWS_ENDPOINT_URL_S3: s3.url, [ENV.sourcesBucket]: BUCKET },
  );
  // The SDK reads its endpoint override from the process's environment, as in a deployed function.
  Object.assign(process.env, env);
  work = await mkdtemp(join(tmpdir(), 'asof-uscode-jobs-'));
  const timeouts = { responseMs: 5_000, stallMs: 5_000 };
  fetchStep = uscodeFetchHandler({ zips: s3TitleZips, env, timeouts, workDir: join(work, 'fetch') });
  ingestStep = uscodeIngestHandler({ search: () => stores.search, zips: s3TitleZips, env, workDir: join(work, 'ingest') });
});

afterAll(async () => {
  process.env = saved;
  await Promise.all([olrc?.close(), s3?.close(), stores?.close()]);
  await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  olrc.requests.length = 0;
  olrc.corrupt.clear();
  olrc.zipStatus = null;
  s3.requests.length = 0;
});

describe('the functions load as deployed', () => {
  it('loads both entries with the environment a deployed function gets, without calling AWS', async () => {
    for (const entry of ['uscode-fetch', 'uscode-ingest']) {
      const loaded = (await import(`../../functions/lambda/jobs/${entry}.ts`)) as { handler?: unknown };
      expect(typeof loaded.handler, entry).toBe('function');
    }
  });
});

describe('the check step', () => {
  it('lists every title of the current release point on a first update, reading the download page alone', async () => {
    const { plan, titles } = await check();

    expect(olrc.requests.map((r) => r.path)).toEqual(['/download/download.shtml']);
    expect(plan).toEqual({ source: olrc.url, current: '117-80', upToDate: false, through: '117-80', held: 0, deferred: 0 });
    expect(titles.map((t) => t.title)).toEqual([
      '01',
      '05a',
      '11a',
      '13',
      '14',
      '17',
      '18a',
      '24',
      '27',
      '30',
      '32',
      '35',
      '37',
      '39',
      '41',
    ]);
    expect(titles[1]).toEqual({ releasePoint: '117-80', title: '05a', url: `${olrc.url}${zipPath('117-80', '05a')}`, named: false });
    expect(s3.requests).toEqual([]);
  });

  it('takes the CLI’s choices too: a named release point and titles request no page at all', async () => {
    const { plan, titles } = await check({ releasePoint: '113-31', titles: ['6', '40'] });

    expect(olrc.requests).toEqual([]);
    expect(plan).toMatchObject({ current: null, through: null });
    expect(titles).toEqual([jobFor('113-31', '06', true), jobFor('113-31', '40', true)]);
  });

  it('refuses a request it cannot run with UscodeStepRefused, before requesting anything', async () => {
    await expect(check({ latest: true, since: '113-31' })).rejects.toMatchObject({ name: 'UscodeStepRefused' });
    await expect(check({ titles: ['99'] })).rejects.toMatchObject({ name: 'UscodeStepRefused', message: /'99' is not a US Code title/ });
    await expect(check({ source: 'ftp://mirror.example' })).rejects.toMatchObject({ name: 'UscodeStepRefused' });
    await expect(fetchStep({ step: 'download', job: { title: '01' } }, context('bad'))).rejects.toMatchObject({
      name: 'UscodeStepRefused',
      message: expect.stringMatching(/releasePoint/),
    });
    expect(olrc.requests).toEqual([]);
    // A release point the publisher does not list cannot be fetched by trying again either.
    await expect(check({ since: '112-1' })).rejects.toMatchObject({
      name: 'UscodeStepRefused',
      message: /112-1 is not in the publisher's list/,
    });
  });

  it('says PublisherUnavailable when the publisher’s page cannot be had', async () => {
    const down = uscodeFetchHandler({ zips: s3TitleZips, env, fetch: async () => new Response('busy', { status: 503 }) });
    await expect(down({ step: 'check', request: {} }, context('down'))).rejects.toMatchObject({ name: 'PublisherUnavailable' });
  });
});

describe('a title job', () => {
  it('downloads the zip, checks it and stores it in the bucket with its record; the ingest reads it back and ingests it with the release point’s address', async () => {
    const job = jobFor('113-31', '06');

    const downloaded = await download(job);

    expect(downloaded).toEqual({ ...job, outcome: 'downloaded', bytes: 492_996 });
    expect(olrc.zipRequests().map((r) => `${r.status} ${r.path}`)).toEqual([`200 ${zipPath('113-31', '06')}`]);
    const key = titleZipKey('113-31', '06');
    expect(key).toBe('olrc/download/releasepoints/us/pl/113/31/xml_usc06@113-31.zip');
    const stored = s3.get(BUCKET, key)!;
    expect(stored.body.equals(await repoZip('113-31', 'xml_usc06@113-31.zip'))).toBe(true);
    expect(stored.metadata).toMatchObject({
      'asof-source-url': job.url,
      'asof-sha256': expect.stringMatching(/^[0-9a-f]{64}$/),
      'asof-entry': 'usc06.xml',
      'asof-xml-bytes': expect.stringMatching(/^\d+$/),
    });
    expect(s3.requests).toEqual([`HEAD ${BUCKET}/${key}`, `PUT ${BUCKET}/${key}`]);
    expect(await stores.ops.getMarker(ingestedMarker('113-31', '06'))).toBeNull();

    s3.requests.length = 0;
    const ingested = await ingest(downloaded);

    expect(ingested).toMatchObject({ ...job, outcome: 'ingested', sections: expect.any(Number), changedKeys: expect.any(Number) });
    expect(ingested.sections).toBeGreaterThan(0);
    expect(s3.requests).toEqual([`GET ${BUCKET}/${key}`]);
    expect((await inForce('6-101', '2014-01-01'))?.provenance).toMatchObject({ sourceUrl: job.url, versionLabel: '113-31' });
    expect(await marker('113-31', '06')).toMatchObject({ url: job.url, bytes: 492_996, sha256: stored.metadata['asof-sha256'] });
  });

  it('a second run of the same title requests nothing from the publisher or the bucket and writes nothing', async () => {
    const editions = await stores.versions.listEditions('usc');
    const job = jobFor('113-31', '06');

    const downloaded = await download(job);
    const ingested = await ingest({ ...job, outcome: 'in-bucket' });

    expect(downloaded).toEqual({ ...job, outcome: 'held' });
    expect(ingested).toEqual({ ...job, outcome: 'held' });
    expect(olrc.requests).toEqual([]);
    expect(s3.requests).toEqual([]);
    expect(await stores.versions.listEditions('usc')).toEqual(editions);
  });

  it('refuses a corrupt zip: CorruptZip, nothing stored, nothing ingested', async () => {
    olrc.corrupt.add(zipPath('113-31', '37'));
    const job = jobFor('113-31', '37');

    await expect(download(job)).rejects.toMatchObject({
      name: 'CorruptZip',
      message: expect.stringMatching(/CRC-32|damaged|not a readable zip/),
    });

    expect(s3.get(BUCKET, titleZipKey('113-31', '37'))).toBeUndefined();
    expect(s3.requests.filter((r) => r.startsWith('PUT'))).toEqual([]);
    await expect(ingest({ ...job, outcome: 'downloaded' })).rejects.toMatchObject({ name: 'ZipNotInBucket', message: /no such zip/ });
    expect(await inForce('37-101', '2014-01-01')).toBeNull();
    expect(await marker('113-31', '37')).toBeNull();
  });

  it('refuses an upload damaged on its way: S3 checks the CRC32 the SDK sends and stores nothing', async () => {
    s3.damagePuts(1);
    const job = jobFor('113-31', '37');

    await expect(download(job)).rejects.toMatchObject({ name: 'BadDigest' });

    expect(s3.get(BUCKET, titleZipKey('113-31', '37'))).toBeUndefined();
    // The state machine's retry downloads it again, whole.
    expect(await download(job)).toMatchObject({ outcome: 'downloaded' });
  });

  it('refuses a zip whose bytes in the bucket are no longer the ones checked: CorruptZip, nothing ingested', async () => {
    const key = titleZipKey('113-31', '37');
    const bytes = Buffer.from(s3.get(BUCKET, key)!.body);
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    s3.replaceBody(BUCKET, key, bytes);

    await expect(ingest({ ...jobFor('113-31', '37'), outcome: 'in-bucket' })).rejects.toMatchObject({
      name: 'CorruptZip',
      message: expect.stringMatching(/SHA-256 [0-9a-f]{64}, but it was stored as/),
    });
    expect(await inForce('37-101', '2014-01-01')).toBeNull();
    expect(await marker('113-31', '37')).toBeNull();
  });

  it('says IngestBusy while another ingest holds the lease, and a re-run completes the title without downloading it again', async () => {
    const job = jobFor('113-31', '40');
    expect(await download(job)).toMatchObject({ outcome: 'downloaded' });
    const until = new Date(Date.now() + 60_000).toISOString();
    expect(await stores.ops.acquireLease('ingest', 'another-run', until, new Date().toISOString())).toBe(true);
    try {
      await expect(ingest({ ...job, outcome: 'downloaded' })).rejects.toMatchObject({ name: 'IngestBusy' });
      expect(await marker('113-31', '40')).toBeNull();
    } finally {
      await stores.ops.releaseLease('ingest', 'another-run');
    }

    olrc.requests.length = 0;
    const again = await download(job);
    expect(again).toEqual({ ...job, outcome: 'in-bucket', bytes: expect.any(Number) });
    expect(olrc.requests).toEqual([]);
    expect(await ingest(again)).toMatchObject({ outcome: 'ingested' });
    expect(await inForce('40-101', '2014-01-01')).not.toBeNull();
  });

  it('notes a title the release point does not publish, and fails one that was named (PublisherRefused)', async () => {
    expect(await download(jobFor('117-80', '06'))).toEqual({ ...jobFor('117-80', '06'), outcome: 'not-published' });
    await expect(download(jobFor('117-80', '06', true))).rejects.toMatchObject({ name: 'PublisherRefused', message: /HTTP 404/ });
    expect(s3.requests.filter((r) => r.startsWith('PUT'))).toEqual([]);
  });

  it('says PublisherUnavailable on a 503 (the state machine retries it later)', async () => {
    olrc.zipStatus = 503;
    await expect(download(jobFor('113-31', '41'))).rejects.toMatchObject({ name: 'PublisherUnavailable', message: /HTTP 503/ });
    expect(s3.get(BUCKET, titleZipKey('113-31', '41'))).toBeUndefined();
  });
});

describe('a whole run', () => {
  /** The state machine's path: check, a download and an ingest per title (a failure caught as a failed title), finish. */
  async function run(request: Record<string, unknown> = {}) {
    const { plan, titles } = await check(request);
    const failed = (job: TitleJobEvent, step: 'download' | 'ingest', err: unknown): TitleState => ({
      ...job,
      outcome: 'failed',
      step,
      error: (err as Error).name,
    });
    // One after the other here: the state machine runs its downloads side by side, but each in a sandbox of its own.
    const downloads: TitleState[] = [];
    for (const job of titles) downloads.push(await download(job).catch((err) => failed(job, 'download', err)));
    const ingested: TitleState[] = [];
    for (const d of downloads) {
      ingested.push(['downloaded', 'in-bucket'].includes(d.outcome) ? await ingest(d).catch((err) => failed(d, 'ingest', err)) : d);
    }
    return { plan, titles: ingested, summary: await finish(plan, ingested) };
  }

  it('reports a failed title, brings the rest in, runs the steps after an ingest once, and does not call the store current', async () => {
    await stores.ops.putMarker(CURRENT_MARKER, currentRecord('113-31', new Date()));
    // Held already (as if ingested by an earlier run): the run skips it without a request.
    await stores.ops.putMarker(ingestedMarker('117-80', '17'), JSON.stringify({ url: jobFor('117-80', '17').url }));
    olrc.corrupt.add(zipPath('117-80', '05a'));

    const { plan, titles, summary } = await run();

    // An update from 113-31: the titles 117-80 changed (1, 5A and 17 in the fake's list), nothing at 113-31 itself.
    expect(olrc.requests.map((r) => r.path)).toEqual([
      '/download/download.shtml',
      '/download/priorreleasepoints.htm',
      zipPath('117-80', '01'),
      zipPath('117-80', '05a'),
    ]);
    expect(plan).toMatchObject({ current: '117-80', through: '117-80', held: 1 });
    expect(titles.map((t) => `${t.title}@${t.releasePoint} ${t.outcome}`)).toEqual(['01@117-80 ingested', '05a@117-80 failed']);
    expect(summary).toMatchObject({ ingested: 1, failed: 1, failures: ['5a@117-80 (download: CorruptZip)'], current: null });
    expect(summary.message).toMatch(
      /^fetch uscode: 1 ingested, 0 already held, 0 not published, 1 failed \(5a@117-80 \(download: CorruptZip\)\)$/,
    );
    expect(JSON.parse((await stores.ops.getMarker(CURRENT_MARKER))!)).toMatchObject({ releasePoint: '113-31' });
    expect((await inForce('1-112b', '2023-01-01'))?.provenance).toMatchObject({ sourceUrl: jobFor('117-80', '01').url });
    // The steps after an ingest ran: coverage is fresh and the audit has a run from this ingest.
    expect((await stores.ops.getCoverage())?.dirtySince).toBeNull();
    expect((await stores.ops.latestAuditRun('all'))?.run.trigger).toBe('ingest');
  });

  it('completes the rest on the next run and then records the store as current; the run after that reads one page', async () => {
    const { plan, titles, summary } = await run();

    expect(plan).toMatchObject({ held: 2 });
    expect(titles.map((t) => `${t.title}@${t.releasePoint} ${t.outcome}`)).toEqual(['05a@117-80 ingested']);
    expect(olrc.zipRequests().map((r) => r.path)).toEqual([zipPath('117-80', '05a')]);
    expect(summary).toMatchObject({ ingested: 1, failed: 0, current: '117-80' });
    expect(summary.message).toMatch(/the store is current through 117-80$/);
    expect(JSON.parse((await stores.ops.getMarker(CURRENT_MARKER))!)).toMatchObject({ releasePoint: '117-80' });

    olrc.requests.length = 0;
    const next = await check();
    expect(next).toEqual({
      plan: { source: olrc.url, current: '117-80', upToDate: true, through: '117-80', held: 0, deferred: 0 },
      titles: [],
    });
    expect(olrc.requests.map((r) => r.path)).toEqual(['/download/download.shtml']);
  });
});
