import type { App } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ApiStack } from '../lib/api-stack.ts';
import { JobsStack } from '../lib/jobs-stack.ts';
import { StatefulStack } from '../lib/stateful-stack.ts';
import type { StageConfig } from './stages.ts';

const LOG_RETENTION = {
  7: RetentionDays.ONE_WEEK,
  30: RetentionDays.ONE_MONTH,
  90: RetentionDays.THREE_MONTHS,
  365: RetentionDays.ONE_YEAR,
} as const;

/** The stacks of one stage, from its configuration: the app builds it, and the tests build exactly the same. */
export function defineStage(app: App, config: StageConfig) {
  // What every stack of the stage is given: its name prefix, log retention, and account and region when configured.
  const common = {
    prefix: config.prefix,
    logRetention: LOG_RETENTION[config.logRetentionDays],
    ...(config.account && config.region && { env: { account: config.account, region: config.region } }),
  };
  const stateful = new StatefulStack(app, `${config.prefix}-stateful`, {
    ...common,
    retainData: config.retainData,
    network: { natGateways: config.natGateways },
    caselaw: config.caselaw,
    search: config.search,
  });
  // Before the API stack: the setup job there maps the ingest job's role to the search index's write role.
  const jobs = new JobsStack(app, `${config.prefix}-jobs`, {
    ...common,
    bindings: { ...stateful.tables, search: stateful.search, sources: stateful.sources, caselaw: stateful.caselaw },
    ingestSchedules: config.ingestSchedules,
    ingestMemoryMb: config.ingestMemoryMb,
    sources: config.sources,
  });
  // The sources run as state machines: their runs and their schedules' dead letters are alarmed on.
  const machines = [...jobs.syncs];
  const api = new ApiStack(app, `${config.prefix}-api`, {
    ...common,
    bindings: { ...stateful.tables, search: stateful.search, caselaw: stateful.caselaw },
    setup: { caselaw: stateful.caselaw, search: stateful.search },
    ...(config.domain && { domain: config.domain }),
    memorySize: config.functionMemoryMb,
    timeoutSeconds: config.functionTimeoutSeconds,
    courtListenerTokenSecret: config.courtListenerTokenSecret,
    alarmEmail: config.alarmEmail,
    alarmThresholds: config.alarmThresholds,
    monitored: {
      jobFunctions: new Map(Object.entries(jobs.jobs.functions).map(([job, f]) => [job, f.fn])),
      jobDeadLetterQueues: new Map([
        ...Object.entries(jobs.jobs.deadLetterQueues),
        ...machines.map(([name, job]) => [name, job.deadLetterQueue] as const),
      ]),
      ...(machines.length && { jobStateMachines: new Map(machines.map(([name, job]) => [name, job.stateMachine])) }),
      database: { cluster: stateful.caselaw.cluster, proxy: stateful.caselaw.proxy },
      search: { domain: stateful.search.domain, dataNodes: config.search.dataNodes, volumeSizeGiB: config.search.volumeGb },
    },
  });
  return { stateful, jobs, api };
}
