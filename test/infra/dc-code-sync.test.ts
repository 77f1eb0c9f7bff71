/**
 * The scheduled D.C. Code sync (lib/source-sync.ts, lib/source-sync-machine.ts, its entry in lib/sources.ts) in the dev stage exactly as
 * bin/stage.ts builds it: the schedule, the state machine's definition (the sync, then a Map over the batches of
 * publications one at a time, then the finish; the retries; a failed batch carried on and the run failed at its end),
 * each role's grants (least privilege to the bucket's dc-code/ folder and to the tables), stable logical ids, and the
 * alarms on it.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#lambda/env.ts';
import { DC_CODE_ERRORS } from '#lambda/jobs/dc-code-steps.ts';
import {
  devStageTemplates,
  expectRunAlarms,
  expectStartedOnSchedule,
  type Json,
  jobsStackWith,
  type Resources,
  retriesOf,
  type templateQueries,
} from '../support/template-queries.ts';

let jobs: Template;
let api: Template;
let resources: Resources;
let q: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ jobs, api, resources, q } = devStageTemplates());
});

const SYNC = 'asof-dev-job-dc-code-sync';
const INGEST = 'asof-dev-job-dc-code-ingest';
const machineId = () => q.machineId('asof-dev-dc-code-sync');
const queueId = () => q.queueId('asof-dev-dc-code-sync-dlq');
const DC_CODE_OBJECTS = 'arn:<AWS::Partition>:s3:::asof-dev-sources-<AWS::AccountId>-<AWS::Region>/dc-code/*';

describe('the schedule', () => {
  it('starts the state machine daily at 08:00 UTC with the Council’s remote, retrying and dead-lettering what it cannot deliver, under a role that may start it alone', () => {
    expectStartedOnSchedule(jobs, 'asof-dev-dc-code-sync', 'cron(0 8 * * ? *)', '{}');
  });

  it('keeps its logical ids: renaming a construct would replace the functions, the queue and the state machine', () => {
    expect([q.functionId(SYNC), q.functionId(INGEST), machineId(), queueId()]).toEqual([
      expect.stringMatching(/^DcCodeSyncSyncFunction[0-9A-F]{8}$/),
      expect.stringMatching(/^DcCodeSyncIngestFunction[0-9A-F]{8}$/),
      expect.stringMatching(/^DcCodeSyncMachineStateMachine[0-9A-F]{8}$/),
      expect.stringMatching(/^DcCodeSyncDeadLetters[0-9A-F]{8}$/),
    ]);
  });
});

describe('the state machine', () => {
  it('is a traced STANDARD state machine, every event logged, a run limited to 12 hours', () => {
    const p = resources[machineId()]!.Properties;
    expect(p.StateMachineType).toBe('STANDARD');
    expect(p.TracingConfiguration).toEqual({ Enabled: true });
    expect(p.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    expect(q.definition(machineId()).TimeoutSeconds).toBe(12 * 3600);
  });

  it('syncs, then maps over the batches one at a time (publications in order), then finishes', () => {
    const d = q.definition(machineId());
    const sync = `ARN[${q.functionId(SYNC)}]`;
    const ingest = `ARN[${q.functionId(INGEST)}]`;
    expect(d.StartAt).toBe('Sync');
    expect(d.States.Sync).toMatchObject({
      Resource: sync,
      Parameters: { step: 'sync', 'request.$': '$' },
      ResultPath: '$.run',
      Next: 'AnyPending',
    });
    expect(d.States.AnyPending).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.run.plan.pending', NumericEquals: 0, Next: 'UpToDate' }],
      Default: 'Ingests',
    });
    expect(d.States.UpToDate).toEqual({ Type: 'Succeed' });
    expect(d.States.Ingests).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.run.batches',
      ResultPath: '$.run.batches',
      MaxConcurrency: 1,
      Next: 'Finish',
    });
    const perBatch = d.States.Ingests.ItemProcessor;
    expect(perBatch.StartAt).toBe('IngestBatch');
    expect(perBatch.States.IngestBatch).toMatchObject({ Resource: ingest, Parameters: { step: 'ingest', 'batch.$': '$' }, End: true });
    expect(d.States.Finish).toMatchObject({
      Resource: ingest,
      Parameters: { step: 'finish', 'plan.$': '$.run.plan', 'batches.$': '$.run.batches' },
      ResultPath: '$.summary',
      Next: 'AnyBatchFailed',
    });
  });

  it('retries what may pass (the remote unavailable, the lease held, anything else once), never a refused step', () => {
    const d = q.definition(machineId());
    const refused = { ErrorEquals: DC_CODE_ERRORS.refused, MaxAttempts: 0 };
    expect(retriesOf(d.States.Sync)).toEqual([
      refused,
      { ErrorEquals: DC_CODE_ERRORS.remoteUnavailable, IntervalSeconds: 60, MaxAttempts: 3, BackoffRate: 2 },
      { ErrorEquals: 'States.ALL', IntervalSeconds: 30, MaxAttempts: 1 },
    ]);
    expect(retriesOf(d.States.Ingests.ItemProcessor.States.IngestBatch)).toEqual([
      refused,
      { ErrorEquals: DC_CODE_ERRORS.ingestBusy, IntervalSeconds: 60, MaxAttempts: 5, BackoffRate: 2 },
      { ErrorEquals: 'States.ALL', IntervalSeconds: 30, MaxAttempts: 1 },
    ]);
    expect(retriesOf(d.States.Finish)).toEqual([
      refused,
      { ErrorEquals: 'States.ALL', IntervalSeconds: 60, MaxAttempts: 2, BackoffRate: 2 },
    ]);
    // Lambda's own transient errors are retried too (CDK's retry of service exceptions).
    expect(d.States.Sync.Retry[0].ErrorEquals).toContain('Lambda.ServiceException');
  });

  it('carries a batch that failed every try on as failed (its error), and fails the run at its end naming it', () => {
    const states = q.definition(machineId()).States;
    const perBatch = states.Ingests.ItemProcessor.States;
    expect(perBatch.IngestBatch.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'BatchFailed' }]);
    expect(perBatch.BatchFailed).toEqual({
      Type: 'Pass',
      Parameters: {
        'batch.$': '$.batch',
        'of.$': '$.of',
        'commits.$': '$.commits',
        'files.$': '$.files',
        'first.$': '$.first',
        'after.$': '$.after',
        outcome: 'failed',
        'error.$': '$.failure.Error',
      },
      End: true,
    });
    expect(states.AnyBatchFailed).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.summary.failed', NumericGreaterThan: 0, Next: 'BatchesFailed' }],
      Default: 'Done',
    });
    expect(states.BatchesFailed).toEqual({ Type: 'Fail', Error: 'BatchesFailed', CausePath: '$.summary.message' });
    // The sync and the finish are not caught: their failure (a remote that cannot be read) is the run's.
    expect(states.Sync.Catch).toBeUndefined();
    expect(states.Finish.Catch).toBeUndefined();
  });

  it('may invoke the two functions of the sync and nothing else', () => {
    const roleId = resources[machineId()]!.Properties.RoleArn['Fn::GetAtt'][0];
    const invoked = q
      .statementsOf(roleId)
      .filter((st) => st.Action === 'lambda:InvokeFunction')
      .flatMap((st) => st.Resource.map((r: Json) => JSON.stringify(r)));
    const fnArn = (name: string) => ({ 'Fn::GetAtt': [q.functionId(name), 'Arn'] });
    expect(invoked.sort()).toEqual(
      [SYNC, INGEST].flatMap((n) => [JSON.stringify(fnArn(n)), JSON.stringify({ 'Fn::Join': ['', [fnArn(n), ':*']] })]).sort(),
    );
    expect(q.actions(roleId, 'dynamodb')).toEqual([]);
    expect(q.actions(roleId, 's3')).toEqual([]);
  });
});

describe('the functions, each with what it reaches and no more', () => {
  it('the sync step (remote): reads the ops table only, reads and puts objects of the bucket’s dc-code/ folder only, outside the VPC', () => {
    const fnId = q.functionId(SYNC);
    const fn = resources[fnId]!.Properties;
    expect(fn).toMatchObject({ MemorySize: 2048, Timeout: 600, EphemeralStorage: { Size: 1024 }, Architectures: ['arm64'] });
    expect(fn.VpcConfig).toBeUndefined();
    expect(
      Object.keys(fn.Environment.Variables)
        .filter((k) => k.startsWith('ASOF_'))
        .sort(),
    ).toEqual(['ASOF_OPS_TABLE', ENV.sourcesBucket]);
    const role = q.roleOf(fnId);
    expect(q.tables(role)).toEqual({ Ops: 'read' });
    // Never s3:DeleteObject: the bucket is versioned, and a pack once stored is never taken away.
    expect(q.actions(role, 's3')).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(q.s3Objects(role)).toEqual([DC_CODE_OBJECTS]);
    expect(q.actions(role, 'es')).toEqual([]);
  });

  it('the ingest step (stores): writes the versions and ops tables and the search index, reads the dc-code/ folder only, in the VPC', () => {
    const fnId = q.functionId(INGEST);
    const fn = resources[fnId]!.Properties;
    expect(fn).toMatchObject({ MemorySize: 3008, Timeout: 900, EphemeralStorage: { Size: 1024 } });
    expect(fn.VpcConfig).toBeDefined();
    const role = q.roleOf(fnId);
    expect(q.tables(role)).toEqual({ Versions: 'readwrite', Ops: 'readwrite' });
    expect(q.actions(role, 's3')).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(q.s3Objects(role)).toEqual([DC_CODE_OBJECTS]);
    expect(q.actions(role, 'es')).toEqual(['es:ESHttpGet', 'es:ESHttpPost']);
    expect(q.actions(role, 'rds-db')).toEqual([]);
  });

  it('the ingest step’s role is among those the setup job maps to the search index’s write role (fine-grained access)', () => {
    const setup = Object.values(api.toJSON().Resources as Resources).find(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.[ENV.searchWriteRoles],
    );
    expect(JSON.stringify(setup?.Properties.Environment.Variables[ENV.searchWriteRoles])).toContain(
      `ExportsOutputFnGetAtt${q.roleOf(q.functionId(INGEST))}Arn`,
    );
  });
});

describe('the alarms', () => {
  it('alarm on a failed or timed-out run, and on a delivery the scheduler gave up on', () => {
    expectRunAlarms(api, 'dc-code-sync', 'DcCodeSyncMachineStateMachine');
  });
});

describe('a sync that could never run is refused at synth', () => {
  const synth = (dcCodeSync: Json, withBucket = true) => jobsStackWith({ sources: { 'dc-code-sync': dcCodeSync } }, withBucket);

  it.each([
    ['without the sources bucket', { schedule: 'rate(1 day)' }, false, /needs the sources bucket/],
    ['with a bad expression', { schedule: 'daily' }, true, /not a rate\(…\), cron\(…\) or at\(…\) expression/],
    [
      'with a remote that is no HTTP URL',
      { schedule: 'rate(1 day)', request: { remote: 'git@github.com:DCCouncil/x.git' } },
      true,
      /remote/,
    ],
    ['with a field it does not know', { schedule: 'rate(1 day)', request: { since: '2024-01-01' } }, true, /since/],
  ])('%s', (_what, dcCodeSync, withBucket, message) => {
    expect(synth(dcCodeSync, withBucket)).toThrow(message);
  });

  it('builds no sync when the stage configures none', () => {
    const stack = jobsStackWith({})();
    expect(stack.syncs.get('dc-code-sync')).toBeUndefined();
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'))).toEqual([]);
  });
});
