import { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { ANSWER_METRIC, METRICS_NAMESPACE } from '../functions/lambda/metric-names.ts';

/**
 * The service's own metrics, as the functions emit them through Powertools (functions/lambda/powertools.ts, used by
 * the route, page and job entries). Powertools adds its `serviceName` as a `service` dimension beside the default
 * dimensions, and CloudWatch identifies a metric by its whole dimension set: an alarm on `{route}` alone would watch a
 * metric nobody emits. test/unit/lambda/metric-identities.test.ts checks these identities against what the real entry
 * points print.
 */
export const SERVICE_NAME = 'asof';

/** What every route function counts per answer (dimension `route` = the route id), as the functions name them. */
export const ROUTE_METRIC = ANSWER_METRIC;

/** What jobs count (dimension `job` = the name given to jobLambda): every job, the corpus probe, the ingest. */
export const JOB_METRIC = {
  succeeded: 'JobSucceeded',
  failed: 'JobFailed',
  /** 1 when the probe found the corpus reachable, 0 when not; one datapoint per probe run. */
  corpusHealthy: 'CorpusHealthy',
  ingestSucceeded: 'IngestSucceeded',
  ingestFailed: 'IngestFailed',
} as const;

/** The job names (jobLambda's first argument, so the `job` dimension) that have alarms of their own. */
export const JOB = { probe: 'probe', ingest: 'ingest' } as const;

/** The period of the service's alarms and graphs unless a signal needs another. */
export const FIVE_MINUTES = Duration.minutes(5);

const DEFAULTS = { statistic: Stats.SUM, period: FIVE_MINUTES };

export function routeMetric(routeId: string, metricName: string, options: MetricOptions = {}): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME, route: routeId },
    ...DEFAULTS,
    ...options,
  });
}

export function jobMetric(job: string, metricName: string, options: MetricOptions = {}): Metric {
  return new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: SERVICE_NAME, job }, ...DEFAULTS, ...options });
}
