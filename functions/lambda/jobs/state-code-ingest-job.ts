import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoStores } from '../dynamo-stores.ts';
import type { LambdaEnv } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';
import { finishRun, SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';
import {
  type FileJob,
  type FileState,
  STATE_CODE_ERRORS,
  STATE_CODE_RUN,
  STATE_CODE_STEP_EVENTS,
  type StateCodeFinishSummary,
  type StateCodePlan,
  stateFileKey,
  stateFileMarker,
} from './state-code-steps.ts';
import { StateFileMissingError, type StateFileStore } from './state-files.ts';

export interface StateCodeIngestAdapters extends Pick<JobAdapters, 'search' | 'env' | 'now'> {
  files: (env: LambdaEnv) => StateFileStore | null;
  /** Where a file is read (Lambda's /tmp). */
  workDir?: string;
}

/**
 * A state-code sync's steps that write the stores (the function runs where the search index is, bound to the
 * bucket's state-codes/ folder to read): `ingest` reads one title file back from the bucket, under its publisher's
 * path (which names its release), ingests it under the store's ingest lease as `asof fetch state-code` does, and
 * writes the file's marker; `finish` runs the steps after an ingest once for the whole run and sums it up.
 */
export function stateCodeIngestHandler(adapters: StateCodeIngestAdapters) {
  const jobs = lambdaJobs(adapters);
  const env = adapters.env ?? process.env;
  const files = adapters.files(env);
  const now = adapters.now ?? (() => new Date());
  const workDir = adapters.workDir ?? join(tmpdir(), 'asof-state-codes-ingest');
  // lambdaJobs has refused to load without the ops table: the markers are read and written there.
  const markers = dynamoStores(env, 'job').ops!;

  async function ingest(job: FileJob, store: StateFileStore, { logger }: JobContext): Promise<FileState> {
    const base: FileJob = { state: job.state, release: job.release, title: job.title, path: job.path, from: job.from };
    if (await markers.getMarker(stateFileMarker(job.path))) return { ...base, outcome: 'held' };
    const file = join(workDir, job.path);
    await rm(workDir, { recursive: true, force: true });
    try {
      const bytes = await store.get(stateFileKey(job.path), file);
      const { reports } = await jobs.ingest({ kind: 'state-code', state: job.state, paths: [file] }, (line) => logger.info(line), {
        afterwards: false,
      });
      const changedEditions = reports.filter((r) => !r.unchanged && r.changedKeys + r.absentKeys > 0).length;
      await markers.putMarker(stateFileMarker(job.path), JSON.stringify({ from: job.from, bytes, ingestedAt: now().toISOString() }));
      logger.info(`${job.path} ingested`, { editions: reports.length, changedEditions });
      return { ...base, outcome: 'ingested', bytes, editions: reports.length, changedEditions };
    } catch (err) {
      if (err instanceof StateFileMissingError) throw new SourceStepError(STATE_CODE_ERRORS.fileNotInBucket, err.message);
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  async function finish(plan: Pick<StateCodePlan, 'state' | 'deferred'>, states: readonly FileState[], ctx: JobContext) {
    const count = (outcome: FileState['outcome']) => states.filter((f) => f.outcome === outcome).length;
    const sum = (field: 'editions' | 'changedEditions') => states.reduce((n, f) => n + (f[field] ?? 0), 0);
    const { failed, failures } = await finishRun(
      states,
      {
        describe: (f) => `r${f.release}/${f.path.split('/').at(-1)} (${f.step ?? 'unknown step'}: ${f.error ?? 'unknown error'})`,
        changed: (f) => (f.changedEditions ?? 0) > 0,
        afterIngest: (log) => jobs.afterIngest(log),
      },
      ctx,
    );
    const summary: Omit<StateCodeFinishSummary, 'message'> = {
      ingested: count('ingested'),
      held: count('held'),
      notPublished: count('not-published'),
      failed: failed.length,
      failures,
      editions: sum('editions'),
      changedEditions: sum('changedEditions'),
      deferred: plan.deferred,
    };
    const message =
      `sync ${plan.state} code: ${summary.ingested} file(s) ingested (${summary.changedEditions} edition(s) changed), ` +
      `${summary.held} already held, ${summary.notPublished} not at the source, ${summary.failed} failed` +
      (failures.length ? ` (${failures.join(', ')})` : '') +
      (plan.deferred ? `; ${plan.deferred} files left for the next run` : '');
    return { ...summary, message } satisfies StateCodeFinishSummary;
  }

  return sourceStepLambda(
    'state-code-ingest',
    STATE_CODE_RUN,
    'stores',
    {
      ingest: stepHandler({ event: STATE_CODE_STEP_EVENTS.ingest, needsBucket: true, run: (e, ctx) => ingest(e.job, files!, ctx) }),
      finish: stepHandler({ event: STATE_CODE_STEP_EVENTS.finish, run: (e, ctx) => finish(e.plan, e.files as FileState[], ctx) }),
    },
    files !== null,
  );
}
