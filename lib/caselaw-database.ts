import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  DatabaseProxy,
  DatabaseSecret,
  DefaultAuthScheme,
  ProxyTarget,
} from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import { DEFAULT_CASELAW_DATABASE, DEFAULT_CASELAW_USER, ENV } from '../functions/lambda/env.ts';
import type { AsofFunction } from './asof-function.ts';
import type { StageNetwork } from './network.ts';
import { type Access, allowFromFunction, type FunctionNetwork, type StoreBinding } from './store-binding.ts';

/** What a stage sizes. */
export interface CaseLawCapacity {
  /** Serverless v2 capacity range in Aurora capacity units. Default: 0.5 to 2. */
  minAcu?: number;
  maxAcu?: number;
  /** A reader beside the writer: it scales with the writer and is the first failover target. Default: false. */
  reader?: boolean;
  /** Days of automated backups (point-in-time restore within them). Default: 7. */
  backupRetentionDays?: number;
  /** Refuse to delete the cluster. Default: true. */
  deletionProtection?: boolean;
}

export interface CaseLawDatabaseProps extends CaseLawCapacity {
  prefix: string;
  network: StageNetwork;
  /** Keep the cluster when the stack goes away; false takes a final snapshot instead. Default: true. */
  retain?: boolean;
  /** How long the PostgreSQL logs are kept in CloudWatch Logs. Default: one month. */
  logRetention?: RetentionDays;
}

/** Aurora PostgreSQL 17: RDS Proxy serves it (newer majors reach the proxy later); the replica's SQL needs 15 or later. */
const CASELAW_ENGINE_VERSION = AuroraPostgresEngineVersion.VER_17_9;
const CASELAW_ADMIN_USER = 'asof_admin';
const PORT = 5432;

/**
 * The case-law replica: Aurora PostgreSQL Serverless v2 in the isolated subnets, encrypted, IAM database
 * authentication on, admin credentials generated into Secrets Manager, behind an RDS Proxy that requires TLS and IAM
 * authentication end to end: functions log in as the API user with a signed token, and the proxy logs in to the
 * database as that user with IAM too (DefaultAuthScheme.IAM_AUTH), so no password of the API user exists anywhere.
 * The admin secret is the setup job's alone (lib/data-setup.ts), which connects to the cluster directly.
 */
export class CaseLawDatabase extends Construct implements StoreBinding {
  readonly cluster: DatabaseCluster;
  readonly proxy: DatabaseProxy;
  readonly network: FunctionNetwork;
  /** The database and the user the API connects as (created by the setup job). */
  readonly databaseName = DEFAULT_CASELAW_DATABASE;
  readonly apiUser = DEFAULT_CASELAW_USER;

