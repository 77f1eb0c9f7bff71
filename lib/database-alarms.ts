import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IDatabaseCluster, IDatabaseProxy } from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import type { AlarmThresholds } from './alarm-thresholds.ts';
import { FIVE_MINUTES } from './asof-metrics.ts';
import type { StageAlarms } from './stage-alarms.ts';

/** The case-law replica: the Aurora cluster and the RDS Proxy the functions connect through. */
export interface CaseLawDatabase {
  cluster: IDatabaseCluster;
  /** Default: none (no proxy alarm). */
  proxy?: IDatabaseProxy;
}

export interface DatabaseAlarmsProps extends CaseLawDatabase {
  alarms: StageAlarms;
  thresholds: AlarmThresholds;
}

/**
 * The few Aurora signals that matter here: CPU and Serverless v2 capacity near its maximum (the cluster is too small
 * for the load; citation lookups and case pages slow down, then fail), connections refused at the proxy (IAM
 * authentication broken: every case-law call fails), and the writer unavailable to the proxy. Reachability itself
 * shows on the case-law routes' error alarms.
 */
export class DatabaseAlarms extends Construct {
  constructor(scope: Construct, id: string, props: DatabaseAlarmsProps) {
    super(scope, id);
    const { alarms, thresholds: t, cluster } = props;
    // Gauges published while the cluster runs; a paused cluster (0 ACU) publishes none and is not overloaded.
    alarms.metricAlarm(this, 'Cpu', {
      name: 'aurora-cpu',
      description:
        `Aurora CPU averaged ${t.databaseCpuPercent} % or more for 15 minutes. Look for slow queries (Performance Insights, ` +
        "the citation lookup's batch queries) before raising the maximum ACU.",
      metric: cluster.metricCPUUtilization({ statistic: Stats.AVERAGE, period: FIVE_MINUTES }),
      threshold: t.databaseCpuPercent,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarms.metricAlarm(this, 'Capacity', {
      name: 'aurora-capacity',
      description:
        `Aurora Serverless v2 ran at ${t.databaseCapacityPercent} % or more of its maximum ACU for 15 minutes: it cannot scale ` +
        "further. Raise the stage's maximum ACU or find what is loading it.",
      metric: cluster.metric('ACUUtilization', { statistic: Stats.AVERAGE, period: FIVE_MINUTES }),
      threshold: t.databaseCapacityPercent,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.proxy) {
      alarms.metricAlarm(this, 'ProxyAuthFailures', {
        name: 'db-proxy-auth-failures',
        description:
          "RDS Proxy refused client connections at authentication: a function's IAM token was not accepted (rds-db:connect grant, " +
          "the database user asof_api, or the proxy's IAM settings changed). Every case-law call fails until it is fixed.",
        metric: new Metric({
          namespace: 'AWS/RDS',
          metricName: 'ClientConnectionsSetupFailedAuth',
          dimensionsMap: { ProxyName: props.proxy.dbProxyName },
          statistic: Stats.SUM,
          period: FIVE_MINUTES,
        }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      // The proxy's health checks of the writer, averaged over its nodes, every minute (dimension set 4 of the RDS
      // Proxy metrics, the only one this metric has). None are published before the first connection: not breaching.
      alarms.metricAlarm(this, 'ProxyAvailability', {
        name: 'db-proxy-unavailable',
        description:
          `RDS Proxy found the Aurora writer available less than ${t.proxyAvailabilityPercent} % of the time in 3 of the last 5 minutes: ` +
          "case-law calls fail or wait. Check the cluster (events, a failover, capacity at its maximum) and the proxy's target health.",
        metric: new Metric({
          namespace: 'AWS/RDS',
          metricName: 'AvailabilityPercentage',
          dimensionsMap: { ProxyName: props.proxy.dbProxyName, TargetGroup: 'default', TargetRole: 'READ_WRITE' },
          statistic: Stats.AVERAGE,
          period: Duration.minutes(1),
        }),
        threshold: t.proxyAvailabilityPercent,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }
}
