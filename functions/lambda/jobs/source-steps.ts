/**
 * The one shape of every scheduled source's run in AWS, and the factory of the Lambda steps that run it:
 *
 *   plan → a Map over the jobs per job step (each job retried, then caught and carried on as failed) → finish →
 *   (a job failed: fail the run, naming it; else done)
 *
 * A source's connector describes its run once (a SourceRunShape: the step names, the key its jobs travel under, the
 * error names the state machine's retry rules match, how many jobs at once); the state machine (lib/source-sync-machine.ts)
 * is built from that description and the step functions are built from it here, so the two cannot disagree. The
 * connector brings what is its own: the plan, what one job does, what the finish records. The factory brings what
 * every source shares: each step's event checked (a bad one is refused, never retried), the store-wide ingest lease
 * held elsewhere named IngestBusy (retried), the sources bucket required where a step reads or writes it, and the
 * finish's accounting (the failed jobs named, the steps after an ingest run once for the whole run).
 */
import * as z from 'zod';
import type { IngestBusyError } from '#ingest/jobs.ts';
import { ENV } from '../env.ts';
import { type JobContext, jobLambda } from '../job-entry.ts';

/** The errors every source's steps share. */
export const SOURCE_STEP_ERRORS = {
  /** Another ingest holds the store-wide ingest lease: trying again once it has finished succeeds. */
  ingestBusy: 'IngestBusy',
} as const;

/** A step's failure as the state machine sees it: Lambda reports an error's `name` as its type, which the retry rules match. */
export class SourceStepError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The ingest lease held elsewhere, known by its error's name: importing the class would bundle the whole ingest
 * (every reader, the engine) into the remote functions, which never ingest. The type keeps the name in step with it.
 */
const INGEST_BUSY: IngestBusyError['name'] = 'IngestBusyError';
const isIngestBusy = (err: unknown): err is Error => err instanceof Error && err.name === INGEST_BUSY;

/** Which of a source's two functions runs a step: the one that reaches the publisher, or the one that writes the stores. */
export type StepFunction = 'remote' | 'stores';

/** How hard a step is retried on the error that may pass (lib/source-sync-machine.ts holds the figures). */
export type RetryPolicy = 'remote' | 'remote-job' | 'lease';

/** One step run for each job of the plan (a Map over them). */
export interface JobStep {
  /** The Map's state id (`Downloads`), its task's (`DownloadTitle`). */
  map: string;
  task: string;
  /** The `step` of its event, and the key the job travels under in it (`{ step: 'download', job: … }`). */
  step: string;
  key: string;
  on: StepFunction;
  /** Jobs at once: 1 where an ingest holds the store-wide lease, or where the jobs must run in order. */
  atOnce: number;
  /** The error that may pass and its retry policy; any other error is tried once more after `onceMoreAfterSeconds`. */
  retryOn: { error: string; policy: RetryPolicy };
  onceMoreAfterSeconds: number;
  /** A job that failed every try, carried on as failed: the Pass state's id, the job's fields kept, and whether it names this step. */
  failed: { state: string; carry: readonly string[]; namesStep: boolean };
  /** Only the jobs whose `outcome` is one of these run this step (a Choice), the rest pass through. Default: every job. */
  only?: { choice: string; outcomes: readonly string[]; otherwise: string };
}

/** A source's run, as its state machine and its step functions share it. */
export interface SourceRunShape {
  /** The error of a step event that can never run as given (never retried). */
  refused: string;
  /** The first step (on the remote function): its state id, its event's `step`, and the error of a remote that may come back. */
  plan: { state: string; step: string; retryOn: string };
  /** The plan found nothing to do when `$.run.plan.<field>` equals `equals`: the Choice's id and the Succeed state's. */
  nothingToDo: { choice: string; field: string; equals: number | boolean; done: string };
  /** The key of the jobs in the plan's answer (`{ plan, titles }`) and in the finish event. */
  items: string;
  /** The steps run per job, in order. */
  jobs: readonly JobStep[];
  /** After the finish (on the stores function): the Choice on `$.summary.failed` and the Fail state (its id is its error). */
  finish: { anyFailed: string; failed: string };
}

