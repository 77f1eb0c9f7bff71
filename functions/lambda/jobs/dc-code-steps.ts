import * as z from 'zod';
import { DC_COUNCIL_REMOTE } from '#ingest/dc-git/remote.ts';
import { parseStep } from './uscode-steps.ts';

/**
 * The steps of the scheduled D.C. Code sync, as its state machine (lib/dc-code-sync-machine.ts) passes them to the two
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
  /** Another ingest holds the store-wide ingest lease: trying again once it has finished succeeds. */
  ingestBusy: 'IngestBusy',
} as const;
export type DcCodeErrorName = (typeof DC_CODE_ERRORS)[keyof typeof DC_CODE_ERRORS];

export class DcCodeStepError extends Error {
  constructor(
    override readonly name: DcCodeErrorName,
    message: string,
  ) {
    super(message);
  }
}

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

export const syncStepSchema = z.strictObject({
  step: z.literal('sync'),
  request: syncRequestSchema.default({ remote: DC_COUNCIL_REMOTE }),
});
export const ingestStepSchema = z.discriminatedUnion('step', [
  z.strictObject({ step: z.literal('ingest'), batch }),
  z.strictObject({ step: z.literal('finish'), plan: plan.loose(), batches: z.array(batchState.loose()) }),
]);
export type IngestStepEvent = z.input<typeof ingestStepSchema>;

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

/** The event, checked; a bad one throws DcCodeStepRefused with every problem named. */
export const parseDcStep = <S extends z.ZodType>(schema: S, event: unknown): z.output<S> =>
  parseStep(schema, event, (message) => new DcCodeStepError(DC_CODE_ERRORS.refused, message));
