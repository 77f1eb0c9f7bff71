import { Duration, Stack } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  type IWidget,
  Metric,
  type MetricOptions,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { webAclMetric } from './api-alarms.ts';
import { FIVE_MINUTES, JOB, JOB_METRIC, jobMetric, ROUTE_METRIC, routeMetric } from './asof-metrics.ts';
import type { MonitoredStage } from './monitored-stage.ts';

export interface OperationsDashboardProps extends MonitoredStage {
  /** The stage's alarms, shown in the status widget at the top. */
  alarms: readonly IAlarm[];
}

const FULL = 24;
const THIRD = 8;
const QUARTER = 6;

/**
 * The stage's one dashboard (`${prefix}`): alarm states first, then what callers see (the API), each route and its
 * function, the jobs, the edge (WAF), and the stores.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.prefix, defaultInterval: Duration.hours(6) });
    const rows: IWidget[][] = [
      [new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: FULL, height: 6 })],
      ...apiRows(props),
      [heading('## Route functions')],
      functionWidgets(props.routeFunctions),
      ...jobRows(props),
      ...edgeRows(props, Stack.of(this).region),
      ...databaseRows(props),
      ...searchRows(props),
    ];
    for (const row of rows) this.dashboard.addWidgets(...row);
  }
}

const heading = (markdown: string): IWidget => new TextWidget({ markdown, width: FULL, height: 1 });
const graph = (title: string, left: IMetric[], width = THIRD, right: IMetric[] = []): GraphWidget =>
  new GraphWidget({ title, left, right, width, height: 6 });

function apiRows({ apiStage: stage, routeFunctions }: MonitoredStage): IWidget[][] {
  const latency = (stat: string) => stage.metricLatency({ statistic: stat, period: FIVE_MINUTES, label: `Latency ${stat}` });
  const routes = [...routeFunctions.keys()];
  const perRoute = (metricName: string) => routes.map((routeId) => routeMetric(routeId, metricName, { label: routeId }));
  return [
    [heading(`## API (stage ${stage.stageName})`)],
    [
      graph('Requests', [stage.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'Requests' })]),
      graph('4xx / 5xx', [
        stage.metricClientError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '4xx' }),
        stage.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '5xx' }),
      ]),
      graph('Latency (ms)', [
        latency(Stats.p(50)),
        latency(Stats.p(90)),
        latency(Stats.p(99)),
        stage.metricIntegrationLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'IntegrationLatency p99' }),
      ]),
    ],
    [
      graph('Success per route', perRoute(ROUTE_METRIC.success)),
      graph('ClientError per route', perRoute(ROUTE_METRIC.clientError)),
      graph('ServerError per route', perRoute(ROUTE_METRIC.serverError)),
    ],
  ];
}

/** Duration, errors, throttles and concurrency of some functions, one line per function named by its key. */
function functionWidgets(functions: ReadonlyMap<string, IFunction>): IWidget[] {
  const each = (metric: (fn: IFunction, options: MetricOptions) => IMetric, statistic: string) =>
    [...functions].map(([name, fn]) => metric(fn, { label: name, statistic, period: FIVE_MINUTES }));
  return [
    graph(
      'Duration p99 (ms)',
      each((fn, o) => fn.metricDuration(o), Stats.p(99)),
      QUARTER,
    ),
    graph(
      'Errors',
      each((fn, o) => fn.metricErrors(o), Stats.SUM),
      QUARTER,
    ),
    graph(
      'Throttles',
      each((fn, o) => fn.metricThrottles(o), Stats.SUM),
      QUARTER,
    ),
    graph(
      'Concurrent executions',
      each((fn, o) => fn.metric('ConcurrentExecutions', o), Stats.MAXIMUM),
      QUARTER,
    ),
  ];
}

