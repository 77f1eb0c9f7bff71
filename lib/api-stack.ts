import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PlanBook } from '../functions/accounts/plans.ts';
import { ROUTES } from '../functions/http/routes.ts';
import type { DynamoTable } from './dynamo-table.ts';
import { LawApi } from './law-api.ts';

export interface ApiStackProps extends StackProps {
  prefix: string;
  tables: Record<'versions' | 'accounts' | 'meters' | 'ops', DynamoTable>;
  /** Where permalinks point and the API's public base, e.g. https://api.example.org and https://api.example.org/v1. */
  siteUrl: string;
  baseUrl: string;
  memorySize: number;
  timeoutSeconds: number;
  logRetention: RetentionDays;
}

/** The API of a stage: the route table as API Gateway methods, one function per route, least-privilege table grants. */
export class ApiStack extends Stack {
  readonly lawApi: LawApi;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.lawApi = new LawApi(this, 'LawApi', {
      prefix: props.prefix,
      routes: ROUTES,
      plans: new PlanBook().plans,
      environment: { ASOF_TABLE_PREFIX: props.prefix, ASOF_SITE_URL: props.siteUrl, ASOF_BASE_URL: props.baseUrl },
      memorySize: props.memorySize,
      timeout: Duration.seconds(props.timeoutSeconds),
      logRetention: props.logRetention,
    });
    for (const { fn } of this.lawApi.functions.values()) {
      // Reads of the law and the keys; the meter's conditional writes; the ops table (coverage cache, formats, quota).
      props.tables.versions.table.grantReadData(fn);
      props.tables.accounts.table.grantReadData(fn);
      props.tables.meters.table.grantReadWriteData(fn);
      props.tables.ops.table.grantReadWriteData(fn);
    }
  }
}
