import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#lambda/env.ts';
import { JOB_NAMES, type JobName } from '#lambda/metric-names.ts';
import type { AsofFunction } from '../../lib/asof-function.ts';
import { JobsStack } from '../../lib/jobs-stack.ts';
import type { IngestSchedule, JobBindings } from '../../lib/scheduled-jobs.ts';
import { StatefulStack } from '../../lib/stateful-stack.ts';
import type { Access, FunctionNetwork, SourcesBinding, StoreBinding } from '../../lib/store-binding.ts';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** Stand-ins for the bindings the stateful stack will give (the search domain, the sources bucket): real resources, the same bind contract. */
class SourcesBucketBinding implements SourcesBinding {
  constructor(readonly bucket: Bucket) {}
  bind(fn: AsofFunction, access: Access): void {
    this.bindFolder(fn, '', access);
  }
  bindFolder(fn: AsofFunction, folder: string, access: Access): void {
    fn.addEnvironment(ENV.sourcesBucket, this.bucket.bucketName);
    const objects = folder ? `${folder}/*` : '*';
    if (access === 'read') this.bucket.grantRead(fn.fn, objects);
    else this.bucket.grantReadWrite(fn.fn, objects);
  }
}
class SearchDomainBinding implements StoreBinding {
  constructor(readonly network: FunctionNetwork) {}
  bind(fn: AsofFunction, access: Access): void {
    fn.addEnvironment(ENV.searchUrl, 'https://search.asof.test');
    const actions =
      access === 'read'
        ? ['es:ESHttpGet', 'es:ESHttpHead']
        : ['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost', 'es:ESHttpPut', 'es:ESHttpDelete'];
    fn.fn.addToRolePolicy(new PolicyStatement({ actions, resources: ['arn:aws:es:us-east-1:111111111111:domain/asof-test/*'] }));
  }
}

class CaseLawBinding implements StoreBinding {
  constructor(readonly network: FunctionNetwork) {}
  bind(fn: AsofFunction): void {
    fn.addEnvironment(ENV.caseLawHost, 'proxy.asof.test');
    fn.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['rds-db:connect'], resources: ['arn:aws:rds-db:us-east-1:111111111111:dbuser:prx-test/asof_api'] }),
    );
  }
}

const INGEST_SCHEDULES: IngestSchedule[] = [
  { name: 'usc', schedule: 'cron(0 7 ? * MON *)', event: { kind: 'uslm', files: ['uslm/usc01@117-80.xml'] } },
  { name: 'frap', schedule: 'rate(7 days)', event: { kind: 'rules', set: 'frap', paths: ['rules/frap/'] } },
];

/** A stage's jobs: on the bare stateful stack (no search domain, no bucket: this branch's stages), or with every binding. */
function synth(full: boolean, extra: { ingestSchedules?: IngestSchedule[]; bindings?: Partial<JobBindings> } = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stateful = new StatefulStack(app, 'test-stateful', { prefix: 'asof-test' });
  let bindings: JobBindings = stateful.tables;
  if (full) {
    const data = new Stack(app, 'test-data');
    const vpc = new Vpc(data, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'isolated', subnetType: SubnetType.PRIVATE_ISOLATED }],
    });
    bindings = {
      ...stateful.tables,
      search: new SearchDomainBinding({ vpc, subnets: { subnetType: SubnetType.PRIVATE_ISOLATED } }),
      sources: new SourcesBucketBinding(new Bucket(data, 'Sources')),
      caselaw: new CaseLawBinding({ vpc, subnets: { subnetType: SubnetType.PRIVATE_ISOLATED } }),
    };
  }
  const stack = new JobsStack(app, 'test-jobs', {
    prefix: 'asof-test',
    bindings: { ...bindings, ...extra.bindings },
    ...(full && { ingestSchedules: extra.ingestSchedules ?? INGEST_SCHEDULES }),
    logRetention: RetentionDays.ONE_WEEK,
  });
  return { stack, t: Template.fromStack(stack) };
}

let bare: Template;
let full: Template;
let fullStack: JobsStack;
beforeAll(() => {
  bare = synth(false).t;
  ({ t: full, stack: fullStack } = synth(true));
});

const functionsOf = (t: Template) => t.findResources('AWS::Lambda::Function') as Resources;
const logicalIdOf = (t: Template, job: JobName) =>
  Object.entries(functionsOf(t)).find(([, f]) => f.Properties.FunctionName === `asof-test-job-${job}`)![0];