function jobRows({ jobFunctions, jobDeadLetterQueues, jobStateMachines }: MonitoredStage): IWidget[][] {
  const jobs = [...(jobFunctions?.keys() ?? [])];
  if (jobs.length === 0 && !jobDeadLetterQueues?.size && !jobStateMachines?.size) return [];
  const widgets: IWidget[] = [];
  if (jobs.length > 0) {
    widgets.push(
      graph('Job runs', [
        ...jobs.map((job) => jobMetric(job, JOB_METRIC.succeeded, { label: `${job} succeeded` })),
        ...jobs.map((job) => jobMetric(job, JOB_METRIC.failed, { label: `${job} failed` })),
      ]),
    );
  }
  if (jobFunctions?.has(JOB.probe)) {
    widgets.push(
      graph('Corpus probe (1 = healthy)', [
        jobMetric(JOB.probe, JOB_METRIC.corpusHealthy, { statistic: Stats.MINIMUM, label: 'CorpusHealthy (min)' }),
      ]),
    );
  }
  if (jobFunctions?.has(JOB.ingest)) {
    widgets.push(
      graph('Ingest runs', [
        jobMetric(JOB.ingest, JOB_METRIC.ingestSucceeded, { label: 'succeeded' }),
        jobMetric(JOB.ingest, JOB_METRIC.ingestFailed, { label: 'failed' }),
      ]),
    );
  }
  for (const [name, machine] of jobStateMachines ?? []) {
    const runs = { statistic: Stats.SUM, period: FIVE_MINUTES };
    widgets.push(
      graph(`${name} runs`, [
        machine.metricStarted({ ...runs, label: 'started' }),
        machine.metricSucceeded({ ...runs, label: 'succeeded' }),
        machine.metricFailed({ ...runs, label: 'failed' }),
        machine.metricTimedOut({ ...runs, label: 'timed out' }),
      ]),
    );
  }
  if (jobDeadLetterQueues?.size) {
    widgets.push(
      graph(
        'Dead letters (visible)',
        [...jobDeadLetterQueues].map(([name, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: name }),
        ),
      ),
    );
  }
  return [[heading('## Jobs')], widgets, ...(jobFunctions?.size ? [functionWidgets(jobFunctions)] : [])];
}

function edgeRows({ webAcl }: MonitoredStage, region: string): IWidget[][] {
  if (!webAcl) return [];
  const requests = (metricName: 'AllowedRequests' | 'BlockedRequests') => webAclMetric(webAcl, metricName, region, { label: metricName });
  return [
    [heading(`## Edge (WAF ${webAcl.name})`)],
    [graph('Requests allowed / blocked', [requests('AllowedRequests'), requests('BlockedRequests')], FULL)],
  ];
}

function databaseRows({ database }: MonitoredStage): IWidget[][] {
  if (!database) return [];
  const { cluster, proxy } = database;
  const clusterMetric = (metricName: string, statistic: string) =>
    cluster.metric(metricName, { statistic, period: FIVE_MINUTES, label: metricName });
  const proxyMetrics = proxy
    ? (
        [
          ['ClientConnections', Stats.MAXIMUM],
          ['ClientConnectionsSetupFailedAuth', Stats.SUM],
        ] as const
      ).map(
        ([metricName, statistic]) =>
          new Metric({
            namespace: 'AWS/RDS',
            metricName,
            dimensionsMap: { ProxyName: proxy.dbProxyName },
            statistic,
            period: FIVE_MINUTES,
            label: `proxy ${metricName}`,
          }),
      )
    : [];
  return [
    [heading('## Case-law database (Aurora Serverless v2)')],
    [
      graph('CPU %', [clusterMetric('CPUUtilization', Stats.AVERAGE)]),
      graph('Capacity', [clusterMetric('ServerlessDatabaseCapacity', Stats.AVERAGE)], THIRD, [
        clusterMetric('ACUUtilization', Stats.AVERAGE),
      ]),
      graph('Connections', [clusterMetric('DatabaseConnections', Stats.MAXIMUM), ...proxyMetrics]),
    ],
  ];
}

function searchRows({ search }: MonitoredStage): IWidget[][] {
  if (!search) return [];
  const { domain } = search;
  const minute = { period: Duration.minutes(1) };
  return [
    [heading('## Search (OpenSearch)')],
    [
      graph(
        'Cluster status',
        [
          domain.metricClusterStatusRed({ ...minute, statistic: Stats.MAXIMUM, label: 'red' }),
          domain.metricClusterStatusYellow({ ...minute, statistic: Stats.MAXIMUM, label: 'yellow' }),
          domain.metricClusterIndexWritesBlocked({ ...minute, statistic: Stats.MAXIMUM, label: 'writes blocked' }),
        ],
        QUARTER,
      ),
      graph(
        'Free storage (MiB, fullest node)',
        [domain.metricFreeStorageSpace({ ...minute, statistic: Stats.MINIMUM, label: 'FreeStorageSpace' })],
        QUARTER,
      ),
      graph(
        'CPU / JVM pressure %',
        [
          domain.metricCPUUtilization({ ...minute, statistic: Stats.MAXIMUM, label: 'CPU' }),
          domain.metricJVMMemoryPressure({ ...minute, statistic: Stats.MAXIMUM, label: 'JVM memory pressure' }),
        ],
        QUARTER,
      ),
      graph(
        'Latency (ms)',
        [
          domain.metricSearchLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'search p99' }),
          domain.metricIndexingLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'indexing p99' }),
        ],
        QUARTER,
      ),
    ],
  ];
}
