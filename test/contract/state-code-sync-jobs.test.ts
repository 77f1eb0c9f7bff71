/**
 * A state-code sync's Lambda steps (functions/lambda/jobs/state-code-*.ts, built by the step factory of
 * source-steps.ts from STATE_CODE_RUN), run for real: the source a local folder in the publisher's layout (the repo's
 * data/states, Tennessee's real title files), a local S3 that checks checksums as S3 does (test/support/fake-s3.ts,
 * through the SDK's endpoint override) and the embedded stores (DynamoDB on dynalite, as a deployed job function
 * reaches it). The steps are driven as the state machine does (lib/source-sync-machine.ts): plan → a fetch per file
 * → an ingest per fetched file → finish.
 *
 * One story on one store set: refusals, a first run of two releases of a title (and a title the source lacks), a
 * run with nothing new, then the faults: a corrupt file, a file missing from the bucket, a failed file in the finish.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { s3StateFiles } from '#lambda/adapters/s3-state-files.ts';
import { ENV } from '#lambda/env.ts';
import { stateCodeFetchHandler } from '#lambda/jobs/state-code-fetch-job.ts';
import { stateCodeIngestHandler } from '#lambda/jobs/state-code-ingest-job.ts';
import {
  type FileJob,
  type FileState,
  STATE_CODE_RUN,
  type StateCodeFinishSummary,
  type StateCodePlanResult,
  stateFileKey,
  stateFileMarker,
} from '#lambda/jobs/state-code-steps.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { type FakeS3, startFakeS3 } from '../support/fake-s3.ts';
import { lambdaContext as context, deployedLambdaEnv } from './lambda-env.ts';

const STATES = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/states');
const BUCKET = 'asof-test-sources';
/** Tennessee's title 15 (the smallest bundled) at two releases, 2020-09-01 and 2020-09-30. */
const R72 = 'transforms/tn/octn/r72/gov.tn.tca.title.15.html';
const R73 = 'transforms/tn/octn/r73/gov.tn.tca.title.15.html';

let s3: FakeS3;
let stores: DynaliteStores;
let env: Record<string, string>;
let work: string;
const saved = { ...process.env };

let fetchStep: ReturnType<typeof stateCodeFetchHandler>;
let ingestStep: ReturnType<typeof stateCodeIngestHandler>;
const plan = async (request: Record<string, unknown>) =>
  (await fetchStep({ step: 'plan', request: { state: 'tn', source: STATES, ...request } }, context('plan'))) as StateCodePlanResult;
const fetchFile = async (job: FileJob) => (await fetchStep({ step: 'fetch', job }, context('fetch'))) as FileState;
const ingest = async (job: FileState) => (await ingestStep({ step: 'ingest', job }, context('ingest'))) as FileState;
const finish = async (p: StateCodePlanResult['plan'], files: FileState[]) =>
  (await ingestStep({ step: 'finish', plan: p, files }, context('finish'))) as StateCodeFinishSummary;
const inForce = (key: string, date: string) => stores.versions.findInForce({ jurisdiction: 'tn', corpus: 'statutes', key }, date);

beforeAll(async () => {
  [s3, stores] = await Promise.all([startFakeS3(), openDynaliteStores()]);
  s3.createBucket(BUCKET);
  env = deployedLambdaEnv(
    stores.dynamo,
    { versions: LOCAL_TABLES.versions, ops: LOCAL_TABLES.ops },
    { AWS_ENDPOINT_URL_S3: s3.url, [ENV.sourcesBucket]: BUCKET },
  );
  Object.assign(process.env, env);
  work = await mkdtemp(join(tmpdir(), 'asof-state-code-jobs-'));
  fetchStep = stateCodeFetchHandler({ files: s3StateFiles, env, workDir: join(work, 'fetch') });
  ingestStep = stateCodeIngestHandler({ search: () => stores.search, files: s3StateFiles, env, workDir: join(work, 'ingest') });
});

afterAll(async () => {
  process.env = saved;
  await Promise.all([s3?.close(), stores?.close()]);
  await rm(work, { recursive: true, force: true });
});

beforeEach(() => {
  s3.requests.length = 0;
});

describe('the functions load as deployed', () => {
  it('loads both entries with the environment a deployed function gets, without calling AWS', async () => {
    for (const entry of ['state-code-fetch', 'state-code-ingest']) {
      const loaded = (await import(`../../functions/lambda/jobs/${entry}.ts`)) as { handler?: unknown };
      expect(typeof loaded.handler, entry).toBe('function');
    }
  });
});

describe('a step event it can never run', () => {
  it.each([
    ['a state not configured', { step: 'plan', request: { state: 'zz' } }, /must be a configured state/],
    ['a source that is neither an address nor a folder', { step: 'plan', request: { state: 'tn', source: 'ftp://x' } }, /source/],
    ['a field it does not know', { step: 'plan', request: { state: 'tn', since: 72 } }, /since/],
    ['a step of the other function', { step: 'ingest', job: {} }, /step/],
  ])('refuses %s with StateCodeStepRefused, reaching nothing', async (_what, event, message) => {
    await expect(fetchStep(event, context('refused'))).rejects.toMatchObject({ name: STATE_CODE_RUN.refused, message });
    expect(s3.requests).toEqual([]);
  });

  it('refuses a release the configuration does not list', async () => {
    await expect(plan({ releases: [71] })).rejects.toMatchObject({ name: 'StateCodeStepRefused', message: /no release 71/ });
  });
});

