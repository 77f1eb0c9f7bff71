import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ingestedMarker, ingestTitleZip } from '#ingest/olrc/ingest-title.ts';
import { CURRENT_MARKER, currentRecord } from '#ingest/olrc/title-jobs.ts';
import { titleName } from '#ingest/olrc/titles.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import type { LambdaEnv } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';
import { finishRun, SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';
import { StoredZipError, type TitleZipStore, titleZipKey } from './title-zips.ts';
import { type FinishSummary, type TitleState, USCODE_ERRORS, USCODE_RUN, USCODE_STEP_EVENTS } from './uscode-steps.ts';

export interface UscodeIngestAdapters extends Pick<JobAdapters, 'search' | 'env' | 'now'> {
  zips: (env: LambdaEnv) => TitleZipStore | null;
  /** Where the zip and its XML are read (Lambda's /tmp). */
  workDir?: string;
}

/**
 * The scheduled US Code fetch's steps that write the stores (the function runs where the search index is, bound to
 * the bucket's olrc/ folder to read): `ingest` reads one title's zip back from the sources bucket (its checksum, size
 * and SHA-256 checked), ingests it under the store's ingest lease as `asof fetch uscode` does and writes the title's
 * marker; `finish` runs the steps after an ingest once for the whole run and, when the run brought every title to the
 * publisher's current release point, records that.
 */
export function uscodeIngestHandler(adapters: UscodeIngestAdapters) {
  const jobs = lambdaJobs(adapters);
  const env = adapters.env ?? process.env;
  const zips = adapters.zips(env);
  const now = adapters.now ?? (() => new Date());
  const workDir = adapters.workDir ?? join(tmpdir(), 'asof-olrc-ingest');
  // lambdaJobs has refused to load without the ops table: the markers are read and written there.
  const markers = dynamoStores(env, 'job').ops!;

  async function ingest(job: { releasePoint: string; title: string }, store: TitleZipStore, { logger }: JobContext) {
    const at = { releasePoint: job.releasePoint, title: job.title };
    const base = { ...job } as TitleState;
    if (await markers.getMarker(ingestedMarker(at.releasePoint, at.title))) return { ...base, outcome: 'held' as const };
    const key = titleZipKey(at.releasePoint, at.title);
    const file = join(workDir, key);
    await rm(workDir, { recursive: true, force: true });
    await mkdir(dirname(file), { recursive: true });
    try {
      const record = await store.get(key, file);
      logger.info('zip read back', { key, bytes: record.bytes, sha256: record.sha256 });
      const done = await ingestTitleZip(
        { ...record, file },
        at,
        { ingest: async (request, log) => (await jobs.ingest(request, log, { afterwards: false })).reports, markers, now },
        (line) => logger.info(line),
      );
      logger.info(`title ${titleName(at.title)} at ${at.releasePoint} ingested`, { ...done });
      return { ...base, outcome: 'ingested' as const, bytes: record.bytes, sections: done.sections, changedKeys: done.changedKeys };
    } catch (err) {
      if (err instanceof StoredZipError && err.missing) throw new SourceStepError(USCODE_ERRORS.zipNotInBucket, err.message);
      if (err instanceof StoredZipError) throw new SourceStepError(USCODE_ERRORS.corruptZip, err.message);
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  async function finish(plan: { through: string | null; deferred: number }, titles: readonly TitleState[], ctx: JobContext) {
    const count = (outcome: TitleState['outcome']) => titles.filter((t) => t.outcome === outcome).length;
    const changedKeys = titles.reduce((n, t) => n + (t.changedKeys ?? 0), 0);
    const { failed, failures } = await finishRun(
      titles,
      {
        describe: (t) => `${titleName(t.title)}@${t.releasePoint} (${t.step ?? 'unknown step'}: ${t.error ?? 'unknown error'})`,
        changed: (t) => (t.changedKeys ?? 0) > 0,
        afterIngest: (log) => jobs.afterIngest(log),
      },
      ctx,
    );
    const current = plan.through && failed.length === 0 ? plan.through : null;
    if (current) await markers.putMarker(CURRENT_MARKER, currentRecord(current, now()));
    const summary: Omit<FinishSummary, 'message'> = {
      ingested: count('ingested'),
      held: count('held'),
      notPublished: count('not-published'),
      failed: failed.length,
      failures,
      changedKeys,
      current,
      deferred: plan.deferred,
    };
    const message =
      `fetch uscode: ${summary.ingested} ingested, ${summary.held} already held, ${summary.notPublished} not published, ` +
      `${summary.failed} failed${failures.length ? ` (${failures.join(', ')})` : ''}` +
      (current ? `; the store is current through ${current}` : '') +
      (plan.deferred ? `; ${plan.deferred} titles left for the next run` : '');
    return { ...summary, message } satisfies FinishSummary;
  }

  return sourceStepLambda(
    'uscode-ingest',
    USCODE_RUN,
    'stores',
    {
      ingest: stepHandler({ event: USCODE_STEP_EVENTS.ingest, needsBucket: true, run: (e, ctx) => ingest(e.job, zips!, ctx) }),
      finish: stepHandler({ event: USCODE_STEP_EVENTS.finish, run: (e, ctx) => finish(e.plan, e.titles as TitleState[], ctx) }),
    },
    zips !== null,
  );
}
