import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Choice, Condition, Errors, Fail, Map as MapState, Pass, type StateMachine, Succeed } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TO_INGEST, USCODE_ERRORS } from '../functions/lambda/jobs/uscode-steps.ts';
import { jobStateMachine, lambdaStep } from './job-state-machine.ts';

export interface UscodeFetchMachineProps {
  prefix: string;
  /** The function of the steps that talk to the publisher: check and download (functions/lambda/jobs/uscode-fetch.ts). */
  fetchFunction: IFunction;
  /** The function of the steps that write the stores: ingest and finish (functions/lambda/jobs/uscode-ingest.ts). */
  ingestFunction: IFunction;
  logRetention: RetentionDays;
}

/** Downloads at once: the publisher is one public web site, asked politely; each download runs in a sandbox of its own. */
export const DOWNLOADS_AT_ONCE = 4;
/** Ingests at once: one, since an ingest holds the store-wide ingest lease (a second one would only wait for it). */
export const INGESTS_AT_ONCE = 1;
/** A run's limit: a full release point's titles ingested one after the other, each within Lambda's 15 minutes. */
export const RUN_TIMEOUT = Duration.hours(24);

/**
 * The scheduled US Code fetch as a Step Functions state machine (STANDARD):
 *
 *   Check → (up to date: done) → Downloads (a Map over the titles, 4 at once) → Ingests (a Map over them, one at a
 *   time) → Finish → (a title failed: fail the run, naming it; else done)
 *
 * The input is the check's request (`{}`: bring the store to the publisher's current release point). A title's
 * download and ingest are retried on the errors that may pass (the publisher unavailable: three more times over 3.5
 * minutes; the ingest lease held: five more over about half an hour; anything else once), then caught: the title is
 * carried on as failed, the other titles go on, and the run fails at its end naming every failed title, so the alarm
 * on failed runs fires; running it again completes what is missing. A bad step event is never retried; the check and
 * the finish are not caught (their failure is the run's).
 */
export class UscodeFetchMachine extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: UscodeFetchMachineProps) {
    super(scope, id);
    const invoke = (stateId: string, fn: IFunction, payload: Record<string, unknown>, resultPath?: string) =>
      lambdaStep(this, stateId, fn, payload, resultPath);
    const neverRetried = { errors: [USCODE_ERRORS.refused], maxAttempts: 0 };
    const onceMore = (interval: Duration) => ({ errors: [Errors.ALL], interval, maxAttempts: 1 });
    /** A title that failed every try, carried on with the step and the error's name (its cause is in the history). */
    const failed = (stateId: string, step: 'download' | 'ingest') =>
      new Pass(this, stateId, {
        parameters: {
          'releasePoint.$': '$.releasePoint',
          'title.$': '$.title',
          'url.$': '$.url',
          'named.$': '$.named',
          outcome: 'failed',
          step,
          'error.$': '$.failure.Error',
        },
      });

    // The check's answer goes to `run`: { plan, titles }; the Maps replace `titles` with each title's outcome.
    const check = invoke('Check', props.fetchFunction, { step: 'check', 'request.$': '$' }, '$.run');
    check.addRetry({ ...neverRetried });
    check.addRetry({ errors: [USCODE_ERRORS.publisherUnavailable], interval: Duration.minutes(1), maxAttempts: 3, backoffRate: 2 });
    check.addRetry(onceMore(Duration.seconds(30)));

    const download = invoke('DownloadTitle', props.fetchFunction, { step: 'download', 'job.$': '$' });
    download.addRetry({ ...neverRetried });
    download.addRetry({ errors: [USCODE_ERRORS.publisherUnavailable], interval: Duration.seconds(30), maxAttempts: 3, backoffRate: 2 });
    download.addRetry(onceMore(Duration.seconds(10)));
    download.addCatch(failed('DownloadFailed', 'download'), { errors: [Errors.ALL], resultPath: '$.failure' });
    const downloads = new MapState(this, 'Downloads', {
      itemsPath: '$.run.titles',
      maxConcurrency: DOWNLOADS_AT_ONCE,
      resultPath: '$.run.titles',
    }).itemProcessor(download);

    const ingest = invoke('IngestTitle', props.ingestFunction, { step: 'ingest', 'job.$': '$' });
    ingest.addRetry({ ...neverRetried });
    ingest.addRetry({ errors: [USCODE_ERRORS.ingestBusy], interval: Duration.minutes(1), maxAttempts: 5, backoffRate: 2 });
    ingest.addRetry(onceMore(Duration.seconds(30)));
    ingest.addCatch(failed('IngestFailed', 'ingest'), { errors: [Errors.ALL], resultPath: '$.failure' });
    const toIngest = new Choice(this, 'ToIngest')
      .when(Condition.or(...TO_INGEST.map((o) => Condition.stringEquals('$.outcome', o))), ingest)
      .otherwise(new Pass(this, 'NothingToIngest'));
    const ingests = new MapState(this, 'Ingests', {
      itemsPath: '$.run.titles',
      maxConcurrency: INGESTS_AT_ONCE,
      resultPath: '$.run.titles',
    }).itemProcessor(toIngest);

    const finish = invoke(
      'Finish',
      props.ingestFunction,
      { step: 'finish', 'plan.$': '$.run.plan', 'titles.$': '$.run.titles' },
      '$.summary',
    );
    finish.addRetry({ ...neverRetried });
    finish.addRetry({ errors: [Errors.ALL], interval: Duration.minutes(1), maxAttempts: 2, backoffRate: 2 });

    const definition = check.next(
      new Choice(this, 'UpToDate')
        .when(Condition.booleanEquals('$.run.plan.upToDate', true), new Succeed(this, 'AlreadyCurrent'))
        .otherwise(
          downloads
            .next(ingests)
            .next(finish)
            .next(
              new Choice(this, 'AnyTitleFailed')
                .when(
                  Condition.numberGreaterThan('$.summary.failed', 0),
                  new Fail(this, 'TitlesFailed', { error: 'TitlesFailed', causePath: '$.summary.message' }),
                )
                .otherwise(new Succeed(this, 'Done')),
            ),
        ),
    );

    this.stateMachine = jobStateMachine(this, {
      prefix: props.prefix,
      name: 'uscode-fetch',
      definition,
      functions: [props.fetchFunction, props.ingestFunction],
      timeout: RUN_TIMEOUT,
      logRetention: props.logRetention,
    });
  }
}
