import * as z from 'zod';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { SOURCE_STEP_ERRORS, type SourceRunShape } from './source-steps.ts';

/**
 * The steps of a scheduled state-code sync (one per state, each on its own schedule; the states are those of
 * functions/ingest/state-codes/formats.ts), as its state machine (lib/source-sync-machine.ts, from STATE_CODE_RUN)
 * passes them to the connector's two functions: `plan` and `fetch` run in the function that reaches the publisher
 * (state-code-fetch), `ingest` and `finish` in the one that writes the stores (state-code-ingest). A job is one
 * title file of one release (`transforms/tn/octn/r72/gov.tn.tca.title.01.html`), kept in the sources bucket's
 * state-codes/ folder under that path between the two.
 */
export const STATE_CODE_ERRORS = {
  /** A step event that can never run as given: never retried. */
  refused: 'StateCodeStepRefused',
  /** The source could not be reached, timed out, cut the answer or failed (5xx): trying again later may help. */
  publisherUnavailable: 'PublisherUnavailable',
  /** The source refused the request (4xx other than a missing file). */
  publisherRefused: 'PublisherRefused',
  /** The file is not one of the publisher's title files (no release line): nothing of it is stored or ingested. */
  corruptFile: 'CorruptFile',
  /** The ingest step found no file in the bucket (the fetch step stores it first). */
  fileNotInBucket: 'FileNotInBucket',
  ingestBusy: SOURCE_STEP_ERRORS.ingestBusy,
} as const;

/** The states a sync may be asked for: every configured one. */
export const STATE_CODE_STATES = Object.keys(STATE_CODE_FORMATS);

/** What a run is asked: the state, and as `asof fetch state-code` takes them, the source, releases and titles. */
export const stateCodeRequestSchema = z.strictObject({
  state: z.string().refine((s) => Object.hasOwn(STATE_CODE_FORMATS, s), {
    message: `must be a configured state (${STATE_CODE_STATES.join(', ')})`,
  }),
  /** An http(s) address in the publisher's layout, or an absolute folder (local runs); default: the publisher's raw files at the configured commit. */
  source: z
    .string()
    .regex(/^(?:https?:\/\/|\/)/, { message: 'must be an http(s) address or an absolute folder' })
    .optional(),
  releases: z.array(z.number().int().positive()).min(1).optional(),
  titles: z
    .array(z.string().regex(/^\d+[a-z]?$/, { message: 'must be a title code as the files name it (01, 87)' }))
    .min(1)
    .optional(),
});
export type StateCodeRequest = z.input<typeof stateCodeRequestSchema>;

const fileJob = z.strictObject({
  state: z.string().regex(/^[a-z]{2}$/),
  release: z.number().int().positive(),
  title: z.string().regex(/^\d+[a-z]?$/),
  /** The file's path in the publisher's layout, which is also its key below the bucket's state-codes/ folder. */
  path: z
    .string()
    .regex(/^transforms\/[a-z]{2}\/oc[a-z]{2}\/r\d+\/[^/]+\.html$/, { message: 'must be a title file path in the publisher’s layout' }),
  /** Where the fetch step reads it: an address, or a file below a folder. */
  from: z.string().min(1),
});
export type FileJob = z.output<typeof fileJob>;

/** What became of a file in the fetch step. */
export const FETCH_OUTCOMES = ['fetched', 'in-bucket', 'held', 'not-published'] as const;
export type FetchOutcome = (typeof FETCH_OUTCOMES)[number];
/** The fetch outcomes whose file is in the bucket, for the ingest step. */
export const TO_INGEST: readonly FetchOutcome[] = ['fetched', 'in-bucket'];

const fileState = fileJob.extend({
  outcome: z.enum([...FETCH_OUTCOMES, 'ingested', 'failed']),
  bytes: z.number().int().nonnegative().optional(),
  editions: z.number().int().nonnegative().optional(),
  changedEditions: z.number().int().nonnegative().optional(),
  step: z.enum(['fetch', 'ingest']).optional(),
  error: z.string().optional(),
});
export type FileState = z.output<typeof fileState>;

const plan = z.object({
  state: z.string(),
  source: z.string(),
  files: z.number().int().nonnegative(),
  held: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  deferred: z.number().int().nonnegative(),
});
export type StateCodePlan = z.output<typeof plan>;

/** The plan step's answer: the plan and the files to fetch and ingest, which the state machine maps over. */
export interface StateCodePlanResult {
  plan: StateCodePlan;
  files: FileJob[];
}

export interface StateCodeFinishSummary {
  ingested: number;
  held: number;
  notPublished: number;
  failed: number;
  /** `r<NN>/<file> (<step>: <error>)` for each failed file. */
  failures: string[];
  editions: number;
  changedEditions: number;
  deferred: number;
  /** One line for the execution's output (and its failure's cause). */
  message: string;
}

/** The fields of each step's event besides its `step`. */
export const STATE_CODE_STEP_EVENTS = {
  plan: { request: stateCodeRequestSchema },
  fetch: { job: fileJob },
  // The state machine passes the fetch step's whole answer; the job's own fields are what the ingest needs.
  ingest: { job: fileJob.loose() },
  finish: { plan: plan.loose(), files: z.array(fileState.loose()) },
};

const FILE_FIELDS = ['state', 'release', 'title', 'path', 'from'] as const;

/**
 * A state's sync: plan (the releases × titles not yet ingested) → fetch each file (4 at once) into the bucket →
 * ingest each fetched file (one at a time: an ingest holds the store-wide lease) → finish.
 */
export const STATE_CODE_RUN: SourceRunShape = {
  refused: STATE_CODE_ERRORS.refused,
  plan: { state: 'Plan', step: 'plan', retryOn: STATE_CODE_ERRORS.publisherUnavailable },
  nothingToDo: { choice: 'AnyPending', field: 'pending', equals: 0, done: 'UpToDate' },
  items: 'files',
  jobs: [
    {
      map: 'Fetches',
      task: 'FetchFile',
      step: 'fetch',
      key: 'job',
      on: 'remote',
      atOnce: 4,
      retryOn: { error: STATE_CODE_ERRORS.publisherUnavailable, policy: 'remote-job' },
      onceMoreAfterSeconds: 10,
      failed: { state: 'FetchFailed', carry: FILE_FIELDS, namesStep: true },
    },
    {
      map: 'Ingests',
      task: 'IngestFile',
      step: 'ingest',
      key: 'job',
      on: 'stores',
      atOnce: 1,
      retryOn: { error: STATE_CODE_ERRORS.ingestBusy, policy: 'lease' },
      onceMoreAfterSeconds: 30,
      failed: { state: 'IngestFailed', carry: FILE_FIELDS, namesStep: true },
      only: { choice: 'ToIngest', outcomes: TO_INGEST, otherwise: 'NothingToIngest' },
    },
  ],
  finish: { anyFailed: 'AnyFileFailed', failed: 'FilesFailed' },
};

/** The ops marker of a title file once ingested: a later run's plan leaves it out. */
export const stateFileMarker = (path: string): string => `state-code:${path}`;

/** The folder of the sources bucket the sync writes; keys below it are the publisher's paths. */
export const STATE_CODES_FOLDER = 'state-codes';
export const stateFileKey = (path: string): string => `${STATE_CODES_FOLDER}/${path}`;
