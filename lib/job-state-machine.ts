import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, type IChainable, LogLevel, StateMachine, StateMachineType, TaskInput } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { SchedulerRole } from './scheduler-role.ts';

const DLQ_RETENTION = Duration.days(14);
const MAX_EVENT_AGE = Duration.hours(6);

/** A step of a job's state machine: the function invoked with `payload`, its answer the state's (or put at `resultPath`). */
export const lambdaStep = (scope: Construct, stateId: string, fn: IFunction, payload: Record<string, unknown>, resultPath?: string) =>
  new LambdaInvoke(scope, stateId, {
    lambdaFunction: fn,
    payload: TaskInput.fromObject(payload),
    payloadResponseOnly: true,
    ...(resultPath && { resultPath }),
  });

export interface JobStateMachineProps {
  /** `<prefix>-<name>` names the state machine and its log group. */
  prefix: string;
  name: string;
  definition: IChainable;
  /** The functions its Lambda tasks invoke (for cdk-nag's note on their ARN:* grant). */
  functions: readonly IFunction[];
  timeout: Duration;
  logRetention: RetentionDays;
}

/**
 * A job run as a Step Functions state machine (STANDARD, traced, every event logged without its data), its children
 * `Logs` and `StateMachine` in `scope`: the scheduled fetches of the US Code and of the D.C. Code share this shape.
 */
export function jobStateMachine(scope: Construct, props: JobStateMachineProps): StateMachine {
  const logGroup = new LogGroup(scope, 'Logs', {
    // Step Functions' recommended prefix: CloudWatch Logs' resource policy for vended logs covers it.
    logGroupName: `/aws/vendedlogs/states/${props.prefix}-${props.name}`,
    retention: props.logRetention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const stateMachine = new StateMachine(scope, 'StateMachine', {
    stateMachineName: `${props.prefix}-${props.name}`,
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromChainable(props.definition),
    timeout: props.timeout,
    tracingEnabled: true,
    logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
  });
  const stack = Stack.of(scope);
  const functionId = (fn: IFunction) => stack.getLogicalId(fn.node.defaultChild as CfnElement);
  Validations.of(stateMachine).acknowledge(
    ...props.functions.map((fn) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${functionId(fn)}.Arn>:*]`,
      reason: 'The Lambda task grants its one function and that function’s versions (ARN:*), nothing else.',
    })),
    {
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'CloudWatch Logs’ log-delivery actions (Step Functions logging) and X-Ray’s trace writes accept no resource-level permission.',
    },
  );
  return stateMachine;
}

export interface StateMachineScheduleProps {
  /** `<prefix>-<name>` names the schedule, `<prefix>-<name>-dlq` its dead-letter queue. */
  prefix: string;
  name: string;
  stateMachine: StateMachine;
  /** An EventBridge Scheduler expression (UTC). */
  expression: string;
  input: Record<string, unknown>;
  /** What the run does, for the roles' and queue's descriptions: `the US Code fetch`. */
  starts: string;
}

/**
 * EventBridge Scheduler starting a state machine (children `DeadLetters`, `Schedule`, `SchedulerRole` in `scope`): no
 * flexible window, three delivery retries within six hours (a run that could not start within hours is of no use: the
 * next one takes its work), and the deliveries it gave up on in an encrypted dead-letter queue.
 */
export function scheduleStateMachine(scope: Construct, props: StateMachineScheduleProps): { schedule: Schedule; deadLetterQueue: Queue } {
  const deadLetterQueue = new Queue(scope, 'DeadLetters', {
    queueName: `${props.prefix}-${props.name}-dlq`,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DLQ_RETENTION,
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason: `This queue is itself a dead-letter queue (of ${props.starts}’s schedule).`,
  });
  const schedule = new Schedule(scope, 'Schedule', {
    scheduleName: `${props.prefix}-${props.name}`,
    schedule: ScheduleExpression.expression(props.expression),
    timeWindow: TimeWindow.off(),
    target: new StepFunctionsStartExecution(props.stateMachine, {
      role: new SchedulerRole(scope, 'SchedulerRole', { starts: props.starts }).role,
      input: ScheduleTargetInput.fromObject(props.input),
      deadLetterQueue,
      retryAttempts: 3,
      maxEventAge: MAX_EVENT_AGE,
    }),
  });
  return { schedule, deadLetterQueue };
}
