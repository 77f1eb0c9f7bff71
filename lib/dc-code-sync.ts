import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DC_CODE_FOLDER } from '../functions/lambda/jobs/dc-code-repository.ts';
import { type SyncRequest, syncRequestSchema } from '../functions/lambda/jobs/dc-code-steps.ts';
import { AsofFunction } from './asof-function.ts';
import { DcCodeSyncMachine } from './dc-code-sync-machine.ts';
import { scheduleStateMachine } from './job-state-machine.ts';
import type { JobBindings } from './scheduled-jobs.ts';

export interface DcCodeSyncProps {
  prefix: string;
  /** The stage's stores: the sync needs the sources bucket. */
  bindings: JobBindings;
  /** When the sync runs: an EventBridge Scheduler expression (UTC), e.g. `cron(0 7 * * ? *)`. */
  schedule: string;
  /** The state machine's input on the schedule. Default `{}`: the Council's remote. */
  request?: SyncRequest;
  /** The ingest step's memory (MB). Default: 3008. */
  ingestMemoryMb?: number;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/**
 * The scheduled D.C. Code sync (issue 17): EventBridge Scheduler starts a Step Functions run (DcCodeSyncMachine) that
 * pulls the Council's repository's new commits into the sources bucket's dc-code/ folder (functions/lambda/jobs/
 * dc-code-repository.ts) and ingests the publications not yet held, a batch per Lambda invocation, in order. Two
 * functions, split by what they reach, as the US Code fetch's: one talks to the remote and writes the bucket's dc-code/
 * folder (outside the VPC: GitHub is reached without the NAT gateway), the other reads that folder and writes the
 * stores (in the search index's network).
 */
export class DcCodeSync extends Construct {
  readonly syncFunction: AsofFunction;
  readonly ingestFunction: AsofFunction;
  readonly stateMachine: StateMachine;
  /** The deliveries the scheduler gave up on. */
  readonly deadLetterQueue: Queue;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: DcCodeSyncProps) {
    super(scope, id);
    const { bindings } = props;
    const sources = bindings.sources;
    if (!sources) throw new Error('the D.C. Code sync needs the sources bucket: pass bindings.sources');
    if (!/^(rate|cron|at)\(.+\)$/.test(props.schedule))
      throw new Error(`D.C. Code sync schedule: '${props.schedule}' is not a rate(…), cron(…) or at(…) expression`);
    const request = props.request ?? {};
    const checked = syncRequestSchema.safeParse(request);
    if (!checked.success)
      throw new Error(
        `D.C. Code sync request: ${checked.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ')}`,
      );
    const logRetention = props.logRetention ?? RetentionDays.ONE_WEEK;

    this.syncFunction = new AsofFunction(this, 'SyncFunction', {
      entry: 'jobs/dc-code-sync.ts',
      functionName: `${props.prefix}-job-dc-code-sync`,
      description:
        'D.C. Code sync: the Council’s repository fetched (what is new) into the sources bucket, its pending publications batched',
      // The first fetch holds the whole pack (about 62 MB) in memory while isomorphic-git indexes it (500 MB peak locally).
      memorySize: 2048,
      timeout: Duration.minutes(10),
      // The repository's packs and indexes (about 70 MB for the whole history).
      ephemeralStorageMb: 1024,
      logRetention,
    });
    this.syncFunction.bind(bindings.ops, 'read');
    sources.bindFolder(this.syncFunction, DC_CODE_FOLDER, 'readwrite');

    this.ingestFunction = new AsofFunction(this, 'IngestFunction', {
      entry: 'jobs/dc-code-ingest.ts',
      functionName: `${props.prefix}-job-dc-code-ingest`,
      description: 'D.C. Code sync: a batch of publications from the repository in the sources bucket ingested into the stores',
      memorySize: props.ingestMemoryMb ?? 3008,
      timeout: Duration.minutes(15),
      ephemeralStorageMb: 1024,
      logRetention,
      ...(bindings.search?.network && { network: bindings.search.network }),
    });
    this.ingestFunction.bind(bindings.versions, 'readwrite').bind(bindings.ops, 'readwrite');
    if (bindings.search) this.ingestFunction.bind(bindings.search, 'readwrite');
    sources.bindFolder(this.ingestFunction, DC_CODE_FOLDER, 'read');

    this.stateMachine = new DcCodeSyncMachine(this, 'Machine', {
      prefix: props.prefix,
      syncFunction: this.syncFunction.fn,
      ingestFunction: this.ingestFunction.fn,
      logRetention,
    }).stateMachine;

    ({ schedule: this.schedule, deadLetterQueue: this.deadLetterQueue } = scheduleStateMachine(this, {
      prefix: props.prefix,
      name: 'dc-code-sync',
      stateMachine: this.stateMachine,
      expression: props.schedule,
      input: request,
      starts: 'the D.C. Code sync',
    }));
  }
}
