import type { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { type AlarmThresholds, DEFAULT_ALARM_THRESHOLDS } from './alarm-thresholds.ts';
import { AlarmTopic } from './alarm-topic.ts';
import { ApiAlarms } from './api-alarms.ts';
import { DatabaseAlarms } from './database-alarms.ts';
import { JobAlarms } from './job-alarms.ts';
import type { MonitoredStage } from './monitored-stage.ts';
import { OperationsDashboard } from './operations-dashboard.ts';
import { SearchAlarms } from './search-alarms.ts';
import { StageAlarms } from './stage-alarms.ts';

export interface OperationsProps extends MonitoredStage {
  /** Where alarm notifications are e-mailed. Default: none (the topic exists; subscribe to it by other means). */
  alarmEmail?: string;
  /** Overrides of DEFAULT_ALARM_THRESHOLDS. Default: none. */
  thresholds?: Partial<AlarmThresholds>;
}

/**
 * The operations of a stage: CloudWatch alarms on the API, its functions, the jobs, the edge and the stores, each
 * notifying one encrypted SNS topic on ALARM and on OK, and one dashboard. A part the stage does not have (no
 * database yet, no WAF) has no alarms and no widgets.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms: StageAlarms;
  readonly dashboard: OperationsDashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const thresholds = { ...DEFAULT_ALARM_THRESHOLDS, ...props.thresholds };
    this.topic = new AlarmTopic(this, 'AlarmTopic', { prefix: props.prefix, ...(props.alarmEmail && { email: props.alarmEmail }) }).topic;
    this.alarms = new StageAlarms(props.prefix, this.topic);
    const alarms = this.alarms;

    new ApiAlarms(this, 'ApiAlarms', {
      alarms,
      thresholds,
      stage: props.apiStage,
      routeFunctions: props.routeFunctions,
      ...(props.webAcl && { webAcl: props.webAcl }),
    });
    new JobAlarms(this, 'JobAlarms', {
      alarms,
      ...(props.jobFunctions && { jobFunctions: props.jobFunctions }),
      ...(props.jobDeadLetterQueues && { deadLetterQueues: props.jobDeadLetterQueues }),
      ...(props.jobStateMachines && { stateMachines: props.jobStateMachines }),
    });
    if (props.database) new DatabaseAlarms(this, 'DatabaseAlarms', { alarms, thresholds, ...props.database });
    if (props.search) new SearchAlarms(this, 'SearchAlarms', { alarms, thresholds, ...props.search });

    this.dashboard = new OperationsDashboard(this, 'Dashboard', { ...props, alarms: alarms.all });
  }
}
