import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PlanBook } from '../functions/accounts/plans.ts';
import { ROUTES } from '../functions/http/routes.ts';
import { ENV } from '../functions/lambda/env.ts';
import type { AlarmThresholds } from './alarm-thresholds.ts';
import { EdgeFirewall } from './edge-firewall.ts';
import { LawApi } from './law-api.ts';
import { Operations } from './operations.ts';
import type { StageBindings } from './store-binding.ts';

export interface ApiStackProps extends StackProps {
  prefix: string;
  /** The stage's stores (the stateful stack's). */
  bindings: StageBindings;
  /** Where permalinks point and the API's public base, e.g. https://api.example.org and https://api.example.org/v1. */
  siteUrl: string;
  baseUrl: string;
  memorySize: number;
  timeoutSeconds: number;
  logRetention: RetentionDays;
  /** Where the stage's alarms are e-mailed. Default: no subscription. */
  alarmEmail?: string;
  /** Overrides of the alarms' default thresholds (lib/alarm-thresholds.ts). Default: none. */
  alarmThresholds?: Partial<AlarmThresholds>;
}

/** The API of a stage: the route table as API Gateway methods, one function per route, each given only the stores its route uses. */
export class ApiStack extends Stack {
  readonly lawApi: LawApi;
  readonly operations: Operations;
  readonly edgeFirewall: EdgeFirewall;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.lawApi = new LawApi(this, 'LawApi', {
      prefix: props.prefix,
      routes: ROUTES,
      plans: new PlanBook().plans,
      bindings: props.bindings,
      environment: { [ENV.siteUrl]: props.siteUrl, [ENV.baseUrl]: props.baseUrl },
      memorySize: props.memorySize,
      timeout: Duration.seconds(props.timeoutSeconds),
      logRetention: props.logRetention,
    });
    this.edgeFirewall = new EdgeFirewall(this, 'EdgeFirewall', { prefix: props.prefix, stage: this.lawApi.api.deploymentStage });
    // Alarms and the dashboard over what this stack holds; the jobs, the stores and the WAF join through Operations'
    // optional props (jobFunctions, jobDeadLetterQueues, database, search, webAcl) when the stage has them.
    this.operations = new Operations(this, 'Operations', {
      prefix: props.prefix,
      apiStage: this.lawApi.api.deploymentStage,
      routeFunctions: new Map([...this.lawApi.functions].map(([routeId, f]) => [routeId, f.fn])),
      webAcl: { name: this.edgeFirewall.webAcl.name!, metricName: this.edgeFirewall.webAcl.name! },
      alarmEmail: props.alarmEmail,
      thresholds: props.alarmThresholds,
    });
  }
}
