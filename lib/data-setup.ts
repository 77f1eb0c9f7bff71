import { Duration } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { InvocationType, Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { AsofFunction } from './asof-function.ts';
import type { CaseLawDatabase } from './caselaw-database.ts';
import type { SearchDomain } from './search-domain.ts';

export interface DataSetupProps {
  prefix: string;
  caselaw: CaseLawDatabase;
  search: SearchDomain;
  /** Default: one week. */
  logRetention?: RetentionDays;
}

/** The job's timeout; the trigger waits a minute longer, so that a slow job fails as itself, not as the trigger. */
const JOB_TIMEOUT = Duration.minutes(5);

/**
 * The setup job (functions/lambda/jobs/setup.ts) and the trigger that runs it during deployment, after the stores and
 * the functions it maps exist: a job that fails fails the deployment. The trigger runs it again whenever the job's code
 * or configuration changes, and its configuration holds everything it sets up from: the stores' addresses, the
 * migrations (in its code) and the IAM roles bound to the search index. So a deployment that binds a new function,
 * adds a migration or replaces a store runs it; one that changes none of these does not need to. Re-running it by hand
 * is always safe (`aws lambda invoke --function-name <prefix>-setup`).
 */
export class DataSetup extends Construct {
  readonly job: AsofFunction;
  readonly trigger: Trigger;

  constructor(scope: Construct, id: string, props: DataSetupProps) {
    super(scope, id);
    this.job = new AsofFunction(this, 'Job', {
      entry: 'jobs/setup.ts',
      functionName: `${props.prefix}-setup`,
      description: 'Deploy-time setup: Aurora database, API role, migrations and grants; OpenSearch index and security roles',
      // Fine-grained access control's master user is this role.
      role: props.search.adminRole,
      network: props.caselaw.network,
      memorySize: 512,
      timeout: JOB_TIMEOUT,
      ...(props.logRetention && { logRetention: props.logRetention }),
      // Node 20+ runtimes no longer load the Amazon RDS certificate authorities by default; the cluster's certificate
      // is signed by one (https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html, CA certificate loading).
      environment: { NODE_EXTRA_CA_CERTS: '/var/runtime/ca-cert.pem' },
    });
    props.caselaw.bindSetup(this.job);
    props.search.bindSetup(this.job);
    this.trigger = new Trigger(this, 'Run', {
      handler: this.job.fn,
      invocationType: InvocationType.REQUEST_RESPONSE,
      timeout: JOB_TIMEOUT.plus(Duration.minutes(1)),
      executeOnHandlerChange: true,
    });
  }
}
