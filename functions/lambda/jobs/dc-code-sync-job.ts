import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILES_PER_BATCH, PUBLICATIONS_PER_BATCH, planPublicationBatches } from '#ingest/dc-git/publication-batches.ts';
import { listPublications } from '#ingest/dc-git/publications.ts';
import { fetchDefaultBranch } from '#ingest/dc-git/repository.ts';
import { dynamoStores } from '../dynamo-stores.ts';
import { type LambdaEnv, TABLE_ENV } from '../env.ts';
import type { JobContext } from '../job-entry.ts';
import { type GitPackStore, MissingPackError, restoreRepository } from './dc-code-repository.ts';
import { DC_CODE_ERRORS, DC_CODE_RUN, DC_CODE_STEP_EVENTS, type SyncPlan, type SyncResult } from './dc-code-steps.ts';
import { SourceStepError, sourceStepLambda, stepHandler } from './source-steps.ts';

/**
 * Publications planned per run at most: the run's state carries every batch's commits, and Step Functions limits a
 * state to 256 KB (1,000 commits are about 45 KB). The Council publishes some 70 a year; the rest wait for the next run.
 */
export const PUBLICATIONS_PER_RUN = 1_000;

export interface DcCodeSyncAdapters {
  packs: (env: LambdaEnv) => GitPackStore | null;
  /** Where the repository is rebuilt (Lambda's /tmp; a warm sandbox keeps the packs it already has). */
  workDir?: string;
  env?: LambdaEnv;
  now?: () => Date;
}

/** Network failures of a request that may pass: the remote was not reached, or dropped the connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A fetch's failure as the state machine sees it: a remote that may come back is retried with backoff, a refusal is not. */
function remoteErrorOf(err: unknown, remote: string): unknown {
  const e = err as { code?: string; caller?: string; data?: { statusCode?: number }; message?: string };
  const what = `cannot fetch the D.C. Code repository from ${remote}: ${e.message ?? String(err)}`;
  const status = e.code === 'HttpError' ? e.data?.statusCode : undefined;
  if (status !== undefined && status < 500 && status !== 429) return new SourceStepError(DC_CODE_ERRORS.remoteRefused, what);
  if (status !== undefined || NETWORK_CODES.has(e.code ?? '')) return new SourceStepError(DC_CODE_ERRORS.remoteUnavailable, what);
  // isomorphic-git's own errors of the fetch (an answer that is not git's smart HTTP): a server that is no git remote.
  if (e.caller === 'git.fetch') return new SourceStepError(DC_CODE_ERRORS.remoteRefused, what);
  return err;
}

/**
 * The scheduled D.C. Code sync's step that talks to the Council's remote (the function runs outside the VPC, bound to
 * the ops table to read and to the bucket's dc-code/ folder): `sync` rebuilds the repository from the bucket, fetches
 * the remote's default branch over smart HTTP (only what came after the commit held), stores the new pack and then the
 * manifest, and answers the publications on the line not yet ingested (no marker) in batches for the ingest step.
 * A remote that cannot be read fails the step before anything is stored or planned.
 */
export function dcCodeSyncHandler(adapters: DcCodeSyncAdapters) {
  const env = adapters.env ?? process.env;
  const { ops } = dynamoStores(env, 'job');
  if (!ops) throw new Error(`${TABLE_ENV.ops} is not set in the function's environment`);
  const packs = adapters.packs(env);
  const now = adapters.now ?? (() => new Date());
  const gitdir = join(adapters.workDir ?? join(tmpdir(), 'asof-dc-code'), 'repository.git');

  async function sync(remote: string, store: GitPackStore, { logger }: JobContext): Promise<SyncResult> {
    const log = (line: string) => logger.info(line);
    const manifest = await store.readManifest();
    if (manifest) {
      try {
        await restoreRepository(store, gitdir, manifest);
      } catch (err) {
        if (err instanceof MissingPackError) throw new SourceStepError(DC_CODE_ERRORS.repositoryNotInBucket, err.message);
        throw err;
      }
    } else {
      await rm(gitdir, { recursive: true, force: true });
    }
    log(`fetching ${remote} (held: ${manifest ? `${manifest.head}, ${manifest.packs.length} packs` : 'nothing'})`);
    let fetched: Awaited<ReturnType<typeof fetchDefaultBranch>>;
    try {
      fetched = await fetchDefaultBranch(gitdir, remote, log);
    } catch (err) {
      throw remoteErrorOf(err, remote);
    }
    let stored: SyncPlan['fetched'] = null;
    if (fetched.pack) {
      const bytes = await store.putPack(fetched.pack, join(gitdir, 'objects', 'pack'));
      stored = { pack: fetched.pack, bytes };
      logger.info('pack stored', { ...stored, origin: store.origin });
    }
    if (stored || manifest?.head !== fetched.head || manifest.remote !== remote) {
      await store.writeManifest({
        remote,
        head: fetched.head,
        fetchedAt: now().toISOString(),
        packs: [...(manifest?.packs ?? []), ...(stored ? [stored.pack] : [])],
      });
    }

    const repo = { gitdir, head: fetched.head, origin: remote, cache: {} };
    const line = await listPublications(repo, fetched.head);
    const { batches, ...counts } = await planPublicationBatches(repo, line, ops!, {
      files: FILES_PER_BATCH,
      publications: PUBLICATIONS_PER_BATCH,
      limit: PUBLICATIONS_PER_RUN,
    });
    const plan: SyncPlan = { remote, head: fetched.head, ...counts, fetched: stored };
    logger.info('publication batches', { ...plan, batches: batches.length });
    return { plan, batches: batches.map((b, i) => ({ batch: i + 1, of: batches.length, ...b })) };
  }

  return sourceStepLambda(
    'dc-code-sync',
    DC_CODE_RUN,
    'remote',
    { sync: stepHandler({ event: DC_CODE_STEP_EVENTS.sync, needsBucket: true, run: (e, ctx) => sync(e.request.remote, packs!, ctx) }) },
    packs !== null,
  );
}
