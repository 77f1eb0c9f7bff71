import type { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type * as z from 'zod';
import type { SourceRunShape, StepFunction } from '../functions/lambda/jobs/source-steps.ts';
import { AsofFunction } from './asof-function.ts';
import { scheduleStateMachine } from './job-state-machine.ts';
import type { JobBindings } from './scheduled-jobs.ts';
import { SourceSyncMachine } from './source-sync-machine.ts';

/** One of a connector's two step functions: `<prefix>-job-<job>`, its entry `jobs/<job>.ts`. */
export interface SourceFunctionSpec {
  /** The construct id (kept: it is the function's logical id). */
  id: string;
  job: string;
  description: string;
  /** MB; the stores function's default, the stage's ingest memory overrides it. */
  memorySize: number;
  timeout: Duration;
  ephemeralStorageMb: number;
}

/** What reads a publisher in AWS: its run's shape, the request its plan takes, its two functions and its bucket folder. */
export interface SourceConnector {
  /** The run, shared with the step functions (functions/lambda/jobs/<connector>-steps.ts). */
  shape: SourceRunShape;
  /** The plan's request, checked at synth: a schedule whose run could never start is refused then. */
  request: z.ZodType;
  /** The sources bucket's folder it writes (remote) and reads (stores). */
  folder: string;
  functions: Readonly<Record<StepFunction, SourceFunctionSpec>>;
}

/** A scheduled source: one entry of lib/sources.ts. */
export interface SourceEntry {
  /** `<prefix>-<name>` names its state machine, schedule and dead-letter queue; `job-<name>-failed` its alarm. */
  name: string;
  /** The construct id (kept: the logical ids of its queue, log group and functions derive from it). */
  id: string;
  /** What a run does, for messages and descriptions: `the US Code fetch`. */
  starts: string;
  connector: SourceConnector;
  /** The request's fields this source always sends (a state sync: `{ state: 'tn' }`), under the stage's. */
  request?: Record<string, unknown>;
  timeout: Duration;
}

/** The two step functions of a connector, built once and shared by every source that uses it (each state's sync). */
export type SourceFunctions = Readonly<Record<StepFunction, AsofFunction>>;

export interface SourceFunctionsProps {
  prefix: string;
  connector: SourceConnector;
  bindings: JobBindings;
  /** The stores function's memory (MB). Default: the connector's. */
  ingestMemoryMb?: number;
  logRetention: RetentionDays;
}

/**
 * A connector's two functions in `scope`, split by what they reach: the remote one talks to the publisher and writes
 * the bucket's folder (outside the VPC: downloads do not pass the NAT gateway), bound to the ops table to read; the
 * stores one reads that folder and writes the stores (in the search index's network, like the ingest job).
 */
export function sourceFunctions(scope: Construct, props: SourceFunctionsProps): SourceFunctions {
  const { connector, bindings } = props;
  const sources = bindings.sources!;
  const make = (spec: SourceFunctionSpec, memorySize: number, inNetwork: boolean) =>
    new AsofFunction(scope, spec.id, {
      entry: `jobs/${spec.job}.ts`,
      functionName: `${props.prefix}-job-${spec.job}`,
      description: spec.description,
      memorySize,
      timeout: spec.timeout,
      ephemeralStorageMb: spec.ephemeralStorageMb,
      logRetention: props.logRetention,
      ...(inNetwork && bindings.search?.network && { network: bindings.search.network }),
    });
  const remote = make(connector.functions.remote, connector.functions.remote.memorySize, false);
  remote.bind(bindings.ops, 'read');
  sources.bindFolder(remote, connector.folder, 'readwrite');

  const stores = make(connector.functions.stores, props.ingestMemoryMb ?? connector.functions.stores.memorySize, true);
  stores.bind(bindings.versions, 'readwrite').bind(bindings.ops, 'readwrite');
  if (bindings.search) stores.bind(bindings.search, 'readwrite');
  sources.bindFolder(stores, connector.folder, 'read');
  return { remote, stores };
}

export interface SourceSyncProps {
  prefix: string;
  source: SourceEntry;
  /** The stage's stores: every source needs the sources bucket. */
  bindings: JobBindings;
  /** When it runs: an EventBridge Scheduler expression (UTC), e.g. `cron(30 6 * * ? *)`. */
  schedule: string;
  /** The stage's request for the plan (over the entry's own fields). Default `{}`. */
  request?: Record<string, unknown>;
  /** The connector's functions when several sources share them; default: this source's own, built here. */
  functions?: SourceFunctions;
  /** The stores function's memory (MB), when built here. Default: the connector's. */
  ingestMemoryMb?: number;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/**
 * A scheduled source (issue 31: one shape for all of them): EventBridge Scheduler starts a Step Functions run
 * (SourceSyncMachine, from the connector's run shape) on the source's own schedule, with its request; the connector's
 * two functions run its steps. The retry policy (SourceSyncMachine), the dead-letter queue of the schedule
 * (scheduleStateMachine) and the alarms (JobAlarms, on `stateMachine` and `deadLetterQueue`) are the same for every
 * source; adding one is an entry in lib/sources.ts.
 */
export class SourceSync extends Construct {
  readonly functions: SourceFunctions;
  readonly stateMachine: StateMachine;
  /** The deliveries the scheduler gave up on. */
  readonly deadLetterQueue: Queue;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: SourceSyncProps) {
    super(scope, id);
    const { source, bindings } = props;
    const what = source.starts.replace(/^the /, 'The ');
    if (!bindings.sources) throw new Error(`${source.starts} needs the sources bucket: pass bindings.sources`);
    if (!/^(rate|cron|at)\(.+\)$/.test(props.schedule))
      throw new Error(`${what} schedule: '${props.schedule}' is not a rate(…), cron(…) or at(…) expression`);
    const request = { ...(props.request ?? {}), ...(source.request ?? {}) };
    const checked = source.connector.request.safeParse(request);
    if (!checked.success)
      throw new Error(`${what} request: ${checked.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ')}`);
    const logRetention = props.logRetention ?? RetentionDays.ONE_WEEK;

    this.functions =
      props.functions ??
      sourceFunctions(this, {
        prefix: props.prefix,
        connector: source.connector,
        bindings,
        logRetention,
        ...(props.ingestMemoryMb && { ingestMemoryMb: props.ingestMemoryMb }),
      });

    this.stateMachine = new SourceSyncMachine(this, 'Machine', {
      prefix: props.prefix,
      name: source.name,
      shape: source.connector.shape,
      functions: { remote: this.functions.remote.fn, stores: this.functions.stores.fn },
      timeout: source.timeout,
      logRetention,
    }).stateMachine;

    ({ schedule: this.schedule, deadLetterQueue: this.deadLetterQueue } = scheduleStateMachine(this, {
      prefix: props.prefix,
      name: source.name,
      stateMachine: this.stateMachine,
      expression: props.schedule,
      input: request,
      starts: source.starts,
    }));
  }
}
