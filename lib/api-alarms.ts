import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  ComparisonOperator,
  type IAlarm,
  MathExpression,
  Metric,
  type MetricOptions,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { AlarmThresholds } from './alarm-thresholds.ts';
import { FIVE_MINUTES, ROUTE_METRIC, routeMetric } from './asof-metrics.ts';
import { countSum, MAX_METRICS_PER_ALARM, type StageAlarms } from './stage-alarms.ts';

/** A WAF web ACL as its CloudWatch metrics name it. */
export interface WebAclMetrics {
  name: string;
  /** The web ACL's VisibilityConfig.MetricName: the value of the `WebACL` dimension of its metrics. */
  metricName: string;
}

export interface ApiAlarmsProps {
  alarms: StageAlarms;
  thresholds: AlarmThresholds;
  /** The API's stage (its metrics carry the ApiName and Stage dimensions). */
  stage: Stage;
  /** Route id → the route's function. */
  routeFunctions: ReadonlyMap<string, IFunction>;
  /** Default: none (no WAF alarm). */
  webAcl?: WebAclMetrics;
}

/** The alarms on what callers see: the API's 5xx rate and p99 latency, the route functions' errors and throttles, the WAF's blocks. */
export class ApiAlarms extends Construct {
  /** The per-route error alarms (members of the `route-errors` composite; they notify through it). */
  readonly routeErrorAlarms: ReadonlyMap<string, IAlarm>;

  constructor(scope: Construct, id: string, props: ApiAlarmsProps) {
    super(scope, id);
    const { alarms, thresholds: t, stage } = props;
    const requests = stage.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES });

    alarms.metricAlarm(this, 'ServerErrorRate', {
      name: 'api-5xx-rate',
      description:
        `More than ${t.serverErrorRatePercent} % of the API's answers were 5xx over 5 minutes (judged from ${t.minRequests} requests up). ` +
        "Look at the route-errors alarm and the dashboard's per-route ServerError graph for the failing route, then at its function's logs; " +
        'a store outage shows as 503 statutes_unavailable on every route that uses it.',
      metric: new MathExpression({
        expression: `IF(requests >= ${t.minRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { errors: stage.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES }), requests },
        label: '5xx % of requests',
        period: FIVE_MINUTES,
      }),
      threshold: t.serverErrorRatePercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // No traffic publishes no datapoint: nothing failed.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    alarms.metricAlarm(this, 'P99Latency', {
      name: 'api-p99-latency',
      description:
        `The API's p99 latency was above ${t.p99LatencyMs} ms over 5 minutes (judged from ${t.minRequests} requests up). ` +
        "Compare Latency with IntegrationLatency on the dashboard (the gap is API Gateway itself), then the route functions' Duration and " +
        'the stores (Aurora capacity, OpenSearch CPU/JVM); cold starts show as a spike of ConcurrentExecutions.',
      metric: new MathExpression({
        expression: `IF(requests >= ${t.minRequests}, latency, 0)`,
        usingMetrics: { latency: stage.metricLatency({ statistic: Stats.p(99), period: FIVE_MINUTES }), requests },
        label: 'p99 latency (ms)',
        period: FIVE_MINUTES,
      }),
      threshold: t.p99LatencyMs,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const routes = [...props.routeFunctions];
    // "Throttles summed over the route functions > 0", in groups of at most 10 functions: counts are never negative, so
    // the sum is above 0 exactly when one group's sum is.
    const groups = chunk(routes, MAX_METRICS_PER_ALARM);
    groups.forEach((group, i) => {
      const suffix = groups.length > 1 ? `-${i + 1}` : '';
      alarms.metricAlarm(this, `RouteThrottles${suffix}`, {
        name: `route-throttles${suffix}`,
        description:
          `Lambda throttled ${group.map(([routeId]) => routeId).join(', ')}: their callers got 5xx answers from API Gateway. ` +
          "The account's concurrent executions hit its limit (see ConcurrentExecutions on the dashboard): ask for a higher Lambda " +
          'concurrency quota or find the function whose concurrency exploded.',
        metric: countSum(
          Object.fromEntries(group.map(([, fn], j) => [`t${j}`, fn.metricThrottles({ statistic: Stats.SUM, period: FIVE_MINUTES })])),
          'throttles',
        ),
        threshold: 0,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    });

    // One alarm per route, so that the notification names the route; one composite notifies, so that a store outage
    // failing every route pages once.
    this.routeErrorAlarms = new Map(
      routes.map(([routeId, fn]) => [
        routeId,
        alarms.metricAlarm(this, `RouteErrors-${routeId}`, {
          name: `route-${routeId}-errors`,
          description: `Route ${routeId}: ${t.routeErrors} or more failed invocations or 5xx answers in 5 minutes. Read the function's logs (errors carry the request id).`,
          metric: countSum(
            {
              errors: fn.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES }),
              serverErrors: routeMetric(routeId, ROUTE_METRIC.serverError),
            },
            `${routeId} errors`,
          ),
          threshold: t.routeErrors,
          comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
          notify: false,
        }),
      ]),
    );
    if (routes.length > 0) {
      alarms.compositeAlarm(this, 'RouteErrors', {
        name: 'route-errors',
        description:
          'One or more route functions are failing (invocation errors or 5xx answers); the triggering member alarms name the routes ' +
          `(${alarms.prefix}-route-<id>-errors). A low-traffic route can fail completely without moving the API's 5xx rate.`,
        anyOf: [...this.routeErrorAlarms.values()],
      });
    }

    if (props.webAcl) {
      alarms.metricAlarm(this, 'WafBlocked', {
        name: 'waf-blocked',
        description:
          `The web ACL ${props.webAcl.name} blocked more than ${t.wafBlockedRequests} requests in 5 minutes: a client (one token or ` +
          "one address) is far over the edge rate limit. Find it in the WAF's sampled requests; block it for good if it is abuse, " +
          'or contact the customer if it is a runaway integration.',
        metric: webAclMetric(props.webAcl, 'BlockedRequests', Stack.of(this).region),
        threshold: t.wafBlockedRequests,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }
}

/** A regional web ACL's total (`Rule` = `ALL`) of one of its request counts. */
export function webAclMetric(
  acl: WebAclMetrics,
  metricName: 'AllowedRequests' | 'BlockedRequests',
  region: string,
  options: MetricOptions = {},
): Metric {
  return new Metric({
    namespace: 'AWS/WAFV2',
    metricName,
    dimensionsMap: { WebACL: acl.metricName, Rule: 'ALL', Region: region },
    statistic: Stats.SUM,
    period: FIVE_MINUTES,
    ...options,
  });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
