import {
  Alarm,
  AlarmRule,
  type ComparisonOperator,
  CompositeAlarm,
  type IAlarm,
  type IMetric,
  MathExpression,
  type TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { FIVE_MINUTES } from './asof-metrics.ts';

export interface MetricAlarmSpec {
  /** Appended to the stage prefix: `${prefix}-${name}`. */
  name: string;
  /** What the alarm means and what to do about it (it is the notification's text). */
  description: string;
  metric: IMetric;
  threshold: number;
  comparison: ComparisonOperator;
  /** Default: 1. */
  evaluationPeriods?: number;
  /** Default: every evaluation period (consecutive breaches). */
  datapointsToAlarm?: number;
  /** No default on purpose: each alarm decides what silence means. */
  treatMissingData: TreatMissingData;
  /** Notify the topic on ALARM and OK. Default: true; false for the members of a composite alarm, which notifies instead. */
  notify?: boolean;
}

export interface CompositeAlarmSpec {
  name: string;
  description: string;
  /** In ALARM while any of these is. */
  anyOf: IAlarm[];
}

/**
 * The alarms of a stage: named under its prefix, notifying its topic on ALARM and on OK (so that a recovery is
 * reported as well), and listed for the dashboard's status widget.
 */
export class StageAlarms {
  private readonly created: IAlarm[] = [];
  private readonly action: SnsAction;

  constructor(
    readonly prefix: string,
    topic: ITopic,
  ) {
    this.action = new SnsAction(topic);
  }

  /** Every alarm made so far, composite ones included. */
  get all(): readonly IAlarm[] {
    return this.created;
  }

  metricAlarm(scope: Construct, id: string, spec: MetricAlarmSpec): Alarm {
    const evaluationPeriods = spec.evaluationPeriods ?? 1;
    const alarm = new Alarm(scope, id, {
      alarmName: `${this.prefix}-${spec.name}`,
      alarmDescription: spec.description,
      metric: spec.metric,
      threshold: spec.threshold,
      comparisonOperator: spec.comparison,
      evaluationPeriods,
      datapointsToAlarm: spec.datapointsToAlarm ?? evaluationPeriods,
      treatMissingData: spec.treatMissingData,
    });
    return this.track(alarm, spec.notify ?? true);
  }

  compositeAlarm(scope: Construct, id: string, spec: CompositeAlarmSpec): CompositeAlarm {
    const alarm = new CompositeAlarm(scope, id, {
      compositeAlarmName: `${this.prefix}-${spec.name}`,
      alarmDescription: spec.description,
      alarmRule: AlarmRule.anyOf(...spec.anyOf),
    });
    return this.track(alarm, true);
  }

  private track<A extends Alarm | CompositeAlarm>(alarm: A, notify: boolean): A {
    if (notify) {
      alarm.addAlarmAction(this.action);
      alarm.addOkAction(this.action);
    }
    this.created.push(alarm);
    return alarm;
  }
}

/** An alarm's metric math may reference at most 10 metrics (a hard CloudWatch limit). */
export const MAX_METRICS_PER_ALARM = 10;

/**
 * The sum of some counts per period, a missing datapoint counting 0 (a series with no datapoint in a period would
 * otherwise leave the sum without one).
 */
export function countSum(counts: Record<string, IMetric>, label: string, period = FIVE_MINUTES): MathExpression {
  const ids = Object.keys(counts);
  if (ids.length === 0 || ids.length > MAX_METRICS_PER_ALARM)
    throw new Error(`countSum: ${ids.length} metrics (an alarm takes 1 to ${MAX_METRICS_PER_ALARM})`);
  return new MathExpression({ expression: ids.map((id) => `FILL(${id}, 0)`).join(' + '), usingMetrics: counts, label, period });
}
