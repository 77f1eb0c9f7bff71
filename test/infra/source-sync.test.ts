/**
 * Every scheduled source in one shape (lib/source-sync.ts, lib/source-sync-machine.ts, the table lib/sources.ts), in
 * the dev stage exactly as bin/stage.ts builds it: one state machine per source (the US Code, the D.C. Code, and a
 * sync for each state functions/ingest/state-codes/formats.ts configures), each with the shared retry policy, catch
 * and carry, and failure at the end; each on its own schedule with its dead-letter queue and alarms; the states
 * sharing their connector's two functions. And a source added as one table entry gets all of that, with no file of
 * its own.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { STAGES } from '../../bin/stages.ts';
import { SOURCES, stateCodeSourceName } from '../../lib/sources.ts';
import {
  devStageTemplates,
  expectRunAlarms,
  expectStartedOnSchedule,
  type Json,
  jobsStackWith,
  type Resources,
  retriesOf,
  templateQueries,
} from '../support/template-queries.ts';

let jobs: Template;
let api: Template;
let resources: Resources;
let q: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ jobs, api, resources, q } = devStageTemplates());
});

const STATES = Object.keys(STATE_CODE_FORMATS);
const SCHEDULED = Object.keys(STAGES.dev!.sources);
/** The retry policy every source shares, as figures (lib/source-sync-machine.ts must produce exactly these). */
const POLICY: Record<string, { IntervalSeconds: number; MaxAttempts: number; BackoffRate: number }> = {
  remote: { IntervalSeconds: 60, MaxAttempts: 3, BackoffRate: 2 },
  'remote-job': { IntervalSeconds: 30, MaxAttempts: 3, BackoffRate: 2 },
  lease: { IntervalSeconds: 60, MaxAttempts: 5, BackoffRate: 2 },
};

describe('the dev stage', () => {
  it('has one state machine per source: the US Code, the D.C. Code and every configured state, each its own', () => {
    expect(SCHEDULED.sort()).toEqual(['dc-code-sync', 'uscode-fetch', ...STATES.map(stateCodeSourceName)].sort());
    const machines = Object.values(resources)
      .filter((r) => r.Type === 'AWS::StepFunctions::StateMachine')
      .map((r) => r.Properties.StateMachineName);
    expect(machines.sort()).toEqual(SCHEDULED.map((name) => `asof-dev-${name}`).sort());
  });

  it.each(SCHEDULED)(
    '%s: the plan, each job step and the finish retried by the shared policy, a failed job carried on, the run failed at its end',
    (name) => {
      const shape = SOURCES[name]!.connector.shape;
      const d = q.definition(q.machineId(`asof-dev-${name}`));
      const refused = { ErrorEquals: shape.refused, MaxAttempts: 0 };
      expect(d.StartAt).toBe(shape.plan.state);
      expect(retriesOf(d.States[shape.plan.state])).toEqual([
        refused,
        { ErrorEquals: shape.plan.retryOn, ...POLICY.remote },
        { ErrorEquals: 'States.ALL', IntervalSeconds: 30, MaxAttempts: 1 },
      ]);
      expect(d.States[shape.plan.state].Catch).toBeUndefined();
      expect(d.States[shape.nothingToDo.choice].Default).toBe(shape.jobs[0]!.map);
      for (const [i, job] of shape.jobs.entries()) {
        const map = d.States[job.map];
        expect(map).toMatchObject({
          Type: 'Map',
          ItemsPath: `$.run.${shape.items}`,
          ResultPath: `$.run.${shape.items}`,
          MaxConcurrency: job.atOnce,
          Next: shape.jobs[i + 1]?.map ?? 'Finish',
        });
        const task = map.ItemProcessor.States[job.task];
        expect(task.Parameters).toEqual({ step: job.step, [`${job.key}.$`]: '$' });
        expect(retriesOf(task)).toEqual([
          refused,
          { ErrorEquals: job.retryOn.error, ...POLICY[job.retryOn.policy] },
          { ErrorEquals: 'States.ALL', IntervalSeconds: job.onceMoreAfterSeconds, MaxAttempts: 1 },
        ]);
        expect(task.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: job.failed.state }]);
        expect(map.ItemProcessor.States[job.failed.state]).toMatchObject({
          Type: 'Pass',
          Parameters: { outcome: 'failed', 'error.$': '$.failure.Error' },
        });
      }
      expect(d.States.Finish).toMatchObject({ Parameters: { step: 'finish', 'plan.$': '$.run.plan' }, ResultPath: '$.summary' });
      expect(retriesOf(d.States.Finish)).toEqual([
        refused,
        { ErrorEquals: 'States.ALL', IntervalSeconds: 60, MaxAttempts: 2, BackoffRate: 2 },
      ]);
      expect(d.States[shape.finish.anyFailed].Choices).toEqual([
        { Variable: '$.summary.failed', NumericGreaterThan: 0, Next: shape.finish.failed },
      ]);
      expect(d.States[shape.finish.failed]).toEqual({ Type: 'Fail', Error: shape.finish.failed, CausePath: '$.summary.message' });
    },
  );

  it.each(SCHEDULED)(
    '%s: started on its own schedule with its request, its dead letters queued, its runs and dead letters alarmed on',
    (name) => {
      const input = { ...(STAGES.dev!.sources[name]!.request ?? {}), ...(SOURCES[name]!.request ?? {}) };
      expectStartedOnSchedule(jobs, `asof-dev-${name}`, STAGES.dev!.sources[name]!.schedule, JSON.stringify(input));
      expectRunAlarms(api, name, `${SOURCES[name]!.id}MachineStateMachine`);
    },
  );

  it('runs each state on a schedule of its own, its state in its input', () => {
    const schedules = Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::Scheduler::Schedule' && /-code-sync$/.test(r.Properties.Name) && r.Properties.Name !== 'asof-dev-dc-code-sync',
      )
      .map((r) => [r.Properties.Name, r.Properties.ScheduleExpression, JSON.parse(r.Properties.Target.Input).state]);
    expect(schedules.map(([, , state]) => state).sort()).toEqual([...STATES].sort());
    expect(new Set(schedules.map(([, expression]) => expression)).size).toBe(STATES.length);
  });

  it('gives the states their connector’s two functions once, each reaching the state-codes/ folder alone', () => {
    const fetchId = q.functionId('asof-dev-job-state-code-fetch');
    const ingestId = q.functionId('asof-dev-job-state-code-ingest');
    const folder = 'arn:<AWS::Partition>:s3:::asof-dev-sources-<AWS::AccountId>-<AWS::Region>/state-codes/*';
    expect(resources[fetchId]!.Properties.VpcConfig).toBeUndefined();
    expect(q.tables(q.roleOf(fetchId))).toEqual({ Ops: 'read' });
    expect(q.actions(q.roleOf(fetchId), 's3')).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(q.s3Objects(q.roleOf(fetchId))).toEqual([folder]);
    expect(resources[ingestId]!.Properties.VpcConfig).toBeDefined();
    expect(q.tables(q.roleOf(ingestId))).toEqual({ Versions: 'readwrite', Ops: 'readwrite' });
    expect(q.actions(q.roleOf(ingestId), 's3')).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(q.s3Objects(q.roleOf(ingestId))).toEqual([folder]);
    for (const st of STATES) {
      const d = JSON.stringify(q.definition(q.machineId(`asof-dev-${stateCodeSourceName(st)}`)));
      expect(d).toContain(`ARN[${fetchId}]`);
      expect(d).toContain(`ARN[${ingestId}]`);
    }
  });
});

