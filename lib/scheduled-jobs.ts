import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type IngestJobEvent, parseIngestEvent } from '../functions/lambda/jobs/ingest-event.ts';
import { JOB_NAMES, type JobName } from '../functions/lambda/metric-names.ts';
import { AsofFunction } from './asof-function.ts';
import { SchedulerRole } from './scheduler-role.ts';
import type { Access, SourcesBinding, StoreBinding } from './store-binding.ts';

/** The stores the jobs use: the versions and ops tables always; the search index and the sources bucket when the stage has them. */
export interface JobBindings {
  versions: StoreBinding;
  ops: StoreBinding;
  search?: StoreBinding;
  /** The bucket the ingest job reads its source files from (sets ASOF_SOURCES_BUCKET); the US Code fetch writes its olrc/ folder. */
  sources?: SourcesBinding;
  /** The case-law replica the ingest job loads CourtListener records into (its `courtlistener` events). */
  caselaw?: StoreBinding;
}

/** An ingest run on a schedule: `name` in the schedule's name, an EventBridge Scheduler expression, the ingest event. */
export interface IngestSchedule {
  name: string;
  /** `rate(…)`, `cron(…)` (UTC) or `at(…)`, e.g. `cron(0 7 ? * MON *)`. */
  schedule: string;
  event: IngestJobEvent;
}

export interface ScheduledJobsProps {
  prefix: string;
  bindings: JobBindings;
  /** Ingest runs on a schedule; they need the sources binding. Default: none. */
  ingestSchedules?: readonly IngestSchedule[];
  /** The ingest function's memory (MB). Default: 3008. */
  ingestMemoryMb?: number;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

interface JobSpec {
  description: string;
  memorySize: number;
  timeout: Duration;
  /** Default: Lambda's 512 MB. */
  ephemeralStorageMb?: number;
  /** The stores the job's code uses, and how. */
  stores: Partial<Record<keyof JobBindings, Access>>;
  /** How long a run may wait to be delivered (scheduler) or started (Lambda's queue): past that it is of no use. */
  maxEventAge: Duration;
  /** The scheduler's retries of a delivery Lambda refused (throttled, unavailable). */
  deliveryRetries: number;
  /** Lambda's retries of a run that failed (0–2); the scheduled jobs' next run is their retry. */
  runRetries: number;
  /** The job's own schedule; the ingest's come from the stage. */
  schedule?: ScheduleExpression;
}

const JOB_SPECS: Record<JobName, JobSpec> = {
  probe: {
    description: 'Corpus health probe: can law be served? Verdict for /health/corpus; CorpusHealthy metric',
    memorySize: 512,
    timeout: Duration.seconds(30),
    stores: { versions: 'read', search: 'read', ops: 'readwrite' },
    maxEventAge: Duration.minutes(5),
    deliveryRetries: 3,
    runRetries: 0,
    schedule: ScheduleExpression.rate(Duration.minutes(5)),
  },
  coverage: {
    description: 'Coverage refresh: the cached coverage matrix /law/coverage serves',
    memorySize: 1024,
    timeout: Duration.minutes(5),
    stores: { versions: 'read', ops: 'readwrite' },
    maxEventAge: Duration.minutes(15),
    deliveryRetries: 3,
    runRetries: 0,
    schedule: ScheduleExpression.rate(Duration.minutes(15)),
  },
  audit: {
    description: 'Quality audit of the stored data, for /law/quality',
    memorySize: 1769,
    timeout: Duration.minutes(15),
    stores: { versions: 'read', search: 'read', ops: 'readwrite' },
    maxEventAge: Duration.hours(6),
    deliveryRetries: 3,
    runRetries: 2,
    // Daily, at a quiet hour for US users.
    schedule: ScheduleExpression.expression('cron(15 4 * * ? *)'),
  },
  ingest: {
    description:
      'Ingest: source files from the sources bucket into the versions table and the search index, or CourtListener records into the case-law replica',
    memorySize: 3008,
    timeout: Duration.minutes(15),
    ephemeralStorageMb: 2048,
    stores: { versions: 'readwrite', search: 'readwrite', ops: 'readwrite', sources: 'read', caselaw: 'readwrite' },
    maxEventAge: Duration.hours(6),
    deliveryRetries: 3,
    // An ingest is idempotent, so one retry completes what a transient failure interrupted.
    runRetries: 1,
  },
};

/**
 * The scheduled jobs of a stage: one function per job, given only the stores its code uses; EventBridge Scheduler
 * schedules (no flexible window) with a retry policy; one encrypted dead-letter queue per job that receives both
 * the deliveries the scheduler gave up on and the runs that failed every attempt (the scheduler invokes
 * asynchronously, so a run's failure is Lambda's to retry and to dead-letter).
 */
export class ScheduledJobs extends Construct {
  readonly functions: Record<JobName, AsofFunction>;
  readonly deadLetterQueues: Record<JobName, Queue>;
  readonly schedules: Schedule[] = [];
  private readonly schedulerRoles = new Map<JobName, Role>();

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    const ingestSchedules = props.ingestSchedules ?? [];
    checkIngestSchedules(ingestSchedules, props.bindings);
    const functions: Partial<Record<JobName, AsofFunction>> = {};
    const queues: Partial<Record<JobName, Queue>> = {};
    for (const job of JOB_NAMES) [functions[job], queues[job]] = this.addJob(job, props);
    this.functions = functions as Record<JobName, AsofFunction>;
    this.deadLetterQueues = queues as Record<JobName, Queue>;

