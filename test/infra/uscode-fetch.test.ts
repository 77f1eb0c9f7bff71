/**
 * The scheduled US Code fetch (lib/source-sync.ts, lib/source-sync-machine.ts, its entry in lib/sources.ts) in the dev stage exactly as
 * bin/stage.ts builds it: the schedule, the state machine's definition (a Map over the titles to download, 4 at once,
 * then a Map over them to ingest, one at a time; the retries; failed titles carried on and the run failed at its
 * end), each role's grants (least privilege to the bucket's olrc/ folder and to the tables), and the alarms on it.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#lambda/env.ts';
import { USCODE_ERRORS } from '#lambda/jobs/uscode-steps.ts';
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

const FETCH = 'asof-dev-job-uscode-fetch';
const INGEST = 'asof-dev-job-uscode-ingest';
const functionId = (name: string) => q.functionId(name);
const machineId = () => q.machineId('asof-dev-uscode-fetch');
const roleOf = (fnId: string) => q.roleOf(fnId);
const statementsOf = (roleId: string) => q.statementsOf(roleId);
const actions = (roleId: string, service: string) => q.actions(roleId, service);
const tables = (roleId: string) => q.tables(roleId);
const s3Objects = (roleId: string) => q.s3Objects(roleId);
const definition = () => q.definition(machineId());

describe('the schedule', () => {
  it('starts the state machine daily at 06:30 UTC with the stage’s request, retrying and dead-lettering what it cannot deliver, under a role that may start it alone', () => {
    expectStartedOnSchedule(jobs, 'asof-dev-uscode-fetch', 'cron(30 6 * * ? *)', '{}');
  });
});

describe('the state machine', () => {
  it('is a traced STANDARD state machine, every event logged, a run limited to a day', () => {
    const p = resources[machineId()]!.Properties;
    expect(p.StateMachineType).toBe('STANDARD');
    expect(p.TracingConfiguration).toEqual({ Enabled: true });
    expect(p.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    expect(definition().TimeoutSeconds).toBe(24 * 3600);
  });

  it('checks, then maps over the titles: downloads 4 at once, ingests one at a time (the ingest lease), then finishes', () => {
    const d = definition();
    const fetch = `ARN[${functionId(FETCH)}]`;
    const ingest = `ARN[${functionId(INGEST)}]`;
    expect(d.StartAt).toBe('Check');
    expect(d.States.Check).toMatchObject({
      Resource: fetch,
      Parameters: { step: 'check', 'request.$': '$' },
      ResultPath: '$.run',
      Next: 'UpToDate',
    });
    expect(d.States.UpToDate).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.run.plan.upToDate', BooleanEquals: true, Next: 'AlreadyCurrent' }],
      Default: 'Downloads',
    });
    expect(d.States.Downloads).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.run.titles',
      ResultPath: '$.run.titles',
      MaxConcurrency: 4,
      Next: 'Ingests',
    });
    expect(d.States.Downloads.ItemProcessor.States.DownloadTitle).toMatchObject({
      Resource: fetch,
      Parameters: { step: 'download', 'job.$': '$' },
    });
    expect(d.States.Ingests).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.run.titles',
      ResultPath: '$.run.titles',
      MaxConcurrency: 1,
      Next: 'Finish',
    });
    const perTitle = d.States.Ingests.ItemProcessor;
    expect(perTitle.StartAt).toBe('ToIngest');
    expect(perTitle.States.ToIngest.Choices).toEqual([
      {
        Or: [
          { Variable: '$.outcome', StringEquals: 'downloaded' },
          { Variable: '$.outcome', StringEquals: 'in-bucket' },
        ],
        Next: 'IngestTitle',
      },
    ]);
    expect(perTitle.States.IngestTitle).toMatchObject({ Resource: ingest, Parameters: { step: 'ingest', 'job.$': '$' } });
    expect(d.States.Finish).toMatchObject({
      Resource: ingest,
      Parameters: { step: 'finish', 'plan.$': '$.run.plan', 'titles.$': '$.run.titles' },
      ResultPath: '$.summary',
      Next: 'AnyTitleFailed',
    });
  });

  it('retries what may pass (the publisher unavailable, the lease held, anything else once), never a refused step', () => {
    const d = definition();
    const refused = { ErrorEquals: USCODE_ERRORS.refused, MaxAttempts: 0 };
    expect(retriesOf(d.States.Downloads.ItemProcessor.States.DownloadTitle)).toEqual([
      refused,
      { ErrorEquals: USCODE_ERRORS.publisherUnavailable, IntervalSeconds: 30, MaxAttempts: 3, BackoffRate: 2 },
      { ErrorEquals: 'States.ALL', IntervalSeconds: 10, MaxAttempts: 1 },
    ]);
    expect(retriesOf(d.States.Ingests.ItemProcessor.States.IngestTitle)).toEqual([
      refused,
      { ErrorEquals: USCODE_ERRORS.ingestBusy, IntervalSeconds: 60, MaxAttempts: 5, BackoffRate: 2 },
      { ErrorEquals: 'States.ALL', IntervalSeconds: 30, MaxAttempts: 1 },
    ]);
    expect(retriesOf(d.States.Check)).toEqual([
      refused,
      { ErrorEquals: USCODE_ERRORS.publisherUnavailable, IntervalSeconds: 60, MaxAttempts: 3, BackoffRate: 2 },
      { ErrorEquals: 'States.ALL', IntervalSeconds: 30, MaxAttempts: 1 },
    ]);
    // Lambda's own transient errors are retried too (CDK's retry of service exceptions).
    expect(d.States.Finish.Retry[0].ErrorEquals).toContain('Lambda.ServiceException');
  });

  it('carries a title that failed every try on as failed (its step and error), and fails the run at its end naming them', () => {
    const d = definition();
    for (const [map, task, pass, step] of [
      ['Downloads', 'DownloadTitle', 'DownloadFailed', 'download'],
      ['Ingests', 'IngestTitle', 'IngestFailed', 'ingest'],
    ] as const) {
      const states = d.States[map].ItemProcessor.States;
      expect(states[task].Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: pass }]);
      expect(states[pass]).toEqual({
        Type: 'Pass',
        Parameters: {
          'releasePoint.$': '$.releasePoint',
          'title.$': '$.title',
          'url.$': '$.url',
          'named.$': '$.named',
          outcome: 'failed',
          step,
          'error.$': '$.failure.Error',
        },
        End: true,
      });
    }
    expect(d.States.AnyTitleFailed).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.summary.failed', NumericGreaterThan: 0, Next: 'TitlesFailed' }],
      Default: 'Done',
    });
    expect(d.States.TitlesFailed).toEqual({ Type: 'Fail', Error: 'TitlesFailed', CausePath: '$.summary.message' });
    // The check and the finish are not caught: their failure fails the run.
    expect(d.States.Check.Catch).toBeUndefined();
    expect(d.States.Finish.Catch).toBeUndefined();
  });

  it('may invoke the two functions of the fetch and nothing else', () => {
    const roleId = resources[machineId()]!.Properties.RoleArn['Fn::GetAtt'][0];
    const invoked = statementsOf(roleId)
      .filter((st) => st.Action === 'lambda:InvokeFunction')
      .flatMap((st) => st.Resource.map((r: Json) => JSON.stringify(r)));
    const fnArn = (name: string) => ({ 'Fn::GetAtt': [functionId(name), 'Arn'] });
    expect(invoked.sort()).toEqual(
      [FETCH, INGEST].flatMap((n) => [JSON.stringify(fnArn(n)), JSON.stringify({ 'Fn::Join': ['', [fnArn(n), ':*']] })]).sort(),
    );
    expect(actions(roleId, 'dynamodb')).toEqual([]);
    expect(actions(roleId, 's3')).toEqual([]);
  });
});

describe('the functions, each with what it reaches and no more', () => {
  it('the fetch step (publisher): reads the ops table only, reads and puts objects of the bucket’s olrc/ folder only, outside the VPC', () => {
    const fnId = functionId(FETCH);
    const fn = resources[fnId]!.Properties;
    expect(fn).toMatchObject({ MemorySize: 1024, Timeout: 600, EphemeralStorage: { Size: 1024 }, Architectures: ['arm64'] });
    expect(fn.VpcConfig).toBeUndefined();
    expect(
      Object.keys(fn.Environment.Variables)
        .filter((k) => k.startsWith('ASOF_'))
        .sort(),
    ).toEqual(['ASOF_OPS_TABLE', ENV.sourcesBucket]);
    const role = roleOf(fnId);
    expect(tables(role)).toEqual({ Ops: 'read' });
    expect(actions(role, 's3')).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(s3Objects(role)).toEqual(['arn:<AWS::Partition>:s3:::asof-dev-sources-<AWS::AccountId>-<AWS::Region>/olrc/*']);
    expect(actions(role, 'es')).toEqual([]);
  });

  it('the ingest step (stores): writes the versions and ops tables and the search index, reads the olrc/ folder only, in the VPC', () => {
    const fnId = functionId(INGEST);
    const fn = resources[fnId]!.Properties;
    expect(fn).toMatchObject({ MemorySize: 3008, Timeout: 900, EphemeralStorage: { Size: 2048 } });
    expect(fn.VpcConfig).toBeDefined();
    const role = roleOf(fnId);
    expect(tables(role)).toEqual({ Versions: 'readwrite', Ops: 'readwrite' });
    expect(actions(role, 's3')).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(s3Objects(role)).toEqual(['arn:<AWS::Partition>:s3:::asof-dev-sources-<AWS::AccountId>-<AWS::Region>/olrc/*']);
    expect(actions(role, 'es')).toEqual(['es:ESHttpGet', 'es:ESHttpPost']);
    expect(actions(role, 'rds-db')).toEqual([]);
  });
});

describe('the alarms', () => {
  it('alarm on a failed or timed-out run, and on a delivery the scheduler gave up on', () => {
    expectRunAlarms(api, 'uscode-fetch', 'UscodeFetchMachineStateMachine');
  });
});

describe('a fetch that could never run is refused at synth', () => {
  const synth = (uscodeFetch: Json, withBucket = true) => jobsStackWith({ sources: { 'uscode-fetch': uscodeFetch } }, withBucket);

  it.each([
    ['without the sources bucket', { schedule: 'rate(1 day)' }, false, /needs the sources bucket/],
    ['with a bad expression', { schedule: 'daily' }, true, /not a rate\(…\), cron\(…\) or at\(…\) expression/],
    ['with two choices at once', { schedule: 'rate(1 day)', request: { latest: true, since: '113-31' } }, true, /at most one of/],
    ['with a field it does not know', { schedule: 'rate(1 day)', request: { title: '1' } }, true, /title/],
  ])('%s', (_what, uscodeFetch, withBucket, message) => {
    expect(synth(uscodeFetch, withBucket)).toThrow(message);
  });

  it('builds no fetch when the stage configures none', () => {
    const stack = jobsStackWith({})();
    expect(stack.syncs.get('uscode-fetch')).toBeUndefined();
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'))).toEqual([]);
  });
});
