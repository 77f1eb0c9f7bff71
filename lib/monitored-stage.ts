import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { WebAclMetrics } from './api-alarms.ts';
import type { CaseLawDatabase } from './database-alarms.ts';
import type { SearchDomainCapacity } from './search-alarms.ts';

/**
 * What a stage's alarms and dashboard watch. The API and its route functions always; every other part only when the
 * stage has it, and its alarms and widgets exist only then.
 */
export interface MonitoredStage {
  /** Resource name prefix: alarms are `${prefix}-…`, the dashboard is `${prefix}`. */
  prefix: string;
  /** The API's deployment stage (`RestApi.deploymentStage`): its metrics carry the ApiName and Stage dimensions. */
  apiStage: Stage;
  /** Route id → the route's function; the id is the `route` dimension of the function's own metrics. */
  routeFunctions: ReadonlyMap<string, IFunction>;
  /**
   * Job name → the job's function; the name must be the one the job gives jobLambda (the `job` dimension of its
   * metrics). `probe` and `ingest` get alarms of their own. Default: none.
   */
  jobFunctions?: ReadonlyMap<string, IFunction>;
  /** Name → a dead-letter queue of the job schedules. Default: none. */
  jobDeadLetterQueues?: ReadonlyMap<string, IQueue>;
  /** Name → a job run as a Step Functions state machine (the US Code fetch): an alarm on its failed runs. Default: none. */
  jobStateMachines?: ReadonlyMap<string, IStateMachine>;
  /** The case-law replica (Aurora Serverless v2, RDS Proxy). Default: none. */
  database?: CaseLawDatabase;
  /** The OpenSearch domain and its capacity. Default: none. */
  search?: SearchDomainCapacity;
  /** The stage's WAF web ACL. Default: none. */
  webAcl?: WebAclMetrics;
}