    for (const job of JOB_NAMES) {
      const expression = JOB_SPECS[job].schedule;
      if (expression) this.addSchedule(`Schedule-${job}`, `${props.prefix}-${job}`, expression, job);
    }
    for (const s of ingestSchedules) {
      this.addSchedule(
        `Schedule-ingest-${s.name}`,
        `${props.prefix}-ingest-${s.name}`,
        ScheduleExpression.expression(s.schedule),
        'ingest',
        ScheduleTargetInput.fromObject(s.event),
      );
    }
  }

  /** The job's function, given the stores its code uses (and placed in their network), and its dead-letter queue. */
  private addJob(job: JobName, props: ScheduledJobsProps): [AsofFunction, Queue] {
    const spec = JOB_SPECS[job];
    const bound = (Object.entries(spec.stores) as [keyof JobBindings, Access][]).flatMap(([name, access]) => {
      const binding = props.bindings[name];
      return binding ? [[binding, access] as const] : [];
    });
    const network = bound.map(([b]) => b.network).find((n) => n !== undefined);
    const ephemeralStorageMb = spec.ephemeralStorageMb;
    const fn = new AsofFunction(this, `Job-${job}`, {
      entry: `jobs/${job}.ts`,
      functionName: `${props.prefix}-job-${job}`,
      description: spec.description,
      memorySize: job === 'ingest' ? (props.ingestMemoryMb ?? spec.memorySize) : spec.memorySize,
      timeout: spec.timeout,
      logRetention: props.logRetention ?? RetentionDays.ONE_WEEK,
      ...(network && { network }),
      ...(ephemeralStorageMb && { ephemeralStorageMb }),
    });
    for (const [binding, access] of bound) fn.bind(binding, access);

    const deadLetters = new Queue(this, `DeadLetters-${job}`, {
      queueName: `${props.prefix}-job-${job}-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(deadLetters).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue (of the job’s schedules and of its failed runs).',
    });
    fn.fn.configureAsyncInvoke({
      retryAttempts: spec.runRetries,
      maxEventAge: spec.maxEventAge,
      onFailure: new SqsDestination(deadLetters),
    });
    return [fn, deadLetters];
  }

  private addSchedule(id: string, name: string, expression: ScheduleExpression, job: JobName, input?: ScheduleTargetInput): void {
    const spec = JOB_SPECS[job];
    this.schedules.push(
      new Schedule(this, id, {
        scheduleName: name,
        schedule: expression,
        timeWindow: TimeWindow.off(),
        target: new LambdaInvoke(this.functions[job].fn, {
          role: this.schedulerRole(job),
          deadLetterQueue: this.deadLetterQueues[job],
          retryAttempts: spec.deliveryRetries,
          maxEventAge: spec.maxEventAge,
          ...(input && { input }),
        }),
      }),
    );
  }

  /** The role the scheduler assumes to start one job (shared by that job's schedules): it may invoke that function and dead-letter to its queue. */
  private schedulerRole(job: JobName): Role {
    let role = this.schedulerRoles.get(job);
    if (!role) {
      role = new SchedulerRole(this, `SchedulerRole-${job}`, { starts: `the ${job} job` }).role;
      const fnId = Stack.of(this).getLogicalId(this.functions[job].fn.node.defaultChild as CfnElement);
      Validations.of(role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${fnId}.Arn>:*]`,
        reason: 'The scheduler’s Lambda target grants this one function and its versions (ARN:*), nothing else.',
      });
      this.schedulerRoles.set(job, role);
    }
    return role;
  }
}

/** A configured ingest schedule that could never run is refused at synth, not at its first run. */
function checkIngestSchedules(schedules: readonly IngestSchedule[], bindings: JobBindings): void {
  if (schedules.length && !bindings.sources) throw new Error('ingest schedules need the sources bucket: pass bindings.sources');
  const seen = new Set<string>();
  for (const s of schedules) {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(s.name))
      throw new Error(`ingest schedule name '${s.name}': lowercase letters, digits and hyphens, at most 40`);
    if (seen.has(s.name)) throw new Error(`ingest schedule '${s.name}' is configured twice`);
    seen.add(s.name);
    if (!/^(rate|cron|at)\(.+\)$/.test(s.schedule))
      throw new Error(`ingest schedule '${s.name}': '${s.schedule}' is not a rate(…), cron(…) or at(…) expression`);
    try {
      parseIngestEvent(s.event);
    } catch (err) {
      throw new Error(`ingest schedule '${s.name}': ${(err as Error).message}`);
    }
    if (s.event.kind === 'courtlistener' && !bindings.caselaw)
      throw new Error(`ingest schedule '${s.name}' loads CourtListener records: it needs the case-law replica (bindings.caselaw)`);
  }
}
