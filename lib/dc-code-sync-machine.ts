import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Choice, Condition, Errors, Fail, Map as MapState, Pass, type StateMachine, Succeed } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DC_CODE_ERRORS } from '../functions/lambda/jobs/dc-code-steps.ts';
import { jobStateMachine, lambdaStep } from './job-state-machine.ts';

export interface DcCodeSyncMachineProps {
  prefix: string;
  /** The function of the step that talks to the Council's remote (functions/lambda/jobs/dc-code-sync.ts). */
  syncFunction: IFunction;
  /** The function of the steps that write the stores: ingest and finish (functions/lambda/jobs/dc-code-ingest.ts). */
  ingestFunction: IFunction;
  logRetention: RetentionDays;
}

/** Batches at once: one, since publications are applied in the order of the line (and an ingest holds the store-wide lease). */
export const BATCHES_AT_ONCE = 1;
/** A run's limit: the whole history's batches one after the other (a first run: about 5), each within Lambda's 15 minutes. */
export const RUN_TIMEOUT = Duration.hours(12);

/**
 * The scheduled D.C. Code sync as a Step Functions state machine (STANDARD):
 *
 *   Sync → (nothing pending: done) → Ingests (a Map over the batches of publications, one at a time, in order) →
 *   Finish → (a batch failed: fail the run, naming it; else done)
 *
 * The input is the sync's request (`{}`: the Council's remote). A batch is retried on what may pass (the ingest lease
 * held: five more times over about half an hour; anything else once), then caught: it is carried on as failed, and
 * every later batch finds the publication before it not ingested and answers `blocked` without writing (so nothing is
 * ever applied out of order, whatever order the Map ran its iterations in); the run fails at its end naming the failed
 * batch, so the alarm on failed runs fires, and the next run starts from the first publication not ingested. The sync
 * is retried on a remote that may come back (three more times over 7 minutes) and not caught: a remote that cannot be
 * read fails the run with nothing stored or ingested. A bad step event is never retried.
 */
export class DcCodeSyncMachine extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: DcCodeSyncMachineProps) {
    super(scope, id);
    const invoke = (stateId: string, fn: IFunction, payload: Record<string, unknown>, resultPath?: string) =>
      lambdaStep(this, stateId, fn, payload, resultPath);
    const neverRetried = { errors: [DC_CODE_ERRORS.refused], maxAttempts: 0 };

    // The sync's answer goes to `run`: { plan, batches }; the Map replaces `batches` with each batch's outcome.
    const sync = invoke('Sync', props.syncFunction, { step: 'sync', 'request.$': '$' }, '$.run');
    sync.addRetry({ ...neverRetried });
    sync.addRetry({ errors: [DC_CODE_ERRORS.remoteUnavailable], interval: Duration.minutes(1), maxAttempts: 3, backoffRate: 2 });
    sync.addRetry({ errors: [Errors.ALL], interval: Duration.seconds(30), maxAttempts: 1 });

    const ingest = invoke('IngestBatch', props.ingestFunction, { step: 'ingest', 'batch.$': '$' });
    ingest.addRetry({ ...neverRetried });
    ingest.addRetry({ errors: [DC_CODE_ERRORS.ingestBusy], interval: Duration.minutes(1), maxAttempts: 5, backoffRate: 2 });
    ingest.addRetry({ errors: [Errors.ALL], interval: Duration.seconds(30), maxAttempts: 1 });
    ingest.addCatch(
      new Pass(this, 'BatchFailed', {
        parameters: {
          'batch.$': '$.batch',
          'of.$': '$.of',
          'commits.$': '$.commits',
          'files.$': '$.files',
          'first.$': '$.first',
          'after.$': '$.after',
          outcome: 'failed',
          'error.$': '$.failure.Error',
        },
      }),
      { errors: [Errors.ALL], resultPath: '$.failure' },
    );
    const ingests = new MapState(this, 'Ingests', {
      itemsPath: '$.run.batches',
      maxConcurrency: BATCHES_AT_ONCE,
      resultPath: '$.run.batches',
    }).itemProcessor(ingest);

    const finish = invoke(
      'Finish',
      props.ingestFunction,
      { step: 'finish', 'plan.$': '$.run.plan', 'batches.$': '$.run.batches' },
      '$.summary',
    );
    finish.addRetry({ ...neverRetried });
    finish.addRetry({ errors: [Errors.ALL], interval: Duration.minutes(1), maxAttempts: 2, backoffRate: 2 });

    const definition = sync.next(
      new Choice(this, 'AnyPending')
        .when(Condition.numberEquals('$.run.plan.pending', 0), new Succeed(this, 'UpToDate'))
        .otherwise(
          ingests
            .next(finish)
            .next(
              new Choice(this, 'AnyBatchFailed')
                .when(
                  Condition.numberGreaterThan('$.summary.failed', 0),
                  new Fail(this, 'BatchesFailed', { error: 'BatchesFailed', causePath: '$.summary.message' }),
                )
                .otherwise(new Succeed(this, 'Done')),
            ),
        ),
    );
    this.stateMachine = jobStateMachine(this, {
      prefix: props.prefix,
      name: 'dc-code-sync',
      definition,
      functions: [props.syncFunction, props.ingestFunction],
      timeout: RUN_TIMEOUT,
      logRetention: props.logRetention,
    });
  }
}
