import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Chain,
  Choice,
  Condition,
  Errors,
  Fail,
  type IChainable,
  Map as MapState,
  Pass,
  type RetryProps,
  type StateMachine,
  Succeed,
} from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { JobStep, RetryPolicy, SourceRunShape, StepFunction } from '../functions/lambda/jobs/source-steps.ts';
import { jobStateMachine, lambdaStep } from './job-state-machine.ts';

export interface SourceSyncMachineProps {
  /** `<prefix>-<name>` names the state machine and its log group. */
  prefix: string;
  name: string;
  /** The run, as the source's connector describes it (functions/lambda/jobs/<source>-steps.ts). */
  shape: SourceRunShape;
  /** The function of the steps that reach the publisher, and the one of the steps that write the stores. */
  functions: Readonly<Record<StepFunction, IFunction>>;
  /** A run's limit. */
  timeout: Duration;
  logRetention: RetentionDays;
}

/**
 * The retry policy of every source, in one place: the error that may pass is retried with backoff (a remote that
 * may come back: three more times over 7 minutes for the plan, over 3.5 minutes for one job; the ingest lease held:
 * five more times over about half an hour), anything else once more, a refused step event never. The finish is
 * retried twice on anything; it is idempotent.
 */
const RETRY: Record<RetryPolicy, Pick<RetryProps, 'interval' | 'maxAttempts' | 'backoffRate'>> = {
  remote: { interval: Duration.minutes(1), maxAttempts: 3, backoffRate: 2 },
  'remote-job': { interval: Duration.seconds(30), maxAttempts: 3, backoffRate: 2 },
  lease: { interval: Duration.minutes(1), maxAttempts: 5, backoffRate: 2 },
};
const PLAN_ONCE_MORE = Duration.seconds(30);
const FINISH_RETRY: RetryProps = { errors: [Errors.ALL], interval: Duration.minutes(1), maxAttempts: 2, backoffRate: 2 };

/**
 * A scheduled source's run as a Step Functions state machine (STANDARD), the one shape every source has:
 *
 *   Plan → (nothing to do: done) → a Map over the jobs per job step (its concurrency the shape's) → Finish →
 *   (a job failed: fail the run, naming it; else done)
 *
 * The input is the plan's request. The plan's answer goes to `run` (`{ plan, <items> }`); each Map replaces the items
 * with each job's outcome. A job is retried (RETRY), then caught: it is carried on as failed (its own fields, the
 * step when the shape says so, the error's name; the cause is in the history), the other jobs go on, and the run
 * fails at its end naming every failed job, so the alarm on failed runs fires; the next run completes what is
 * missing. The plan and the finish are not caught: their failure is the run's.
 */
export class SourceSyncMachine extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: SourceSyncMachineProps) {
    super(scope, id);
    const { shape, functions } = props;
    if (shape.jobs.length === 0) throw new Error(`${props.name}: a source's run has at least one job step`);
    const items = `$.run.${shape.items}`;
    const neverRetried: RetryProps = { errors: [shape.refused], maxAttempts: 0 };
    const onceMore = (interval: Duration): RetryProps => ({ errors: [Errors.ALL], interval, maxAttempts: 1 });

    const plan = lambdaStep(this, shape.plan.state, functions.remote, { step: shape.plan.step, 'request.$': '$' }, '$.run');
    plan.addRetry(neverRetried);
    plan.addRetry({ errors: [shape.plan.retryOn], ...RETRY.remote });
    plan.addRetry(onceMore(PLAN_ONCE_MORE));

    const maps = shape.jobs.map((job) =>
      new MapState(this, job.map, { itemsPath: items, maxConcurrency: job.atOnce, resultPath: items }).itemProcessor(
        this.jobStep(job, functions[job.on], neverRetried, onceMore(Duration.seconds(job.onceMoreAfterSeconds))),
      ),
    );

    const finish = lambdaStep(
      this,
      'Finish',
      functions.stores,
      { step: 'finish', 'plan.$': '$.run.plan', [`${shape.items}.$`]: items },
      '$.summary',
    );
    finish.addRetry(neverRetried);
    finish.addRetry(FINISH_RETRY);

    const { field, equals } = shape.nothingToDo;
    const nothingToDo =
      typeof equals === 'boolean'
        ? Condition.booleanEquals(`$.run.plan.${field}`, equals)
        : Condition.numberEquals(`$.run.plan.${field}`, equals);
    let jobs = Chain.start(maps[0]!);
    for (const map of maps.slice(1)) jobs = jobs.next(map);

    const definition = plan.next(
      new Choice(this, shape.nothingToDo.choice)
        .when(nothingToDo, new Succeed(this, shape.nothingToDo.done))
        .otherwise(
          jobs
            .next(finish)
            .next(
              new Choice(this, shape.finish.anyFailed)
                .when(
                  Condition.numberGreaterThan('$.summary.failed', 0),
                  new Fail(this, shape.finish.failed, { error: shape.finish.failed, causePath: '$.summary.message' }),
                )
                .otherwise(new Succeed(this, 'Done')),
            ),
        ),
    );
    this.stateMachine = jobStateMachine(this, {
      prefix: props.prefix,
      name: props.name,
      definition,
      functions: [functions.remote, functions.stores],
      timeout: props.timeout,
      logRetention: props.logRetention,
    });
  }

  /** One job's step: invoked with `{ step, <key>: the job }`, retried, caught and carried on as failed; behind a Choice when only some jobs run it. */
  private jobStep(job: JobStep, fn: IFunction, neverRetried: RetryProps, onceMore: RetryProps): IChainable {
    const task = lambdaStep(this, job.task, fn, { step: job.step, [`${job.key}.$`]: '$' });
    task.addRetry(neverRetried);
    task.addRetry({ errors: [job.retryOn.error], ...RETRY[job.retryOn.policy] });
    task.addRetry(onceMore);
    const carried: Record<string, string> = Object.fromEntries(job.failed.carry.map((f) => [`${f}.$`, `$.${f}`]));
    task.addCatch(
      new Pass(this, job.failed.state, {
        parameters: { ...carried, outcome: 'failed', ...(job.failed.namesStep && { step: job.step }), 'error.$': '$.failure.Error' },
      }),
      { errors: [Errors.ALL], resultPath: '$.failure' },
    );
    if (!job.only) return task;
    return new Choice(this, job.only.choice)
      .when(Condition.or(...job.only.outcomes.map((o) => Condition.stringEquals('$.outcome', o))), task)
      .otherwise(new Pass(this, job.only.otherwise));
  }
}
