import * as z from 'zod';
import { DC_COUNCIL_REMOTE } from '#ingest/dc-git/remote.ts';
import { SOURCE_STEP_ERRORS, type SourceRunShape } from './source-steps.ts';

/**
 * The steps of the scheduled D.C. Code sync, as its state machine (lib/source-sync-machine.ts, from DC_CODE_RUN) passes them to the two
 * functions: `sync` runs in the function that talks to the Council's remote (dc-code-sync), `ingest` and `finish` in
 * the one that writes the stores (dc-code-ingest). The errors a step throws are named (Lambda reports an error's
 * `name` as its type, which the state machine's retry rules match).
 */
export const DC_CODE_ERRORS = {
  /** A step event that can never run as given: never retried. */
  refused: 'DcCodeStepRefused',
  /** The remote could not be reached, cut the answer or failed (5xx, 429): trying again later may help. */
  remoteUnavailable: 'RemoteUnavailable',
  /** The remote refused (4xx other than 429: no such repository, no access) or answered what is not a git repository. */
  remoteRefused: 'RemoteRefused',
  /** The sources bucket holds no repository yet, or not a pack its manifest names: the sync step stores them first. */
  repositoryNotInBucket: 'RepositoryNotInBucket',
  ingestBusy: SOURCE_STEP_ERRORS.ingestBusy,
} as const;

const commit = z.string().regex(/^[0-9a-f]{40}$/, { message: 'must be a commit id (40 hex digits)' });

/** What a run is asked: the remote to pull from (default: the Council's repository). */
export const syncRequestSchema = z.strictObject({ remote: z.url({ protocol: /^https?$/ }).default(DC_COUNCIL_REMOTE) });
export type SyncRequest = z.input<typeof syncRequestSchema>;

const batch = z.strictObject({
  batch: z.number().int().positive(),
  of: z.number().int().positive(),
  commits: z.array(commit).min(1),
  files: z.number().int().nonnegative(),
  first: z.number().int().positive(),
  after: commit.nullable(),
});
export type BatchJob = z.output<typeof batch>;

/** What became of a batch: ingested (or found held: a retry, a re-run), blocked (an earlier batch is not in), failed. */
export const BATCH_OUTCOMES = ['ingested', 'held', 'blocked', 'failed'] as const;
const batchState = batch.extend({
  outcome: z.enum(BATCH_OUTCOMES),
  ingested: z.number().int().nonnegative().optional(),
  held: z.number().int().nonnegative().optional(),
  versionsWritten: z.number().int().nonnegative().optional(),
  sectionsEnded: z.number().int().nonnegative().optional(),
  changed: z.boolean().optional(),
  error: z.string().optional(),
});
export type BatchState = z.output<typeof batchState>;

const plan = z.object({
  remote: z.string(),
  head: commit,
  publications: z.number().int().nonnegative(),
  held: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  deferred: z.number().int().nonnegative(),
});
export type SyncPlan = z.output<typeof plan> & {
  /** The pack this run fetched and stored (`pack-<sha1>`), and its size; null when the remote had nothing new. */
  fetched: { pack: string; bytes: number } | null;
};

/** The fields of each step's event besides its `step` (source-steps.ts builds the events from DC_CODE_RUN). */
export const DC_CODE_STEP_EVENTS = {
  sync: { request: syncRequestSchema.default({ remote: DC_COUNCIL_REMOTE }) },
  ingest: { batch },
  finish: { plan: plan.loose(), batches: z.array(batchState.loose()) },
};

/** The sync step's answer: the plan and the batches, which the state machine maps over one at a time. */
export interface SyncResult {
  plan: SyncPlan;
  batches: BatchJob[];
}

export interface FinishSummary {
  ingested: number;
  held: number;
  versionsWritten: number;
  sectionsEnded: number;
  /** Batches that failed, and those not run because an earlier one had failed. */
  failed: number;
  blocked: number;
  /** `batch <n> of <N> (publications <first>–<last>): <error>` for each failed batch. */
  failures: string[];
  deferred: number;
  /** One line for the execution's output (and its failure's cause). */
  message: string;
}

/**
 * The sync's run: sync (the remote's new commits into the bucket, the pending publications batched) → ingest each
 * batch, one at a time and in order → finish. A failed batch is carried on as failed; every later one finds the
 * publication before it not ingested and answers `blocked` without writing, so nothing is applied out of order.
 */
export const DC_CODE_RUN: SourceRunShape = {
  refused: DC_CODE_ERRORS.refused,
  plan: { state: 'Sync', step: 'sync', retryOn: DC_CODE_ERRORS.remoteUnavailable },
  nothingToDo: { choice: 'AnyPending', field: 'pending', equals: 0, done: 'UpToDate' },
  items: 'batches',
  jobs: [
    {
      map: 'Ingests',
      task: 'IngestBatch',
      step: 'ingest',
      key: 'batch',
      on: 'stores',
      // Publications are applied in the order of the line (and an ingest holds the store-wide lease).
      atOnce: 1,
      retryOn: { error: DC_CODE_ERRORS.ingestBusy, policy: 'lease' },
      onceMoreAfterSeconds: 30,
      failed: { state: 'BatchFailed', carry: ['batch', 'of', 'commits', 'files', 'first', 'after'], namesStep: false },
    },
  ],
  finish: { anyFailed: 'AnyBatchFailed', failed: 'BatchesFailed' },
};
