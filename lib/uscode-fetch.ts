import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type TitleJobsRequest, titleJobsRequestSchema } from '../functions/ingest/olrc/title-jobs.ts';
import { OLRC_FOLDER } from '../functions/lambda/jobs/title-zips.ts';
import { AsofFunction } from './asof-function.ts';
import { scheduleStateMachine } from './job-state-machine.ts';
import type { JobBindings } from './scheduled-jobs.ts';
import { UscodeFetchMachine } from './uscode-fetch-machine.ts';

export interface UscodeFetchProps {
  prefix: string;
  /** The stage's stores: the fetch needs the sources bucket. */
  bindings: JobBindings;
  /** When the fetch runs: an EventBridge Scheduler expression (UTC), e.g. `cron(30 6 * * ? *)`. */
  schedule: string;
  /** The state machine's input on the schedule (what the check step takes). Default `{}`: bring the store to the current release point. */
  request?: TitleJobsRequest;
  /** The ingest step's memory (MB). Default: 3008. */
  ingestMemoryMb?: number;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/**
 * The scheduled US Code fetch (issue 16): EventBridge Scheduler starts a Step Functions run (UscodeFetchMachine) that
 * checks the publisher for release points the store lacks, puts each title's checked zip into the sources bucket's
 * olrc/ folder and ingests it, a title per Lambda invocation. Two functions, split by what they reach: one talks to the
 * publisher and writes the bucket's olrc/ folder (outside the VPC: the zips do not pass the NAT gateway), the other
 * reads that folder and writes the stores (in the search index's network, like the ingest job).
 */
export class UscodeFetch extends Construct {
  readonly fetchFunction: AsofFunction;
  readonly ingestFunction: AsofFunction;
  readonly stateMachine: StateMachine;
  /** The deliveries the scheduler gave up on. */
  readonly deadLetterQueue: Queue;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: UscodeFetchProps) {
    super(scope, id);
    const { bindings } = props;
    const sources = bindings.sources;
    if (!sources) throw new Error('the US Code fetch needs the sources bucket: pass bindings.sources');
    if (!/^(rate|cron|at)\(.+\)$/.test(props.schedule))
      throw new Error(`US Code fetch schedule: '${props.schedule}' is not a rate(…), cron(…) or at(…) expression`);
    const request = props.request ?? {};
    const checked = titleJobsRequestSchema.safeParse(request);
    if (!checked.success) throw new Error(`US Code fetch request: ${checked.error.issues.map((i) => i.message).join('; ')}`);
    const logRetention = props.logRetention ?? RetentionDays.ONE_WEEK;

    this.fetchFunction = new AsofFunction(this, 'FetchFunction', {
      entry: 'jobs/uscode-fetch.ts',
      functionName: `${props.prefix}-job-uscode-fetch`,
      description: 'US Code fetch: the publisher’s release points checked, title zips downloaded, checked and put into the sources bucket',
      memorySize: 1024,
      // A title's zip (tens of MB at most) over a bounded connection: a stalled one gives up after 60 s.
      timeout: Duration.minutes(10),
      // The zip is checked on /tmp before it is stored; the largest title's zip is well under this.
      ephemeralStorageMb: 1024,
      logRetention,
    });
    this.fetchFunction.bind(bindings.ops, 'read');
    sources.bindFolder(this.fetchFunction, OLRC_FOLDER, 'readwrite');

    this.ingestFunction = new AsofFunction(this, 'IngestFunction', {
      entry: 'jobs/uscode-ingest.ts',
      functionName: `${props.prefix}-job-uscode-ingest`,
      description: 'US Code fetch: a title zip from the sources bucket ingested into the versions table and the search index',
      memorySize: props.ingestMemoryMb ?? 3008,
      timeout: Duration.minutes(15),
      // The zip and its XML (a few hundred MB for the largest titles) while it is read.
      ephemeralStorageMb: 2048,
      logRetention,
      ...(bindings.search?.network && { network: bindings.search.network }),
    });
    this.ingestFunction.bind(bindings.versions, 'readwrite').bind(bindings.ops, 'readwrite');
    if (bindings.search) this.ingestFunction.bind(bindings.search, 'readwrite');
    sources.bindFolder(this.ingestFunction, OLRC_FOLDER, 'read');

    this.stateMachine = new UscodeFetchMachine(this, 'Machine', {
      prefix: props.prefix,
      fetchFunction: this.fetchFunction.fn,
      ingestFunction: this.ingestFunction.fn,
      logRetention,
    }).stateMachine;

    ({ schedule: this.schedule, deadLetterQueue: this.deadLetterQueue } = scheduleStateMachine(this, {
      prefix: props.prefix,
      name: 'uscode-fetch',
      stateMachine: this.stateMachine,
      expression: props.schedule,
      input: request,
      starts: 'the US Code fetch',
    }));
  }
}