const queueIdOf = (t: Template, job: JobName) =>
  Object.entries(t.findResources('AWS::SQS::Queue') as Resources).find(
    ([, q]) => q.Properties.QueueName === `asof-test-job-${job}-dlq`,
  )![0];
const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** The policy statements of a role. */
function statementsOf(t: Template, roleId: string): { Action: string | string[]; Resource: unknown; Effect: string }[] {
  return Object.values(t.findResources('AWS::IAM::Policy') as Resources)
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}
const functionRoleOf = (t: Template, job: JobName) => functionsOf(t)[logicalIdOf(t, job)]!.Properties.Role['Fn::GetAtt'][0] as string;
const envOf = (t: Template, job: JobName) =>
  functionsOf(t)[logicalIdOf(t, job)]!.Properties.Environment.Variables as Record<string, unknown>;

/** What the job's role may do to each table: read, or read and write. */
function tableAccess(t: Template, job: JobName): Record<string, Access> {
  const access: Record<string, Access> = {};
  for (const st of statementsOf(t, functionRoleOf(t, job))) {
    const table = ['Versions', 'Accounts', 'Meters', 'Ops'].find((n) => JSON.stringify(st.Resource).includes(`${n}Table`));
    if (!table) continue;
    const writes = [st.Action].flat().some((a) => /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/.test(a));
    if (writes || !access[table]) access[table] = writes ? 'readwrite' : 'read';
  }
  return access;
}
const actionsOf = (t: Template, job: JobName, service: string) =>
  [
    ...new Set(
      statementsOf(t, functionRoleOf(t, job))
        .flatMap((st) => [st.Action].flat())
        .filter((a) => a.startsWith(`${service}:`)),
    ),
  ].sort();

const SPECS: Record<JobName, { memory: number; timeout: number; expression?: string; maxEventAge: number; runRetries: number }> = {
  probe: { memory: 512, timeout: 30, expression: 'rate(5 minutes)', maxEventAge: 300, runRetries: 0 },
  coverage: { memory: 1024, timeout: 300, expression: 'rate(15 minutes)', maxEventAge: 900, runRetries: 0 },
  audit: { memory: 1769, timeout: 900, expression: 'cron(15 4 * * ? *)', maxEventAge: 21600, runRetries: 2 },
  ingest: { memory: 3008, timeout: 900, maxEventAge: 21600, runRetries: 1 },
};

