import { Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { EbsDeviceVolumeType, Port } from 'aws-cdk-lib/aws-ec2';
import { Grant, type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, ResourcePolicy, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type CfnDomain, Domain, EngineVersion, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { DEFAULT_SEARCH_INDEX, ENV } from '../functions/lambda/env.ts';
import { type AsofFunction, LAMBDA_ACKNOWLEDGEMENTS } from './asof-function.ts';
import type { StageNetwork } from './network.ts';
import { type Access, allowFromFunction, type FunctionNetwork, type StoreBinding } from './store-binding.ts';

/** What a stage sizes. */
export interface SearchCapacity {
  /** Data node instance type. Default: t3.small.search. */
  instanceType?: string;
  /** Data nodes; with zone awareness a multiple of the two zones. Default: 1. */
  dataNodes?: number;
  /** EBS (gp3) volume per data node, GiB. Default: 10. */
  volumeGb?: number;
  /** Spread the data nodes (and the index's replicas) over the VPC's two zones. Default: false. */
  zoneAwareness?: boolean;
  /** Dedicated master nodes (3 for a production cluster), 0 for none. Default: 0. */
  masterNodes?: number;
  /** Default: m6g.large.search. */
  masterInstanceType?: string;
}

export interface SearchDomainProps extends SearchCapacity {
  prefix: string;
  network: StageNetwork;
  /** The index the functions use. Default: DEFAULT_SEARCH_INDEX. */
  indexName?: string;
  /** Keep the domain when the stack goes away. Default: true. */
  retain?: boolean;
  /** How long the slow and application logs are kept. Default: one month. */
  logRetention?: RetentionDays;
}

/** OpenSearch 2.19, the last 2.x: every instance type (t3.small.search for dev included) and the adapter's client support it. */
const SEARCH_ENGINE_VERSION = EngineVersion.OPENSEARCH_2_19;

/**
 * The search domain: OpenSearch in the VPC's isolated subnets, encrypted at rest and between nodes, HTTPS only with
 * TLS 1.2 (forward-secret ciphers), fine-grained access control whose master user is an IAM role (`adminRole`, the
 * setup job's), slow and application logs in CloudWatch Logs. No domain access policy: a caller needs an IAM grant
 * (identity policy, given by `bind`) and an OpenSearch role (fine-grained access, mapped by the setup job from the roles
 * `bind` recorded).
 */
export class SearchDomain extends Construct implements StoreBinding {
  readonly domain: Domain;
  readonly indexName: string;
  readonly network: FunctionNetwork;
  /** The master user of fine-grained access control; the setup job runs as it. */
  readonly adminRole: Role;
  private readonly bound: Record<Access, Set<IRole>> = { read: new Set(), readwrite: new Set() };

  constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    this.indexName = props.indexName ?? DEFAULT_SEARCH_INDEX;
    this.network = props.network.functions;
    const dataNodes = props.dataNodes ?? 1;
    const zones = props.zoneAwareness ? 2 : 1;
    if (dataNodes < 1 || dataNodes % zones !== 0)
      throw new Error(`dataNodes must be a positive multiple of the ${zones} zone(s), not ${dataNodes}`);
    const isolated = props.network.vpc.selectSubnets(props.network.dataSubnets).subnets;
    const masterNodes = props.masterNodes ?? 0;
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const logGroup = (logId: string) => new LogGroup(this, logId, { retention, removalPolicy: RemovalPolicy.DESTROY });
    const logs = { slowSearch: logGroup('SlowSearchLogs'), slowIndex: logGroup('SlowIndexLogs'), app: logGroup('AppLogs') };
    const domainName = `${props.prefix}-search`;
    // The service writes the logs under a resource policy of the log groups; a native one (CDK's default is a
    // custom resource, a Lambda function in this stack), limited to this domain by name.
    const logsPolicy = new ResourcePolicy(this, 'LogsPolicy', {
      resourcePolicyName: `${domainName}-logs`,
      policyStatements: [
        new PolicyStatement({
          principals: [new ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: Object.values(logs).map((g) => g.logGroupArn),
          conditions: {
            StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
            ArnLike: { 'aws:SourceArn': Stack.of(this).formatArn({ service: 'es', resource: 'domain', resourceName: domainName }) },
          },
        }),
      ],
    });

    this.adminRole = new Role(this, 'AdminRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Master user of the ${props.prefix} search domain (fine-grained access control): the setup job runs as it`,
    });
    this.domain = new Domain(this, 'Domain', {
      domainName,
      version: SEARCH_ENGINE_VERSION,
      vpc: props.network.vpc,
      // One subnet per zone the nodes use (a domain without zone awareness takes exactly one).
      vpcSubnets: [{ subnets: isolated.slice(0, zones) }],
      capacity: {
        dataNodes,
        dataNodeInstanceType: props.instanceType ?? 't3.small.search',
        ...(masterNodes > 0 && { masterNodes, masterNodeInstanceType: props.masterInstanceType ?? 'm6g.large.search' }),
        // Multi-AZ with standby needs three zones and dedicated masters, and T3 nodes cannot have it.
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness: props.zoneAwareness ? { enabled: true, availabilityZoneCount: zones } : { enabled: false },
      ebs: { enabled: true, volumeSize: props.volumeGb ?? 10, volumeType: EbsDeviceVolumeType.GP3 },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2_PFS,
      fineGrainedAccessControl: { masterUserArn: this.adminRole.roleArn },
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup: logs.slowSearch,
        slowIndexLogEnabled: true,
        slowIndexLogGroup: logs.slowIndex,
        appLogEnabled: true,
        appLogGroup: logs.app,
      },
      suppressLogsResourcePolicy: true,
      removalPolicy: props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    this.domain.node.addDependency(logsPolicy);
    this.acknowledgeNagFindings(masterNodes, props.zoneAwareness ?? false);
  }

  /** cdk-nag findings of the domain and its master role, each with why it stands. */
  private acknowledgeNagFindings(masterNodes: number, zoneAwareness: boolean): void {
    Validations.of(this.domain).acknowledge(
      {
        id: 'AwsSolutions-OS3',
        reason:
          'The domain is reachable only inside the VPC (security group: the bound functions on 443); an IP allow list adds nothing there.',
      },
      {
        id: 'AwsSolutions-OS5',
        reason:
          'No request is anonymous: with no resource policy, a caller needs an IAM grant (SigV4, given by bind) and an OpenSearch role ' +
          '(fine-grained access control, mapped by the setup job); the domain is in the VPC.',
      },
      ...(masterNodes === 0
        ? [
            {
              id: 'AwsSolutions-OS4',
              reason: 'This stage runs without dedicated master nodes (bin/stages.ts: a small development domain); prod has three.',
            },
          ]
        : []),
      ...(zoneAwareness
        ? []
        : [
            {
              id: 'AwsSolutions-OS7',
              reason: 'This stage runs one zone (bin/stages.ts: a single-node development domain); prod is zone-aware.',
            },
          ]),
    );
    const domainId = Stack.of(this).getLogicalId(this.domain.node.defaultChild as CfnDomain);
    Validations.of(this.adminRole).acknowledge(...LAMBDA_ACKNOWLEDGEMENTS.filter((a) => a.id !== 'AwsSolutions-L1'), {
      id: `AwsSolutions-IAM5[Resource::<${domainId}.Arn>/*]`,
      reason:
        'The master user of fine-grained access control: the setup job creates the index and writes the security plugin’s roles and mappings.',
    });
  }

  /**
   * The domain's https address and the index in the function's environment; an IAM grant on exactly the paths the
   * adapter (functions/stores/opensearch/search-index.ts) sends to, no wildcard: read = POST <index>/_search, GET
   * <index>/_count (the audit) and GET _cluster/health/<index> (the probe's ping); readwrite adds POST _bulk (every
   * write) and POST <index>/_refresh. 443 opened to the function. The function's role is recorded by access level for
   * the setup job, which maps it to the OpenSearch role of that level (fine-grained access: the second gate).
   */
  bind(fn: AsofFunction, access: Access): void {
    fn.addEnvironment(ENV.searchUrl, `https://${this.domain.domainEndpoint}`).addEnvironment(ENV.searchIndex, this.indexName);
    const path = (p: string) => `${this.domain.domainArn}/${p}`;
    const grant = (actions: string[], paths: string[]) => Grant.addToPrincipal({ grantee: fn.fn, actions, resourceArns: paths.map(path) });
    grant(['es:ESHttpGet', 'es:ESHttpPost'], [`${this.indexName}/_search`, `${this.indexName}/_count`]);
    grant(['es:ESHttpGet'], [`_cluster/health/${this.indexName}`]);
    if (access === 'readwrite') grant(['es:ESHttpPost'], ['_bulk', `${this.indexName}/_refresh`]);
    allowFromFunction(fn, this.domain, Port.tcp(443), 'the search domain');
    this.bound[access].add(fn.fn.role!);
  }

  /** The IAM role ARNs bound at this access level, as a JSON array resolved at synthesis (after every bind). */
  boundRoleArns(access: Access): string {
    return Lazy.string({ produce: () => Stack.of(this).toJsonString([...this.bound[access]].map((role) => role.roleArn)) });
  }

  /**
   * The setup job, which must run as the master role: the address, the index and the recorded roles in its environment,
   * every HTTP method on the domain (it creates the index and writes the security configuration), 443 opened to it.
   */
  bindSetup(fn: AsofFunction): void {
    if (fn.fn.role !== this.adminRole)
      throw new Error('the setup job must run as the search domain’s master role (SearchDomain.adminRole)');
    fn.addEnvironment(ENV.searchUrl, `https://${this.domain.domainEndpoint}`)
      .addEnvironment(ENV.searchIndex, this.indexName)
      .addEnvironment(ENV.searchReadRoles, this.boundRoleArns('read'))
      .addEnvironment(ENV.searchWriteRoles, this.boundRoleArns('readwrite'));
    this.domain.grantReadWrite(fn.fn);
    allowFromFunction(fn, this.domain, Port.tcp(443), 'the search domain (setup)');
  }
}
