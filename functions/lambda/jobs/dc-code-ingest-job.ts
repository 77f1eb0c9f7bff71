import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestPublications, publicationMarker } from '#ingest/dc-git/ingest-publications.ts';
import { type Publication, publicationAt } from '#ingest/dc-git/publications.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import type { LambdaEnv } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { type GitPackStore, MissingPackError, restoreRepository } from './dc-code-repository.ts';
import {
  type BatchJob,
  type BatchState,
  DC_CODE_ERRORS,
  DC_CODE_RUN,
  DC_CODE_STEP_EVENTS,
  type FinishSummary,
  type SyncPlan,
} from './dc-code-steps.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';
import { finishRun, SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';

export interface DcCodeIngestAdapters extends Pick<JobAdapters, 'search' | 'env' | 'now'> {
  packs: (env: LambdaEnv) => GitPackStore | null;
  /** Where the repository is rebuilt (Lambda's /tmp; a warm sandbox keeps the packs it already has). */
  workDir?: string;
}

/**
 * The scheduled D.C. Code sync's steps that write the stores (the function runs where the search index is, bound to
 * the bucket's dc-code/ folder to read): `ingest` rebuilds the repository from the bucket and ingests one batch of
 * publications, in order, as `asof fetch dc-code` does (a marker per publication once its ingest completed; a marked
 * one is skipped, so a retried or re-run batch changes nothing); a batch whose predecessor on the line is not ingested
 * (an earlier batch failed) is not ingested out of order but answered `blocked`. `finish` runs the steps after an
 * ingest once for the run and sums it up.
 */
export function dcCodeIngestHandler(adapters: DcCodeIngestAdapters) {
  const jobs = lambdaJobs(adapters);
  const env = adapters.env ?? process.env;
  const packs = adapters.packs(env);
  const now = adapters.now ?? (() => new Date());
  const gitdir = join(adapters.workDir ?? join(tmpdir(), 'asof-dc-code-ingest'), 'repository.git');
  // lambdaJobs has refused to load without the ops table: the markers are read and written there.
  const markers = dynamoStores(env, 'job').ops!;

  async function ingest(batch: BatchJob, store: GitPackStore, { logger }: JobContext): Promise<BatchState> {
    const log = (line: string) => logger.info(line);
    if (batch.after && !(await markers.getMarker(publicationMarker(batch.after)))) {
      logger.warn('an earlier publication is not ingested: this batch waits for it', { after: batch.after });
      return { ...batch, outcome: 'blocked' };
    }
    const manifest = await store.readManifest();
    if (!manifest)
      throw new SourceStepError(DC_CODE_ERRORS.repositoryNotInBucket, `${store.origin}: no repository stored (the sync step stores it)`);
    try {
      await restoreRepository(store, gitdir, manifest);
      const repo = { gitdir, head: manifest.head, origin: manifest.remote, cache: {} };
      const publications: Publication[] = [];
      for (const commit of batch.commits) publications.push(await publicationAt(repo, commit));
      const done = await ingestPublications(
        repo,
        publications,
        { ingest: async (request, l) => (await jobs.ingest(request, l, { afterwards: false })).reports, markers, now },
        log,
        { first: batch.first, of: batch.first + batch.commits.length - 1 },
      );
      logger.info(`batch ${batch.batch} of ${batch.of} done`, { ...done });
      return { ...batch, outcome: done.ingested ? 'ingested' : 'held', ...done };
    } catch (err) {
      if (err instanceof MissingPackError) throw new SourceStepError(DC_CODE_ERRORS.repositoryNotInBucket, err.message);
      throw err;
    }
  }

  async function finish(plan: Pick<SyncPlan, 'deferred' | 'head'>, batches: readonly BatchState[], ctx: JobContext) {
    const sum = (field: 'ingested' | 'held' | 'versionsWritten' | 'sectionsEnded') => batches.reduce((n, b) => n + (b[field] ?? 0), 0);
    const blocked = batches.filter((b) => b.outcome === 'blocked');
    const { failed, failures } = await finishRun(
      batches,
      {
        describe: (b) =>
          `batch ${b.batch} of ${b.of} (publications ${b.first}–${b.first + b.commits.length - 1}): ${b.error ?? 'unknown error'}`,
        changed: (b) => b.changed === true,
        afterIngest: (log) => jobs.afterIngest(log),
      },
      ctx,
    );
    const summary: Omit<FinishSummary, 'message'> = {
      ingested: sum('ingested'),
      held: sum('held'),
      versionsWritten: sum('versionsWritten'),
      sectionsEnded: sum('sectionsEnded'),
      failed: failed.length,
      blocked: blocked.length,
      failures,
      deferred: plan.deferred,
    };
    const message =
      `sync dc-code to ${plan.head.slice(0, 12)}: ${summary.ingested} publication(s) ingested, ${summary.versionsWritten} versions written, ` +
      `${summary.sectionsEnded} sections ended` +
      (failed.length ? `; ${failed.length} batch(es) failed (${failures.join('; ')})` : '') +
      (blocked.length ? `; ${blocked.length} later batch(es) not run, waiting for them` : '') +
      (plan.deferred ? `; ${plan.deferred} publications left for the next run` : '');
    return { ...summary, message } satisfies FinishSummary;
  }

  return sourceStepLambda(
    'dc-code-ingest',
    DC_CODE_RUN,
    'stores',
    {
      ingest: stepHandler({ event: DC_CODE_STEP_EVENTS.ingest, needsBucket: true, run: (e, ctx) => ingest(e.batch, packs!, ctx) }),
      finish: stepHandler({ event: DC_CODE_STEP_EVENTS.finish, run: (e, ctx) => finish(e.plan, e.batches as BatchState[], ctx) }),
    },
    packs !== null,
  );
}