describe('the scheduled jobs', () => {
  it('have one function per job and no other, exposed by the construct for the alarms', () => {
    for (const t of [bare, full]) {
      const names = Object.values(functionsOf(t))
        .map((f) => f.Properties.FunctionName)
        .sort();
      expect(names).toEqual(JOB_NAMES.map((j) => `asof-test-job-${j}`).sort());
    }
    const logicalId = (c: IConstruct) => fullStack.getLogicalId(c.node.defaultChild as CfnElement);
    for (const job of JOB_NAMES) {
      expect(logicalId(fullStack.jobs.functions[job].fn)).toBe(logicalIdOf(full, job));
      expect(logicalId(fullStack.jobs.deadLetterQueues[job])).toBe(queueIdOf(full, job));
    }
  });

  it('run on Node.js 22, ARM64, traced, each with the memory and timeout its work needs (ingest: 15 minutes, 3008 MB, 2 GB of /tmp)', () => {
    for (const job of JOB_NAMES) {
      full.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `asof-test-job-${job}`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: SPECS[job].memory,
        Timeout: SPECS[job].timeout,
        TracingConfig: { Mode: 'Active' },
      });
    }
    full.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'asof-test-job-ingest', EphemeralStorage: { Size: 2048 } });
  });

  it('schedule probe every 5 minutes, coverage every 15, the audit daily, each at its function, with no flexible window', () => {
    const schedules = Object.values(full.findResources('AWS::Scheduler::Schedule') as Resources).map((s) => s.Properties);
    for (const job of ['probe', 'coverage', 'audit'] as const) {
      const s = schedules.find((x) => x.Name === `asof-test-${job}`)!;
      expect(s, job).toMatchObject({
        ScheduleExpression: SPECS[job].expression,
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
        Target: { Arn: getAtt(logicalIdOf(full, job)) },
      });
    }
  });

  it('give every schedule a retry policy and its job’s encrypted dead-letter queue', () => {
    for (const s of Object.values(full.findResources('AWS::Scheduler::Schedule') as Resources).map((x) => x.Properties)) {
      const job = JOB_NAMES.find((j) => JSON.stringify(s.Target.Arn).includes(logicalIdOf(full, j)))!;
      expect(s.Target.RetryPolicy, s.Name).toEqual({ MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: SPECS[job].maxEventAge });
      expect(s.Target.DeadLetterConfig, s.Name).toEqual({ Arn: getAtt(queueIdOf(full, job)) });
    }
    full.resourceCountIs('AWS::SQS::Queue', 4);
    for (const job of JOB_NAMES) {
      full.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `asof-test-job-${job}-dlq`,
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      full.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueIdOf(full, job) }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('send a run that failed every attempt to the job’s dead-letter queue, retrying only where a retry helps', () => {
    for (const job of JOB_NAMES) {
      full.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: logicalIdOf(full, job) },
        MaximumRetryAttempts: SPECS[job].runRetries,
        MaximumEventAgeInSeconds: SPECS[job].maxEventAge,
        DestinationConfig: { OnFailure: { Destination: getAtt(queueIdOf(full, job)) } },
      });
      expect(actionsOf(full, job, 'sqs'), job).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      const sqs = statementsOf(full, functionRoleOf(full, job)).filter((st) => [st.Action].flat().some((a) => a.startsWith('sqs:')));
      expect(
        sqs.map((st) => st.Resource),
        job,
      ).toEqual([getAtt(queueIdOf(full, job))]);
    }
  });

  it('run ingest on the stage’s schedules, the event as the schedule’s input', () => {
    for (const s of INGEST_SCHEDULES) {
      full.hasResourceProperties('AWS::Scheduler::Schedule', {
        Name: `asof-test-ingest-${s.name}`,
        ScheduleExpression: s.schedule,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({ Arn: getAtt(logicalIdOf(full, 'ingest')), Input: JSON.stringify(s.event) }),
      });
    }
    expect(Object.keys(bare.findResources('AWS::Scheduler::Schedule')).length).toBe(3);
  });

  it('let each job’s scheduler role be assumed by the scheduler alone and invoke exactly its job’s function', () => {
    const schedules = Object.values(full.findResources('AWS::Scheduler::Schedule') as Resources).map((s) => s.Properties);
    const roles = full.findResources('AWS::IAM::Role') as Resources;
    for (const s of schedules) {
      const roleId = s.Target.RoleArn['Fn::GetAtt'][0] as string;
      const trust = roles[roleId]!.Properties.AssumeRolePolicyDocument.Statement;
      expect(trust.map((st: any) => st.Principal.Service)).toEqual(['scheduler.amazonaws.com']);
      expect(trust[0].Condition.StringEquals['aws:SourceAccount'], 'only schedules of this account').toEqual({ Ref: 'AWS::AccountId' });
      expect(JSON.stringify(trust[0].Condition.StringEquals['aws:SourceArn']), 'in the default schedule group').toContain(
        ':schedule-group/default',
      );
      const fnId = s.Target.Arn['Fn::GetAtt'][0] as string;
      const statements = statementsOf(full, roleId);
      const invoke = statements.filter((st) => st.Action === 'lambda:InvokeFunction');
      expect(
        invoke.flatMap((st) => [st.Resource].flat()),
        s.Name,
      ).toEqual([getAtt(fnId), { 'Fn::Join': ['', [getAtt(fnId), ':*']] }]);
      expect(statements.flatMap((st) => [st.Action].flat()).sort(), s.Name).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    }
  });

  it('give each job exactly the tables it uses: the probe, coverage and audit read versions and write ops; only the ingest writes versions', () => {
    const expected: Record<JobName, Record<string, Access>> = {
      probe: { Versions: 'read', Ops: 'readwrite' },
      coverage: { Versions: 'read', Ops: 'readwrite' },
      audit: { Versions: 'read', Ops: 'readwrite' },
      ingest: { Versions: 'readwrite', Ops: 'readwrite' },
    };
    for (const t of [bare, full]) {
      for (const job of JOB_NAMES) {
        expect(tableAccess(t, job), job).toEqual(expected[job]);
        expect(
          Object.keys(envOf(t, job))
            .filter((k) => /^ASOF_[A-Z]+_TABLE$/.test(k))
            .sort(),
          job,
        ).toEqual(['ASOF_OPS_TABLE', 'ASOF_VERSIONS_TABLE']);
      }
    }
  });

  it('give the search index to the probe and the audit to read and to the ingest to write, placing them in its network; coverage gets none', () => {
    expect(actionsOf(full, 'probe', 'es')).toEqual(['es:ESHttpGet', 'es:ESHttpHead']);
    expect(actionsOf(full, 'audit', 'es')).toEqual(['es:ESHttpGet', 'es:ESHttpHead']);
    expect(actionsOf(full, 'ingest', 'es')).toContain('es:ESHttpPost');
    expect(actionsOf(full, 'coverage', 'es')).toEqual([]);
    for (const job of JOB_NAMES) {
      const fn = functionsOf(full)[logicalIdOf(full, job)]!.Properties;
      expect(fn.Environment.Variables[ENV.searchUrl] !== undefined, job).toBe(job !== 'coverage');
      expect(fn.VpcConfig !== undefined, job).toBe(job !== 'coverage');
    }
  });

  it('give the sources bucket to the ingest alone, to read', () => {
    for (const job of JOB_NAMES) {
      expect(envOf(full, job)[ENV.sourcesBucket] !== undefined, job).toBe(job === 'ingest');
      const s3 = actionsOf(full, job, 's3');
      if (job === 'ingest') expect(s3.length).toBeGreaterThan(0);
      else expect(s3, job).toEqual([]);
      expect(
        s3.some((a) => /Put|Delete/.test(a)),
        job,
      ).toBe(false);
    }
  });

  it('give the case-law replica to the ingest alone (its courtlistener events), to write', () => {
    for (const job of JOB_NAMES) {
      expect(envOf(full, job)[ENV.caseLawHost] !== undefined, job).toBe(job === 'ingest');
      expect(actionsOf(full, job, 'rds-db'), job).toEqual(job === 'ingest' ? ['rds-db:connect'] : []);
      expect(envOf(bare, job)[ENV.caseLawHost], job).toBeUndefined();
    }
  });

  it('synthesize without a search domain or a sources bucket (no search variable, no VPC)', () => {
    for (const job of JOB_NAMES) {
      expect(envOf(bare, job)[ENV.searchUrl], job).toBeUndefined();
      expect(envOf(bare, job)[ENV.sourcesBucket], job).toBeUndefined();
      expect(functionsOf(bare)[logicalIdOf(bare, job)]!.Properties.VpcConfig, job).toBeUndefined();
    }
  });
});

