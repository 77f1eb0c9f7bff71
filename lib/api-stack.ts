import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PlanBook } from '../functions/accounts/plans.ts';
import { ROUTES } from '../functions/http/routes.ts';
import { ENV } from '../functions/lambda/env.ts';
import { DataSetup, type DataSetupProps } from './data-setup.ts';
import { LawApi } from './law-api.ts';
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
  /**
   * The stores the deploy-time setup job prepares (Aurora, the search domain); default: no setup job. It lives here,
   * beside the functions whose IAM roles it maps to OpenSearch roles: the stateful stack cannot refer to them.
   */
  setup?: Pick<DataSetupProps, 'caselaw' | 'search'>;
}

/** The API of a stage: the route table as API Gateway methods, one function per route, each given only the stores its route uses. */
export class ApiStack extends Stack {
  readonly lawApi: LawApi;
  readonly dataSetup?: DataSetup;

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
    if (props.setup) this.dataSetup = new DataSetup(this, 'DataSetup', { prefix: props.prefix, ...props.setup, logRetention: props.logRetention });
  }
}
