import { ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { FIVE_MINUTES, JOB, JOB_METRIC, jobMetric } from './asof-metrics.ts';
import { countSum, type StageAlarms } from './stage-alarms.ts';

export interface JobAlarmsProps {
  alarms: StageAlarms;
  /** Job name (the `job` dimension its jobLambda emits) → its function. Default: none. */
  jobFunctions?: ReadonlyMap<string, IFunction>;
  /** Name → a dead-letter queue of the job schedules. Default: none. */
  deadLetterQueues?: ReadonlyMap<string, IQueue>;
  /** Name → a job run as a Step Functions state machine (each scheduled source, lib/sources.ts). Default: none. */
  stateMachines?: ReadonlyMap<string, IStateMachine>;
}

/** The spec reports a corpus verdict older than fifteen minutes as unknown; the probe runs every five. */
const PROBE_PERIODS_TO_UNKNOWN = 3;

/**
 * The alarms on the scheduled jobs: the corpus health probe (unhealthy, and unknown when it stops reporting), ingest
 * failures, any other job's failures, the failed runs of a job run as a state machine, and events the scheduler could
 * not deliver. A job's alarms exist only when
 * its function is given, so a stage without the probe is not permanently in ALARM for a probe it never runs.
 */
export class JobAlarms extends Construct {
  constructor(scope: Construct, id: string, props: JobAlarmsProps) {
    super(scope, id);
    const { alarms } = props;
    const jobs = props.jobFunctions ?? new Map<string, IFunction>();

    if (jobs.has(JOB.probe)) {
      alarms.metricAlarm(this, 'CorpusUnhealthy', {
        name: 'corpus-unhealthy',
        description:
          'Two probes in a row found the corpus store unreachable: /v1/health/corpus answers 503 and law lookups fail. ' +
          "Check the versions table (DynamoDB throttling or errors) and the probe's logs for the error it met.",
        metric: jobMetric(JOB.probe, JOB_METRIC.corpusHealthy, { statistic: Stats.MAXIMUM }),
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 2,
        // Silence is the other alarm's case (corpus-probe-missing); paging twice for it would not help.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarms.metricAlarm(this, 'CorpusProbeMissing', {
        name: 'corpus-probe-missing',
        description:
          'No corpus probe reported for 15 minutes: /v1/health/corpus answers 503 unknown (no_recent_probe). Check the probe ' +
          'schedule (EventBridge Scheduler, its dead-letter queue) and the probe function (errors, throttles, its logs).',
        metric: jobMetric(JOB.probe, JOB_METRIC.corpusHealthy, { statistic: Stats.SAMPLE_COUNT }),
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: PROBE_PERIODS_TO_UNKNOWN,
        // The probe's silence is exactly what this alarm is for.
        treatMissingData: TreatMissingData.BREACHING,
      });
    }

    const ingest = jobs.get(JOB.ingest);
    if (ingest) {
      alarms.metricAlarm(this, 'IngestFailed', {
        name: 'ingest-failed',
        description:
          'An ingest run failed (IngestFailed, or the function crashed or timed out before it could say so). Lookups keep answering ' +
          "the state before the run; read the ingest function's logs, fix the cause and run the ingest again (it is idempotent).",
        metric: countSum(
          {
            ingestFailed: jobMetric(JOB.ingest, JOB_METRIC.ingestFailed),
            errors: ingest.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES }),
          },
          'ingest failures',
        ),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }

    for (const [job, fn] of jobs) {
      // The ingest's failures are the alarm above; counting its JobFailed again would page twice for one run.
      if (job === JOB.ingest) continue;
      alarms.metricAlarm(this, `JobFailed-${job}`, {
        name: `job-${job}-failed`,
        description:
          `The ${job} job failed (JobFailed, or its function crashed or timed out). Lambda retries an asynchronous invocation ` +
          "twice; read the function's logs for the error.",
        metric: countSum(
          {
            jobFailed: jobMetric(job, JOB_METRIC.failed),
            errors: fn.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES }),
          },
          `${job} failures`,
        ),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }

    for (const [name, machine] of props.stateMachines ?? []) {
      alarms.metricAlarm(this, `RunFailed-${name}`, {
        name: `job-${name}-failed`,
        description:
          `A run of the ${name} state machine failed or timed out: a job (a title, a batch, a file) failed after its retries (the ` +
          "run's error, TitlesFailed, BatchesFailed or FilesFailed, names each one with its error), or its plan or its finish step failed. What was ingested " +
          'stays; read the execution (its failed task, the function logs), fix the cause and start a run again, or let the next ' +
          'scheduled one run: it completes what is missing.',
        metric: countSum(
          {
            failed: machine.metricFailed({ statistic: Stats.SUM, period: FIVE_MINUTES }),
            timedOut: machine.metricTimedOut({ statistic: Stats.SUM, period: FIVE_MINUTES }),
          },
          `${name} failed runs`,
        ),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }

    for (const [name, queue] of props.deadLetterQueues ?? []) {
      alarms.metricAlarm(this, `DeadLetters-${name}`, {
        name: `dlq-${name}`,
        description:
          `Messages wait in the dead-letter queue ${name}: the scheduler could not invoke a job (permissions, throttling, a deleted ` +
          "function). Read a message's attributes for the error, fix it, then redrive or purge the queue; the alarm stays on while " +
          'messages remain.',
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // SQS stops publishing for a queue idle for hours: an idle dead-letter queue is an empty one.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }
}