describe('ingest schedules that could never run are refused at synth', () => {
  it.each<[string, IngestSchedule[], Partial<JobBindings>, RegExp]>([
    ['without the sources bucket', INGEST_SCHEDULES, { sources: undefined }, /need the sources bucket/],
    [
      'with a bad event',
      [{ name: 'usc', schedule: 'rate(1 day)', event: { kind: 'uslm', files: [] } }],
      {},
      /ingest schedule 'usc': ingest event refused[\s\S]*files/,
    ],
    [
      'with a path out of the bucket',
      [{ name: 'usc', schedule: 'rate(1 day)', event: { kind: 'uslm', files: ['../x.xml'] } }],
      {},
      /files\[0\]/,
    ],
    [
      'with a bad expression',
      [{ name: 'usc', schedule: 'every monday', event: INGEST_SCHEDULES[0]!.event }],
      {},
      /not a rate\(…\), cron\(…\) or at\(…\) expression/,
    ],
    ['named twice', [INGEST_SCHEDULES[0]!, INGEST_SCHEDULES[0]!], {}, /configured twice/],
    [
      'loading case law without the replica',
      [{ name: 'cl', schedule: 'rate(7 days)', event: { kind: 'courtlistener', paths: ['caselaw/'] } }],
      { caselaw: undefined },
      /needs the case-law replica/,
    ],
    ['with a name a schedule cannot carry', [{ ...INGEST_SCHEDULES[0]!, name: 'US Code' }], {}, /lowercase letters, digits and hyphens/],
  ])('%s', (_what, ingestSchedules, bindings, message) => {
    expect(() => synth(true, { ingestSchedules, bindings })).toThrow(message);
  });
});