describe('a source added to the table', () => {
  const base = SOURCES['tn-code-sync']!;
  const catalog = {
    ...SOURCES,
    'tn-title-one-sync': {
      ...base,
      name: 'tn-title-one-sync',
      id: 'TnTitleOneSync',
      starts: 'the TN title 1 sync',
      request: { state: 'tn', titles: ['01'] },
    },
  };

  it('is one entry: its state machine, schedule and dead-letter queue are built, its connector’s functions shared', () => {
    const stack = jobsStackWith({
      catalog,
      sources: { 'tn-code-sync': { schedule: 'rate(7 days)' }, 'tn-title-one-sync': { schedule: 'cron(0 5 * * ? *)' } },
    })();
    const template = Template.fromStack(stack);
    const r = template.toJSON().Resources as Resources;
    const t = templateQueries(r);
    expect(
      Object.values(r)
        .filter((x) => x.Type === 'AWS::StepFunctions::StateMachine')
        .map((x) => x.Properties.StateMachineName)
        .sort(),
    ).toEqual(['asof-test-tn-code-sync', 'asof-test-tn-title-one-sync']);
    expectStartedOnSchedule(template, 'asof-test-tn-title-one-sync', 'cron(0 5 * * ? *)', '{"state":"tn","titles":["01"]}');
    expect(Object.values(r).filter((x) => x.Type === 'AWS::Lambda::Function' && /state-code/.test(x.Properties.FunctionName))).toHaveLength(
      2,
    );
    expect(t.machineId('asof-test-tn-title-one-sync')).toMatch(/^TnTitleOneSyncMachineStateMachine[0-9A-F]{8}$/);
    expect(stack.syncs.get('tn-title-one-sync')?.deadLetterQueue).toBeDefined();
  });

  it.each([
    ['a name the table does not have', { 'xx-code-sync': { schedule: 'rate(1 day)' } }, /no scheduled source 'xx-code-sync'/],
    [
      'a state request it could never run',
      { 'tn-code-sync': { schedule: 'rate(1 day)', request: { releases: [0] } } },
      /TN code sync request: releases\.0/,
    ],
    ['a bad expression', { 'tn-code-sync': { schedule: 'weekly' } }, /not a rate\(…\), cron\(…\) or at\(…\) expression/],
  ])('refuses %s at synth', (_what, sources: Json, message) => {
    expect(jobsStackWith({ catalog, sources })).toThrow(message);
  });

  it('refuses two sources of a connector whose functions are not shared', () => {
    const twice = {
      ...catalog,
      'uscode-mirror-fetch': { ...SOURCES['uscode-fetch']!, name: 'uscode-mirror-fetch', id: 'UscodeMirrorFetch' },
    };
    const sources = { 'uscode-fetch': { schedule: 'rate(1 day)' }, 'uscode-mirror-fetch': { schedule: 'rate(1 day)' } };
    expect(jobsStackWith({ catalog: twice, sources })).toThrow(/use the same connector/);
  });

  it('refuses a state sync without the sources bucket', () => {
    expect(jobsStackWith({ sources: { 'tn-code-sync': { schedule: 'rate(1 day)' } } }, false)).toThrow(
      /TN code sync needs the sources bucket/,
    );
  });
});
