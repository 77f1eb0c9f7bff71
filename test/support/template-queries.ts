/**
 * Questions the infrastructure tests ask of a synthesized stack's template: a resource's logical id by what it is,
 * a role's statements, actions, tables and S3 objects, a state machine's definition with its functions' ARNs named.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { defineStage } from '../../bin/stage.ts';
import { STAGES } from '../../bin/stages.ts';
import { JobsStack, type JobsStackProps } from '../../lib/jobs-stack.ts';
import { StatefulStack } from '../../lib/stateful-stack.ts';

export type Json = any;
export type Resources = Record<string, { Type: string; Properties: Json }>;

/** The dev stage exactly as bin/stage.ts builds it: its jobs and API stacks' templates, and queries over the jobs'. */
export function devStageTemplates(): { jobs: Template; api: Template; resources: Resources; q: ReturnType<typeof templateQueries> } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stage = defineStage(app, STAGES.dev!);
  const jobs = Template.fromStack(stage.jobs);
  const resources = jobs.toJSON().Resources as Resources;
  return { jobs, api: Template.fromStack(stage.api), resources, q: templateQueries(resources) };
}

export function templateQueries(resources: Resources) {
  const idOf = (type: string, test: (p: Json) => boolean) => {
    const found = Object.entries(resources).filter(([, r]) => r.Type === type && test(r.Properties));
    expect(found, type).toHaveLength(1);
    return found[0]![0];
  };
  const statementsOf = (roleId: string): { Action: string | string[]; Resource: Json }[] =>
    Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: Json) => x.Ref === roleId))
      .flatMap((r) => r.Properties.PolicyDocument.Statement);
  return {
    idOf,
    functionId: (name: string) => idOf('AWS::Lambda::Function', (p) => p.FunctionName === name),
    machineId: (name: string) => idOf('AWS::StepFunctions::StateMachine', (p) => p.StateMachineName === name),
    queueId: (name: string) => idOf('AWS::SQS::Queue', (p) => p.QueueName === name),
    roleOf: (fnId: string) => resources[fnId]!.Properties.Role['Fn::GetAtt'][0] as string,
    statementsOf,
    actions: (roleId: string, service: string) =>
      [...new Set(statementsOf(roleId).flatMap((st) => [st.Action].flat().filter((a) => a.startsWith(`${service}:`))))].sort(),
    /** Which tables a role reaches, and whether it writes them. */
    tables(roleId: string): Record<string, 'read' | 'readwrite'> {
      const found: Record<string, 'read' | 'readwrite'> = {};
      for (const st of statementsOf(roleId)) {
        const table = /ExportsOutputFnGetAtt(\w+?)Table/.exec(JSON.stringify(st.Resource))?.[1];
        if (!table) continue;
        const writes = [st.Action].flat().some((a) => /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/.test(a));
        found[table] = writes || found[table] === 'readwrite' ? 'readwrite' : 'read';
      }
      return found;
    },
    /** The S3 object ARNs a role's statements name, as text: `…:s3:::asof-dev-sources-<account>-<region>/olrc/*`. */
    s3Objects: (roleId: string) =>
      statementsOf(roleId)
        .filter((st) => [st.Action].flat().some((a) => a === 's3:GetObject' || a === 's3:PutObject'))
        .map((st) => (st.Resource['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : `<${p.Ref}>`)).join('')),
    /** The state machine's definition, with each function's ARN written `ARN[<logical id>]`. */
    definition(machineId: string): Json {
      const body = resources[machineId]!.Properties.DefinitionString;
      const text = (body['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : `ARN[${p['Fn::GetAtt'][0]}]`)).join('');
      return JSON.parse(text);
    },
  };
}

/** A task's retriers other than CDK's own of Lambda's service errors, each with its errors joined. */
export const retriesOf = (state: Json) =>
  (state.Retry as Json[]).filter((r) => !r.ErrorEquals[0].startsWith('Lambda.')).map((r) => ({ ...r, ErrorEquals: r.ErrorEquals.join() }));

/**
 * A job run as a state machine on a schedule (lib/job-state-machine.ts): EventBridge Scheduler starts it at
 * `expression` with `input`, retrying and dead-lettering what it cannot deliver into an encrypted queue kept 14 days,
 * under a role only this account's schedules may assume, which may start that state machine and nothing else.
 */
export function expectStartedOnSchedule(template: Template, name: string, expression: string, input: string): void {
  const q = templateQueries(template.toJSON().Resources);
  const machineId = q.machineId(name);
  const queueId = q.queueId(`${name}-dlq`);
  template.hasResourceProperties('AWS::Scheduler::Schedule', {
    Name: name,
    ScheduleExpression: expression,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: 'ENABLED',
    Target: {
      Arn: { Ref: machineId },
      Input: input,
      RoleArn: Match.anyValue(),
      RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 6 * 3600 },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    },
  });
  template.hasResourceProperties('AWS::SQS::Queue', {
    QueueName: `${name}-dlq`,
    SqsManagedSseEnabled: true,
    MessageRetentionPeriod: 14 * 24 * 3600,
  });
  const schedule = Object.values(template.toJSON().Resources as Resources).find((r) => r.Properties.Name === name)!.Properties;
  const roleId = schedule.Target.RoleArn['Fn::GetAtt'][0];
  const trust = template.toJSON().Resources[roleId].Properties.AssumeRolePolicyDocument.Statement;
  expect(trust.map((st: Json) => st.Principal.Service)).toEqual(['scheduler.amazonaws.com']);
  expect(trust[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
  expect(q.statementsOf(roleId).map((st) => [st.Action, st.Resource])).toEqual([
    ['states:StartExecution', { Ref: machineId }],
    ['sqs:SendMessage', { 'Fn::GetAtt': [queueId, 'Arn'] }],
  ]);
}

/** A jobs stack of a test stage with `props` (its stores a stateful stack's, the sources bucket unless `withBucket` is false), built when called. */
export function jobsStackWith(props: Partial<JobsStackProps>, withBucket = true): () => JobsStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stateful = new StatefulStack(app, 'test-stateful', { prefix: 'asof-test' });
  return () =>
    new JobsStack(app, 'test-jobs', {
      prefix: 'asof-test',
      bindings: { ...stateful.tables, ...(withBucket && { sources: stateful.sources }) },
      ...props,
    });
}

/**
 * The alarms of a job run as a state machine: `job-<name>-failed` on its failed and timed-out runs (of the state
 * machine whose logical id starts `machineIdPrefix`), and `dlq-<name>` on its schedule's dead letters.
 */
export function expectRunAlarms(api: Template, name: string, machineIdPrefix: string): void {
  const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Resources).map((r) => r.Properties);
  const run = alarms.find((a) => a.AlarmName === `asof-dev-job-${name}-failed`);
  expect(run?.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric.MetricName)).toEqual([
    'ExecutionsFailed',
    'ExecutionsTimedOut',
  ]);
  expect(JSON.stringify(run?.Metrics)).toContain(machineIdPrefix);
  expect(alarms.some((a) => a.AlarmName === `asof-dev-dlq-${name}`)).toBe(true);
}