  constructor(scope: Construct, id: string, props: CaseLawDatabaseProps) {
    super(scope, id);
    const { vpc } = props.network;
    const minAcu = props.minAcu ?? 0.5;
    const maxAcu = props.maxAcu ?? 2;
    if (!(minAcu >= 0.5 && maxAcu >= minAcu))
      throw new Error(`Aurora capacity must satisfy 0.5 <= minAcu <= maxAcu, not ${minAcu}..${maxAcu}`);
    this.network = props.network.functions;
    const clusterIdentifier = `${props.prefix}-caselaw`;
    const retain = props.retain ?? true;
    // The log group RDS would create for the exports, made first with its retention (no log-retention custom resource).
    const logs = new LogGroup(this, 'PostgresqlLogs', {
      logGroupName: `/aws/rds/cluster/${clusterIdentifier}/postgresql`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // A secret of its own (not the cluster's generated one), so it is kept with a kept cluster: its admin password.
    const adminSecret = new DatabaseSecret(this, 'AdminSecret', {
      username: CASELAW_ADMIN_USER,
      secretName: `${props.prefix}/caselaw/admin`,
    });
    adminSecret.applyRemovalPolicy(retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);

    this.cluster = new DatabaseCluster(this, 'Cluster', {
      clusterIdentifier,
      engine: DatabaseClusterEngine.auroraPostgres({ version: CASELAW_ENGINE_VERSION }),
      writer: ClusterInstance.serverlessV2('Writer'),
      readers: props.reader ? [ClusterInstance.serverlessV2('Reader', { scaleWithWriter: true })] : [],
      serverlessV2MinCapacity: minAcu,
      serverlessV2MaxCapacity: maxAcu,
      vpc,
      vpcSubnets: props.network.dataSubnets,
      port: PORT,
      credentials: Credentials.fromSecret(adminSecret),
      storageEncrypted: true,
      iamAuthentication: true,
      // Plain-text connections refused by the server itself; statements slower than a second logged.
      parameters: { 'rds.force_ssl': '1', log_min_duration_statement: '1000' },
      backup: { retention: Duration.days(props.backupRetentionDays ?? 7) },
      deletionProtection: props.deletionProtection ?? true,
      cloudwatchLogsExports: ['postgresql'],
      copyTagsToSnapshot: true,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.SNAPSHOT,
    });
    this.cluster.node.addDependency(logs);
    // The admin password is used by the deploy-time setup job alone (the API logs in with IAM); it changes every 30
    // days. The rotation function runs where it reaches Secrets Manager (through the NAT) and the cluster.
    this.cluster.addRotationSingleUser({ automaticallyAfter: Duration.days(30), vpcSubnets: props.network.functions.subnets });
    if (!(props.deletionProtection ?? true)) {
      Validations.of(this.cluster).acknowledge({
        id: 'AwsSolutions-RDS10',
        reason:
          'This stage turns deletion protection off (bin/stages.ts: a development stage whose replica is rebuilt from the bulk data); prod keeps it on.',
      });
    }

    // End-to-end IAM authentication: the proxy's role may log in to the database as the API user (an rds-db:connect
    // grant on the cluster's resource id), and no Secrets Manager secret of that user is needed.
    const proxyRole = new Role(this, 'ProxyRole', {
      assumedBy: new ServicePrincipal('rds.amazonaws.com'),
      description: `RDS Proxy of ${props.prefix}: IAM login to Aurora as ${this.apiUser}`,
    });
    this.cluster.grantConnect(proxyRole, this.apiUser);
    this.proxy = new DatabaseProxy(this, 'Proxy', {
      proxyTarget: ProxyTarget.fromCluster(this.cluster),
      dbProxyName: `${props.prefix}-caselaw`,
      vpc,
      vpcSubnets: props.network.dataSubnets,
      role: proxyRole,
      defaultAuthScheme: DefaultAuthScheme.IAM_AUTH,
      requireTLS: true,
    });
    this.cluster.connections.allowDefaultPortFrom(this.proxy, 'RDS Proxy to Aurora');
  }

  /**
   * The proxy's address and the API's user and database in the function's environment, an rds-db:connect grant for the
   * API user on the proxy, 5432 opened to the function. Both access levels log in as the one API user, whose privileges
   * (read, insert and update for the fallback's backfill) the setup job grants: the database does not tell readers
   * from writers.
   */
  bind(fn: AsofFunction, _access: Access): void {
    fn.addEnvironment(ENV.caseLawHost, this.proxy.endpoint)
      .addEnvironment(ENV.caseLawPort, String(PORT))
      .addEnvironment(ENV.caseLawUser, this.apiUser)
      .addEnvironment(ENV.caseLawDatabase, this.databaseName);
    this.proxy.grantConnect(fn.fn, this.apiUser);
    allowFromFunction(fn, this.proxy, Port.tcp(PORT), 'the case-law proxy');
  }

  /** The setup job: the admin secret (read), the API's user and database to create, and 5432 on the cluster itself. */
  bindSetup(fn: AsofFunction): void {
    const secret = this.cluster.secret!;
    fn.addEnvironment(ENV.caseLawAdminSecret, secret.secretArn)
      .addEnvironment(ENV.caseLawUser, this.apiUser)
      .addEnvironment(ENV.caseLawDatabase, this.databaseName);
    secret.grantRead(fn.fn);
    allowFromFunction(fn, this.cluster, Port.tcp(PORT), 'Aurora (setup)');
  }
}
