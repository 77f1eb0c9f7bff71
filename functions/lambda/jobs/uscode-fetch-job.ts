import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadTitleZip } from '#ingest/olrc/download.ts';
import { type FetchLike, PublisherError, type Timeouts } from '#ingest/olrc/http.ts';
import { ingestedMarker } from '#ingest/olrc/ingest-title.ts';
import { ReleasePointError } from '#ingest/olrc/release-points.ts';
import { planTitleJobs } from '#ingest/olrc/title-jobs.ts';
import { TitleCodeError } from '#ingest/olrc/titles.ts';
import { SourceError } from '#ingest/olrc/urls.ts';
import type { OpsStore } from '#ops/ports.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import { type LambdaEnv, TABLE_ENV } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';
import { type TitleZipStore, titleZipKey } from './title-zips.ts';
import {
  type CheckResult,
  type DownloadOutcome,
  type TitleJobEvent,
  type TitleState,
  USCODE_ERRORS,
  USCODE_RUN,
  USCODE_STEP_EVENTS,
} from './uscode-steps.ts';

/** Title jobs per run at most: the state machine carries every title's state, and a state is limited to 256 KB. */
export const TITLE_JOBS_PER_RUN = 200;

export interface UscodeFetchAdapters {
  zips: (env: LambdaEnv) => TitleZipStore | null;
  /** Default: Node's fetch. */
  fetch?: FetchLike;
  /** Default: the publisher waits of the CLI (30 s to the headers, 60 s without a byte). */
  timeouts?: Timeouts;
  /** Where a zip is checked before it is stored (Lambda's /tmp). */
  workDir?: string;
  env?: LambdaEnv;
  now?: () => Date;
}

/** A publisher's failure as the state machine sees it: transient ones are retried with backoff, the rest fail the title. */
function stepErrorOf(err: PublisherError): SourceStepError {
  if (err.failure === 'corrupt') return new SourceStepError(USCODE_ERRORS.corruptZip, err.message);
  return new SourceStepError(err.transient ? USCODE_ERRORS.publisherUnavailable : USCODE_ERRORS.publisherRefused, err.message);
}

/**
 * The scheduled US Code fetch's steps that talk to the publisher (the function runs outside the VPC, bound to the ops
 * table to read and to the bucket's olrc/ folder): `check` reads the publisher's pages and answers the title jobs the
 * store lacks; `download` fetches one title's zip, checks it (CRC-32, one usc<TT>.xml) on /tmp and only then streams it
 * into the sources bucket. A title the store already holds, or whose checked zip the bucket already has, is not
 * requested again.
 */
export function uscodeFetchHandler(adapters: UscodeFetchAdapters) {
  const env = adapters.env ?? process.env;
  const { ops } = dynamoStores(env, 'job');
  if (!ops) throw new Error(`${TABLE_ENV.ops} is not set in the function's environment`);
  const zips = adapters.zips(env);
  const fetchLike: FetchLike = adapters.fetch ?? ((url, init) => fetch(url, init));
  const now = adapters.now ?? (() => new Date());
  const workDir = adapters.workDir ?? join(tmpdir(), 'asof-olrc');
  const timeouts = adapters.timeouts;

  async function check(request: Parameters<typeof planTitleJobs>[0], { logger }: JobContext): Promise<CheckResult> {
    let plan: Awaited<ReturnType<typeof planTitleJobs>>;
    try {
      plan = await planTitleJobs(request, { fetch: fetchLike, markers: ops!, limit: TITLE_JOBS_PER_RUN, ...(timeouts && { timeouts }) });
    } catch (err) {
      if (err instanceof PublisherError) throw stepErrorOf(err);
      // A title or release point that is no such thing, or a publisher's list without the one named: trying again cannot help.
      if (err instanceof TitleCodeError || err instanceof SourceError || err instanceof ReleasePointError)
        throw new SourceStepError(USCODE_ERRORS.refused, err.message);
      throw err;
    }
    const { jobs, ...summary } = plan;
    logger.info('title jobs', { ...summary, jobs: jobs.length });
    return { plan: summary, titles: jobs };
  }

  async function download(job: TitleJobEvent, store: TitleZipStore, markers: Pick<OpsStore, 'getMarker'>, { logger }: JobContext) {
    const done = (outcome: DownloadOutcome, bytes?: number): TitleState => ({ ...job, outcome, ...(bytes !== undefined && { bytes }) });
    if (await markers.getMarker(ingestedMarker(job.releasePoint, job.title))) return done('held');
    const key = titleZipKey(job.releasePoint, job.title);
    const stored = await store.find(key);
    if (stored) return done('in-bucket', stored.bytes);

    // One title at a time per sandbox; whatever an earlier run left here is not reused.
    await rm(workDir, { recursive: true, force: true });
    try {
      const zip = await downloadTitleZip({
        fetch: fetchLike,
        url: job.url,
        file: join(workDir, key),
        title: job.title,
        now,
        log: (line) => logger.info(line),
        ...(timeouts && { timeouts }),
      });
      const { file, transferred, resumedFrom, ...record } = zip;
      await store.put(key, file, record);
      logger.info('zip stored', { key, bytes: record.bytes, sha256: record.sha256, entry: record.entry, xmlBytes: record.xmlBytes });
      return done('downloaded', record.bytes);
    } catch (err) {
      if (!(err instanceof PublisherError)) throw err;
      if (err.failure === 'not-published' && !job.named) {
        logger.info('not published at this release point', { reason: err.message });
        return done('not-published');
      }
      throw stepErrorOf(err);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  return sourceStepLambda(
    'uscode-fetch',
    USCODE_RUN,
    'remote',
    {
      check: stepHandler({ event: { request: USCODE_STEP_EVENTS.check.request }, run: (e, ctx) => check(e.request, ctx) }),
      download: stepHandler({ event: USCODE_STEP_EVENTS.download, needsBucket: true, run: (e, ctx) => download(e.job, zips!, ops, ctx) }),
    },
    zips !== null,
  );
}