/** The event, checked; a bad one throws `refused` with every problem named. */
export function parseStep<S extends z.ZodType>(schema: S, event: unknown, refused: (message: string) => Error): z.output<S> {
  const parsed = schema.safeParse(event);
  if (!parsed.success) throw refused(`step event refused:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** A step of one function: the fields of its event besides `step`, and what it does with them. */
export interface StepHandler<F extends z.ZodRawShape = z.ZodRawShape> {
  event: F;
  /** The step reads or writes the sources bucket: it fails, naming the missing binding, where none is bound. */
  needsBucket?: boolean;
  // A method (checked bivariantly), so that a step of any fields is one of a function's steps.
  run(event: z.output<z.ZodObject<F>>, ctx: JobContext): Promise<unknown>;
}

/** A step's handler, its event's fields typed from their schemas. */
export const stepHandler = <F extends z.ZodRawShape>(handler: StepHandler<F>): StepHandler<F> => handler;

/** The steps `on` runs, by the shape: the plan on the remote, each job step on its own, the finish on the stores. */
export function stepsOn(shape: SourceRunShape, on: StepFunction): string[] {
  return [
    ...(on === 'remote' ? [shape.plan.step] : []),
    ...shape.jobs.filter((j) => j.on === on).map((j) => j.step),
    ...(on === 'stores' ? ['finish'] : []),
  ];
}

/**
 * One of a source's two step functions: `steps` are exactly the steps the shape puts on this function (checked when
 * the module loads: a step the state machine would send and no handler takes is a wiring mistake). An event is
 * checked against its step's fields (refused with the shape's error, never retried); the ingest lease held by another
 * run becomes IngestBusy; a step that needs the sources bucket where none is bound fails naming it.
 */
export function sourceStepLambda(
  job: string,
  shape: SourceRunShape,
  on: StepFunction,
  steps: Readonly<Record<string, StepHandler>>,
  bucketBound: boolean,
) {
  const expected = stepsOn(shape, on).sort();
  const given = Object.keys(steps).sort();
  if (expected.join() !== given.join())
    throw new Error(`${job}: its shape runs the steps ${expected.join(', ')} on the ${on} function; handlers given: ${given.join(', ')}`);
  const options = Object.entries(steps).map(([step, h]) => z.strictObject({ step: z.literal(step), ...h.event }));
  const schema = z.discriminatedUnion('step', options as [(typeof options)[number], ...(typeof options)[number][]]);
  const refused = (message: string) => new SourceStepError(shape.refused, message);

  return jobLambda(job, async (event: unknown, ctx) => {
    const parsed = parseStep(schema, event, refused) as { step: string } & Record<string, unknown>;
    const handler = steps[parsed.step]!;
    if (handler.needsBucket && !bucketBound)
      throw new Error(`no sources bucket is bound to this function (${ENV.sourcesBucket} is not set)`);
    try {
      return await handler.run(parsed, ctx);
    } catch (err) {
      if (isIngestBusy(err)) throw new SourceStepError(SOURCE_STEP_ERRORS.ingestBusy, err.message);
      throw err;
    }
  });
}

/** The failed jobs of a run, named by `describe`; the steps after an ingest run once when any job changed the store. */
export async function finishRun<T extends { outcome: string }>(
  jobs: readonly T[],
  how: {
    describe: (job: T) => string;
    changed: (job: T) => boolean;
    afterIngest: (log: (line: string) => void) => Promise<unknown>;
  },
  { logger }: JobContext,
): Promise<{ failed: T[]; failures: string[]; changed: boolean }> {
  const failed = jobs.filter((j) => j.outcome === 'failed');
  const changed = jobs.some(how.changed);
  // Once for the run, after its last job: the format records, coverage and the audit see the new corpus.
  if (changed) await how.afterIngest((line) => logger.info(line));
  return { failed, failures: failed.map(how.describe), changed };
}
