import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import type { AlarmThresholds } from './alarm-thresholds.ts';
import { FIVE_MINUTES } from './asof-metrics.ts';
import type { StageAlarms } from './stage-alarms.ts';

/** The search domain and the capacity its alarms are judged against. */
export interface SearchDomainCapacity {
  domain: IDomain;
  /** Data nodes the domain runs. */
  dataNodes: number;
  /** EBS volume of each data node, in GiB. */
  volumeSizeGiB: number;
}

export interface SearchAlarmsProps extends SearchDomainCapacity {
  alarms: StageAlarms;
  thresholds: AlarmThresholds;
}

const MINUTE = Duration.minutes(1);
const MIB_PER_GIB = 1024;

/**
 * AWS's recommended alarms for an OpenSearch Service domain, with its thresholds and periods
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/cloudwatch-alarms.html), except where noted.
 */
export class SearchAlarms extends Construct {
  constructor(scope: Construct, id: string, props: SearchAlarmsProps) {
    super(scope, id);
    const { alarms, thresholds: t, domain } = props;
    // The domain publishes its cluster metrics every minute; silence is not a failure of the cluster (a search outage
    // shows as 5xx on the search route).
    const missing = TreatMissingData.NOT_BREACHING;

    alarms.metricAlarm(this, 'Red', {
      name: 'search-red',
      description:
        'The search cluster is red: a primary shard is unassigned and searches over it fail or return partial results. ' +
        'See "Red cluster status" in the OpenSearch Service guide (storage, JVM pressure, a failed node); restore the index from a snapshot or reindex.',
      metric: domain.metricClusterStatusRed({ statistic: Stats.MAXIMUM, period: MINUTE }),
      threshold: 1,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: missing,
    });
    // A single data node can never place the index's replica, so it is yellow by construction: no alarm there.
    if (props.dataNodes > 1) {
      alarms.metricAlarm(this, 'Yellow', {
        name: 'search-yellow',
        description:
          'The search cluster has been yellow for 5 minutes: a replica shard is unassigned, one more node failure loses data. ' +
          'Check for a failed node or low storage.',
        metric: domain.metricClusterStatusYellow({ statistic: Stats.MAXIMUM, period: MINUTE }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: missing,
      });
    }
    alarms.metricAlarm(this, 'WritesBlocked', {
      name: 'search-writes-blocked',
      description:
        'The search cluster is blocking writes (ClusterBlockException): ingest cannot index new versions. Usually storage or JVM ' +
        'pressure; free or add storage, then the ingest can be rerun.',
      metric: domain.metricClusterIndexWritesBlocked({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES }),
      threshold: 1,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: missing,
    });
    const freeMiB = Math.floor((props.volumeSizeGiB * MIB_PER_GIB * t.searchFreeStoragePercent) / 100);
    alarms.metricAlarm(this, 'FreeStorage', {
      name: 'search-free-storage',
      description:
        `A search node is down to ${t.searchFreeStoragePercent} % of its ${props.volumeSizeGiB} GiB volume (${freeMiB} MiB). ` +
        "Raise the stage's volume size before the cluster blocks writes.",
      // The Minimum over the domain's nodes: the fullest node.
      metric: domain.metricFreeStorageSpace({ statistic: Stats.MINIMUM, period: MINUTE }),
      threshold: freeMiB,
      comparison: ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: missing,
    });
    alarms.metricAlarm(this, 'JvmPressure', {
      name: 'search-jvm-pressure',
      description:
        `Search JVM memory pressure was ${t.searchJvmPressurePercent} % or more 3 minutes in a row: out-of-memory errors and a red ` +
        'cluster may follow. Scale the data nodes up (a larger instance type).',
      metric: domain.metricJVMMemoryPressure({ statistic: Stats.MAXIMUM, period: MINUTE }),
      threshold: t.searchJvmPressurePercent,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: missing,
    });
    alarms.metricAlarm(this, 'Cpu', {
      name: 'search-cpu',
      description: `Search CPU stayed at ${t.searchCpuPercent} % or more for 45 minutes: searches slow down. Use a larger instance type or more nodes.`,
      metric: domain.metricCPUUtilization({ statistic: Stats.MAXIMUM, period: Duration.minutes(15) }),
      threshold: t.searchCpuPercent,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: missing,
    });
    alarms.metricAlarm(this, 'Nodes', {
      name: 'search-nodes',
      description:
        `Fewer than ${props.dataNodes} search nodes for a whole day: a node has failed and was not replaced. Open a case with AWS ` +
        'Support if it does not recover.',
      metric: domain.metricNodes({ statistic: Stats.MINIMUM, period: Duration.days(1) }),
      threshold: props.dataNodes,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: missing,
    });
    alarms.metricAlarm(this, 'SnapshotFailed', {
      name: 'search-snapshot-failed',
      description:
        'An automated snapshot of the search domain failed, often because the cluster is red. Without snapshots a lost index ' +
        'must be rebuilt by reindexing (asof reindex).',
      metric: domain.metricAutomatedSnapshotFailure({ statistic: Stats.MAXIMUM, period: MINUTE }),
      threshold: 1,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: missing,
    });
  }
}
