import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FetchLike, PublisherError, type Timeouts } from '#ingest/olrc/http.ts';
import { fetchFile } from '#ingest/state-codes/fetch.ts';
import { publisherSource, stateCodeFormat, titleFilePath } from '#ingest/state-codes/formats.ts';
import type { OpsStore } from '#ops/ports.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import { type LambdaEnv, TABLE_ENV } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';
import {
  type FetchOutcome,
  type FileJob,
  type FileState,
  STATE_CODE_ERRORS,
  STATE_CODE_RUN,
  STATE_CODE_STEP_EVENTS,
  type StateCodePlanResult,
  type StateCodeRequest,
  stateCodeRequestSchema,
  stateFileKey,
  stateFileMarker,
} from './state-code-steps.ts';
import { isTitleFile, type StateFileStore } from './state-files.ts';

/** Files planned per run at most: the state machine carries every file's state, and a state is limited to 256 KB. */
export const FILES_PER_RUN = 500;

export interface StateCodeFetchAdapters {
  files: (env: LambdaEnv) => StateFileStore | null;
  /** Default: Node's fetch. */
  fetch?: FetchLike;
  /** Default: the publisher waits of the CLI. */
  timeouts?: Timeouts;
  /** Where a file is checked before it is stored (Lambda's /tmp). */
  workDir?: string;
  env?: LambdaEnv;
}

const isAddress = (source: string) => /^https?:\/\//i.test(source);

/** A publisher's failure as the state machine sees it: transient ones are retried with backoff, the rest fail the file. */
function stepErrorOf(err: PublisherError): SourceStepError {
  if (err.failure === 'corrupt') return new SourceStepError(STATE_CODE_ERRORS.corruptFile, err.message);
  return new SourceStepError(err.transient ? STATE_CODE_ERRORS.publisherUnavailable : STATE_CODE_ERRORS.publisherRefused, err.message);
}

/**
 * A state-code sync's steps that reach the publisher (the function runs outside the VPC, bound to the ops table to
 * read and to the bucket's state-codes/ folder): `plan` answers the releases × titles asked for (default: every
 * release the configuration lists, its default titles) that no marker says are ingested; `fetch` reads one title
 * file from the source (an address in the publisher's layout, by default its raw files at the configured commit, or
 * a folder), checks that it is a title file and only then stores it in the bucket. A file the store already holds,
 * or the bucket already has, is not read again; one the source does not have is noted, not failed.
 */
export function stateCodeFetchHandler(adapters: StateCodeFetchAdapters) {
  const env = adapters.env ?? process.env;
  const { ops } = dynamoStores(env, 'job');
  if (!ops) throw new Error(`${TABLE_ENV.ops} is not set in the function's environment`);
  const files = adapters.files(env);
  const fetchLike: FetchLike = adapters.fetch ?? ((url, init) => fetch(url, init));
  const workDir = adapters.workDir ?? join(tmpdir(), 'asof-state-codes');
  const timeouts = adapters.timeouts;

  async function plan(
    request: StateCodeRequest,
    markers: Pick<OpsStore, 'getMarker'>,
    { logger }: JobContext,
  ): Promise<StateCodePlanResult> {
    const req = stateCodeRequestSchema.parse(request);
    const format = stateCodeFormat(req.state);
    const source = (req.source ?? publisherSource(format)).replace(/\/+$/, '');
    const known = new Set(format.releases.map((r) => r.release));
    const unknown = (req.releases ?? []).filter((r) => !known.has(r));
    if (unknown.length)
      throw new SourceStepError(
        STATE_CODE_ERRORS.refused,
        `${format.state}: no release ${unknown.join(', ')} (configured: ${[...known].join(', ')})`,
      );
    const wanted: FileJob[] = [];
    for (const release of req.releases ?? [...known]) {
      for (const title of req.titles ?? format.defaultTitles) {
        const path = titleFilePath(format, release, title);
        wanted.push({ state: format.state, release, title, path, from: isAddress(source) ? `${source}/${path}` : join(source, path) });
      }
    }
    const pending: FileJob[] = [];
    for (const job of wanted) if (!(await markers.getMarker(stateFileMarker(job.path)))) pending.push(job);
    const jobs = pending.slice(0, FILES_PER_RUN);
    const summary = {
      state: format.state,
      source,
      files: wanted.length,
      held: wanted.length - pending.length,
      pending: jobs.length,
      deferred: pending.length - jobs.length,
    };
    logger.info('title files', summary);
    return { plan: summary, files: jobs };
  }

  async function fetchOne(job: FileJob, store: StateFileStore, markers: Pick<OpsStore, 'getMarker'>, { logger }: JobContext) {
    const done = (outcome: FetchOutcome, bytes?: number): FileState => ({ ...job, outcome, ...(bytes !== undefined && { bytes }) });
    if (await markers.getMarker(stateFileMarker(job.path))) return done('held');
    const key = stateFileKey(job.path);
    const stored = await store.find(key);
    if (stored !== null) return done('in-bucket', stored);

    let bytes: Buffer;
    if (isAddress(job.from)) {
      const target = join(workDir, job.path);
      await rm(workDir, { recursive: true, force: true });
      try {
        await fetchFile({ fetch: fetchLike, ...(timeouts && { timeouts }) }, job.from, target);
        bytes = await readFile(target);
      } catch (err) {
        if (!(err instanceof PublisherError)) throw err;
        if (err.failure === 'not-published') {
          logger.info('not at the source', { file: job.path, reason: err.message });
          return done('not-published');
        }
        throw stepErrorOf(err);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    } else {
      const read = await readFile(job.from).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (!read) {
        logger.info('not at the source', { file: job.path });
        return done('not-published');
      }
      bytes = read;
    }
    if (!isTitleFile(bytes))
      throw new SourceStepError(STATE_CODE_ERRORS.corruptFile, `${job.from}: not a title file of the publisher's (no release line)`);
    await store.put(key, bytes);
    logger.info('file stored', { key, bytes: bytes.length });
    return done('fetched', bytes.length);
  }

  return sourceStepLambda(
    'state-code-fetch',
    STATE_CODE_RUN,
    'remote',
    {
      plan: stepHandler({ event: STATE_CODE_STEP_EVENTS.plan, run: (e, ctx) => plan(e.request, ops, ctx) }),
      fetch: stepHandler({ event: STATE_CODE_STEP_EVENTS.fetch, needsBucket: true, run: (e, ctx) => fetchOne(e.job, files!, ops, ctx) }),
    },
    files !== null,
  );
}