describe('a first run', () => {
  let first: StateCodePlanResult;
  let fetched: FileState[];

  it('plans the releases × titles asked for, none held yet', async () => {
    first = await plan({ releases: [72, 73], titles: ['15', '99'] });
    expect(first.plan).toEqual({ state: 'tn', source: STATES, files: 4, held: 0, pending: 4, deferred: 0 });
    expect(first.files.map((f) => [f.release, f.title, f.path])).toEqual([
      [72, '15', R72],
      [72, '99', 'transforms/tn/octn/r72/gov.tn.tca.title.99.html'],
      [73, '15', R73],
      [73, '99', 'transforms/tn/octn/r73/gov.tn.tca.title.99.html'],
    ]);
  });

  it('fetches each file into the bucket byte for byte, and notes the title the source lacks without failing', async () => {
    fetched = [];
    for (const job of first.files) fetched.push(await fetchFile(job));
    expect(fetched.map((f) => f.outcome)).toEqual(['fetched', 'not-published', 'fetched', 'not-published']);
    expect(fetched[0]!.bytes).toBe(50008);
    expect(s3.get(BUCKET, stateFileKey(R72))?.body.length).toBe(50008);
    expect(s3.get(BUCKET, stateFileKey(R73))?.body.length).toBe(58001);
    // Fetched again (a retried invocation): found in the bucket, not read again.
    expect(await fetchFile(first.files[0]!)).toMatchObject({ outcome: 'in-bucket', bytes: 50008 });
  });

  it('ingests each fetched file: two editions of title 15, a section in force at each release’s date', async () => {
    const ingested: FileState[] = [];
    for (const f of fetched) ingested.push(f.outcome === 'fetched' ? await ingest(f) : f);
    expect(ingested.filter((f) => f.outcome === 'ingested').map((f) => [f.release, f.editions])).toEqual([
      [72, 1],
      [73, 1],
    ]);
    expect((await inForce('15-1-101', '2020-09-15'))?.validFrom).toMatch(/^2020-09-01T/);
    expect(await stores.ops.getMarker(stateFileMarker(R72))).toContain('"bytes":50008');
    const summary = await finish(first.plan, ingested);
    expect(summary).toMatchObject({ ingested: 2, held: 0, notPublished: 2, failed: 0, failures: [], editions: 2 });
    expect(summary.changedEditions).toBeGreaterThan(0);
    expect(summary.message).toMatch(/^sync tn code: 2 file\(s\) ingested/);
  });

  it('a run with nothing new plans nothing of what was ingested, reading no file', async () => {
    const again = await plan({ releases: [72, 73], titles: ['15'] });
    expect(again.plan).toMatchObject({ files: 2, held: 2, pending: 0 });
    expect(again.files).toEqual([]);
    expect(s3.requests).toEqual([]);
    // A step run again for a held file (its answer lost) writes nothing.
    const job = first.files[0]!;
    expect(await fetchFile(job)).toEqual({ ...job, outcome: 'held' });
    expect(await ingest({ ...job, outcome: 'in-bucket' })).toEqual({ ...job, outcome: 'held' });
    expect(s3.requests.filter((r) => r.startsWith('PUT '))).toEqual([]);
  });
});

describe('the faults', () => {
  it('refuses a file that is not a title file: CorruptFile, nothing stored', async () => {
    const folder = join(work, 'corrupt');
    await cp(join(STATES, 'transforms/tn/octn/r74'), join(folder, 'transforms/tn/octn/r74'), { recursive: true });
    await writeFile(join(folder, 'transforms/tn/octn/r74/gov.tn.tca.title.15.html'), '<html><body>Rate limited</body></html>');
    const [job] = (await plan({ source: folder, releases: [74], titles: ['15'] })).files;
    await expect(fetchFile(job!)).rejects.toMatchObject({ name: 'CorruptFile', message: /not a title file/ });
    expect(s3.get(BUCKET, stateFileKey(job!.path))).toBeUndefined();
  });

  it('an ingest whose file the bucket lacks fails with FileNotInBucket, writing nothing', async () => {
    const [job] = (await plan({ releases: [75], titles: ['15'] })).files;
    await expect(ingest({ ...job!, outcome: 'fetched' })).rejects.toMatchObject({ name: 'FileNotInBucket' });
    expect(await stores.ops.getMarker(stateFileMarker(job!.path))).toBeNull();
  });

  it('a finish given a failed file fails the run’s summary, naming the file, its step and its error', async () => {
    const p = await plan({ releases: [75], titles: ['15'] });
    const failed: FileState = { ...p.files[0]!, outcome: 'failed', step: 'fetch', error: 'PublisherUnavailable' };
    const summary = await finish(p.plan, [failed]);
    expect(summary).toMatchObject({ ingested: 0, failed: 1, failures: ['r75/gov.tn.tca.title.15.html (fetch: PublisherUnavailable)'] });
    expect(summary.message).toContain('1 failed (r75/gov.tn.tca.title.15.html (fetch: PublisherUnavailable))');
  });
});
