import * as z from 'zod';
import type { TitleJobsPlan } from '#ingest/olrc/title-jobs.ts';
import { titleJobsRequestSchema } from '#ingest/olrc/title-jobs.ts';
import { SOURCE_STEP_ERRORS, type SourceRunShape } from './source-steps.ts';

/**
 * The steps of the scheduled US Code fetch, as its state machine (lib/source-sync-machine.ts, from USCODE_RUN) passes
 * them to the two functions: `check` and `download` run in the function that talks to the publisher (uscode-fetch),
 * `ingest` and `finish` in the one that writes the stores (uscode-ingest). The errors a step throws are named (Lambda
 * reports an error's `name` as its type, which the state machine's retry rules match).
 */
export const USCODE_ERRORS = {
  /** A step event that can never run as given: never retried. */
  refused: 'UscodeStepRefused',
  /** The publisher could not be reached, timed out, cut the answer or failed (5xx): trying again later may help. */
  publisherUnavailable: 'PublisherUnavailable',
  /** The publisher has no such zip, or refused the request otherwise (4xx). */
  publisherRefused: 'PublisherRefused',
  /** The zip (from the publisher, or read back from the bucket) fails its check: nothing of it is stored or ingested. */
  corruptZip: 'CorruptZip',
  /** The ingest step found no zip in the bucket (the download step stores it first). */
  zipNotInBucket: 'ZipNotInBucket',
  ingestBusy: SOURCE_STEP_ERRORS.ingestBusy,
} as const;

const releasePointId = z.string().regex(/^\d{2,3}-\d+[0-9a-z]*$/, { message: 'must be a release point id such as 118-158' });
const titleJob = z.strictObject({
  releasePoint: releasePointId,
  title: z.string().regex(/^\d{2}a?$/, { message: 'must be a title code such as 01 or 05a' }),
  url: z.url({ protocol: /^https?$/ }),
  named: z.boolean(),
});
export type TitleJobEvent = z.output<typeof titleJob>;

/** What became of a title in the download step. */
export const DOWNLOAD_OUTCOMES = ['downloaded', 'in-bucket', 'held', 'not-published'] as const;
/** The download outcomes whose zip is in the bucket, for the ingest step. */
export const TO_INGEST: readonly DownloadOutcome[] = ['downloaded', 'in-bucket'];
export type DownloadOutcome = (typeof DOWNLOAD_OUTCOMES)[number];
const TITLE_FIELDS = ['releasePoint', 'title', 'url', 'named'] as const;
/** What became of a title in the ingest step. */
export type IngestOutcome = 'ingested' | 'held';

/** A title as the state machine carries it from step to step; a failed one carries the step and the error's name. */
const titleState = titleJob.extend({
  outcome: z.enum([...DOWNLOAD_OUTCOMES, 'ingested', 'failed']),
  bytes: z.number().int().nonnegative().optional(),
  sections: z.number().int().nonnegative().optional(),
  changedKeys: z.number().int().nonnegative().optional(),
  step: z.enum(['download', 'ingest']).optional(),
  error: z.string().optional(),
});
export type TitleState = z.output<typeof titleState>;

const planSummary = z.object({
  source: z.string(),
  current: z.string().nullable(),
  through: z.string().nullable(),
  held: z.number().int().nonnegative(),
  deferred: z.number().int().nonnegative(),
});

/** The fields of each step's event besides its `step` (source-steps.ts builds the events from USCODE_RUN). */
export const USCODE_STEP_EVENTS = {
  check: { request: titleJobsRequestSchema.default({}) },
  download: { job: titleJob },
  // The state machine passes the download step's whole answer; the job's own fields are what the ingest needs.
  ingest: { job: titleJob.loose() },
  finish: { plan: planSummary.loose(), titles: z.array(titleState.loose()) },
};

/** The check step's answer: the plan (without its jobs) and the jobs, which the state machine maps over. */
export interface CheckResult {
  plan: Omit<TitleJobsPlan, 'jobs'>;
  titles: TitleJobEvent[];
}

export interface FinishSummary {
  ingested: number;
  held: number;
  notPublished: number;
  failed: number;
  /** `<title>@<release point> (<step>: <error>)` for each failed title. */
  failures: string[];
  changedKeys: number;
  /** The release point the store is now current through, when this run brought it there. */
  current: string | null;
  deferred: number;
  /** One line for the execution's output (and its failure's cause). */
  message: string;
}

/**
 * The fetch's run: check → download each title (4 at once: the publisher is one public web site, asked politely) →
 * ingest each downloaded title (one at a time: an ingest holds the store-wide lease) → finish.
 */
export const USCODE_RUN: SourceRunShape = {
  refused: USCODE_ERRORS.refused,
  plan: { state: 'Check', step: 'check', retryOn: USCODE_ERRORS.publisherUnavailable },
  nothingToDo: { choice: 'UpToDate', field: 'upToDate', equals: true, done: 'AlreadyCurrent' },
  items: 'titles',
  jobs: [
    {
      map: 'Downloads',
      task: 'DownloadTitle',
      step: 'download',
      key: 'job',
      on: 'remote',
      atOnce: 4,
      retryOn: { error: USCODE_ERRORS.publisherUnavailable, policy: 'remote-job' },
      onceMoreAfterSeconds: 10,
      failed: { state: 'DownloadFailed', carry: TITLE_FIELDS, namesStep: true },
    },
    {
      map: 'Ingests',
      task: 'IngestTitle',
      step: 'ingest',
      key: 'job',
      on: 'stores',
      atOnce: 1,
      retryOn: { error: USCODE_ERRORS.ingestBusy, policy: 'lease' },
      onceMoreAfterSeconds: 30,
      failed: { state: 'IngestFailed', carry: TITLE_FIELDS, namesStep: true },
      only: { choice: 'ToIngest', outcomes: TO_INGEST, otherwise: 'NothingToIngest' },
    },
  ],
  finish: { anyFailed: 'AnyTitleFailed', failed: 'TitlesFailed' },
};
