import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { StatefulStack, type StatefulStackProps } from '../../lib/stateful-stack.ts';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: string[] }
>;

const build = (props: Partial<StatefulStackProps> = {}) =>
  Template.fromStack(new StatefulStack(new App(), 'test-stateful', { prefix: 'asof-test', ...props }));

/** The default stage (dev-sized), built once. */
let t: Template;
beforeAll(() => {
  t = build();
});

const only = (template: Template, type: string) => {
  const found = Object.entries(template.findResources(type) as Resources);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};

describe('StatefulStack', () => {
  it('holds the four tables the adapters use, keyed pk/sk, on demand, with point-in-time recovery, retained', () => {
    t.resourceCountIs('AWS::DynamoDB::GlobalTable', 4);
    for (const name of ['asof-test-versions', 'asof-test-accounts', 'asof-test-meters', 'asof-test-ops']) {
      t.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: Match.objectLike({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
        }),
      });
    }
  });

  it('expires accounts, meters and ops items by TTL, never versions', () => {
    const tables = t.findResources('AWS::DynamoDB::GlobalTable');
    const ttl = Object.fromEntries(
      Object.values(tables).map((r) => [r.Properties.TableName, r.Properties.TimeToLiveSpecification ?? null]),
    );
    expect(ttl['asof-test-versions']).toBeNull();
    expect(ttl['asof-test-accounts']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(ttl['asof-test-meters']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(ttl['asof-test-ops']).toEqual({ AttributeName: 'expiresAt', Enabled: true });
  });

  it('keeps stable logical ids for the stateful resources', () => {
    const ids = (type: string) => Object.keys(t.findResources(type)).sort();
    expect(ids('AWS::DynamoDB::GlobalTable').map((id) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'AccountsTable',
      'MetersTable',
      'OpsTable',
      'VersionsTable',
    ]);
    // The full ids: a renamed construct (or a moved one) would replace the resource and lose or orphan its data.
    expect(ids('AWS::RDS::DBCluster')).toEqual(['CaselawDatabaseCluster6D7383D9']);
    expect(ids('AWS::RDS::DBInstance')).toEqual(['CaselawDatabaseClusterWriter393F5BCF']);
    expect(ids('AWS::RDS::DBProxy')).toEqual(['CaselawDatabaseProxyAB537C5C']);
    expect(ids('AWS::SecretsManager::Secret')).toEqual(['CaselawDatabaseAdminSecret8501264C']);
    expect(ids('AWS::OpenSearchService::Domain')).toEqual(['SearchDomainDEDB155F']);
    expect(ids('AWS::S3::Bucket')).toEqual(['SourcesBucket2B4AE65E', 'SourcesBucketAccessLogsA61B480F']);
    expect(ids('AWS::EC2::VPC')).toEqual(['NetworkVpc7FB7348F']);
  });
});

describe('the network', () => {
  it('spans two zones with public, private-with-egress (functions) and isolated (data) subnets, and one NAT gateway by default', () => {
    const subnets = Object.entries(t.findResources('AWS::EC2::Subnet') as Resources).map(([id]) =>
      id.replace(/Subnet\d+Subnet[0-9A-F]{8}$/, ''),
    );
    expect(subnets.sort()).toEqual([
      'NetworkVpcdata',
      'NetworkVpcdata',
      'NetworkVpcfunctions',
      'NetworkVpcfunctions',
      'NetworkVpcpublic',
      'NetworkVpcpublic',
    ]);
    t.resourceCountIs('AWS::EC2::NatGateway', 1);
    // The functions' subnets route to a NAT gateway; the data subnets route nowhere beyond the VPC (and the endpoints).
    const routes = Object.entries(t.findResources('AWS::EC2::Route') as Resources);
    expect(routes.filter(([id]) => id.startsWith('NetworkVpcfunctions')).every(([, r]) => r.Properties.NatGatewayId)).toBe(true);
    expect(routes.filter(([id]) => id.startsWith('NetworkVpcdata'))).toEqual([]);
  });

  it('takes the NAT gateway count from the stage, and refuses none (functions need egress)', () => {
    build({ network: { natGateways: 2 } }).resourceCountIs('AWS::EC2::NatGateway', 2);
    expect(() => build({ network: { natGateways: 0 } })).toThrow(/natGateways must be between 1 and the 2 zones/);
  });

  it('has gateway endpoints for DynamoDB and S3 on every route table', () => {
    const endpoints = Object.values(t.findResources('AWS::EC2::VPCEndpoint') as Resources).map((r) => r.Properties);
    expect(endpoints.map((e) => [e.VpcEndpointType, JSON.stringify(e.ServiceName).match(/\.(dynamodb|s3)"/)![1]]).sort()).toEqual([
      ['Gateway', 'dynamodb'],
      ['Gateway', 's3'],
    ]);
    for (const e of endpoints) expect(e.RouteTableIds).toHaveLength(6);
  });

  it('logs every flow to CloudWatch Logs', () => {
    t.hasResourceProperties('AWS::EC2::FlowLog', { ResourceType: 'VPC', TrafficType: 'ALL', LogDestinationType: 'cloud-watch-logs' });
  });
});

describe('the case-law database', () => {
  it('is Aurora PostgreSQL 17 Serverless v2 (0.5–2 ACU), encrypted, with IAM authentication, backups, deletion protection, logs, retained', () => {
    const [, cluster] = only(t, 'AWS::RDS::DBCluster');
    expect(cluster).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        DBClusterIdentifier: 'asof-test-caselaw',
        Engine: 'aurora-postgresql',
        EngineVersion: '17.9',
        ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 2 },
        StorageEncrypted: true,
        EnableIAMDatabaseAuthentication: true,
        BackupRetentionPeriod: 7,
        DeletionProtection: true,
        EnableCloudwatchLogsExports: ['postgresql'],
      },
    });
    // The admin user and password are the secret's.
    for (const field of ['username', 'password']) {
      const value = JSON.stringify(cluster.Properties[field === 'username' ? 'MasterUsername' : 'MasterUserPassword']);
      expect(value).toContain('{{resolve:secretsmanager:');
      expect(value).toContain(`"CaselawDatabaseAdminSecret8501264C"},":SecretString:${field}::}}`);
    }
    t.hasResourceProperties('AWS::RDS::DBInstance', {
      DBInstanceClass: 'db.serverless',
      Engine: 'aurora-postgresql',
      PubliclyAccessible: false,
    });
    t.hasResourceProperties('AWS::RDS::DBClusterParameterGroup', {
      Family: 'aurora-postgresql17',
      Parameters: Match.objectLike({ 'rds.force_ssl': '1' }),
    });
    t.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/rds/cluster/asof-test-caselaw/postgresql', RetentionInDays: 30 });
  });

  it('lives in the isolated subnets', () => {
    const [, group] = only(t, 'AWS::RDS::DBSubnetGroup');
    expect(group.Properties.SubnetIds.map((s: { Ref: string }) => s.Ref).sort()).toEqual([
      expect.stringMatching(/^NetworkVpcdataSubnet1/),
      expect.stringMatching(/^NetworkVpcdataSubnet2/),
    ]);
  });

  it('keeps its admin credentials in a retained, generated Secrets Manager secret attached to the cluster', () => {
    t.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        Name: 'asof-test/caselaw/admin',
        GenerateSecretString: Match.objectLike({ SecretStringTemplate: '{"username":"asof_admin"}', GenerateStringKey: 'password' }),
      }),
    });
    t.hasResourceProperties('AWS::SecretsManager::SecretTargetAttachment', { TargetType: 'AWS::RDS::DBCluster' });
  });

  it('takes a reader, capacity, backups and deletion protection from the stage; without retention it leaves a snapshot', () => {
    const prod = build({
      retainData: false,
      caselaw: { minAcu: 1, maxAcu: 8, reader: true, backupRetentionDays: 30, deletionProtection: false },
    });
    const [, cluster] = only(prod, 'AWS::RDS::DBCluster');
    expect(cluster).toMatchObject({
      DeletionPolicy: 'Snapshot',
      Properties: {
        ServerlessV2ScalingConfiguration: { MinCapacity: 1, MaxCapacity: 8 },
        BackupRetentionPeriod: 30,
        DeletionProtection: false,
      },
    });
    const instances = Object.values(prod.findResources('AWS::RDS::DBInstance') as Resources)
      .map((r) => r.Properties.PromotionTier)
      .sort();
    expect(instances).toEqual([0, 1]); // the writer, and a reader first in line for failover, scaling with it
    expect(() => build({ caselaw: { minAcu: 4, maxAcu: 2 } })).toThrow(/0.5 <= minAcu <= maxAcu/);
  });

  it('is reached through an RDS Proxy that requires TLS and IAM authentication end to end (no secret of the API user)', () => {
    const [, proxy] = only(t, 'AWS::RDS::DBProxy');
    expect(proxy.Properties).toMatchObject({
      DBProxyName: 'asof-test-caselaw',
      EngineFamily: 'POSTGRESQL',
      RequireTLS: true,
      DefaultAuthScheme: 'IAM_AUTH',
    });
    expect(proxy.Properties.Auth).toBeUndefined();
    expect(proxy.Properties.VpcSubnetIds.map((s: { Ref: string }) => s.Ref).every((r: string) => r.startsWith('NetworkVpcdata'))).toBe(
      true,
    );
    t.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      TargetGroupName: 'default',
      DBClusterIdentifiers: [{ Ref: 'CaselawDatabaseCluster6D7383D9' }],
    });
    // The proxy's role logs in to the cluster as the API user, and only as that user.
    const roleRef = proxy.Properties.RoleArn['Fn::GetAtt'][0];
    const statements = Object.values(t.findResources('AWS::IAM::Policy') as Resources)
      .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleRef))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([
      {
        Action: 'rds-db:connect',
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':rds-db:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':dbuser:',
              { 'Fn::GetAtt': ['CaselawDatabaseCluster6D7383D9', 'DBClusterResourceId'] },
              '/asof_api',
            ],
          ],
        },
      },
    ]);
    // The cluster accepts the proxy on 5432.
    t.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: { 'Fn::GetAtt': ['CaselawDatabaseClusterSecurityGroup916C7137', 'GroupId'] },
      SourceSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^CaselawDatabaseProxyProxySecurityGroup'), 'GroupId'] },
      IpProtocol: 'tcp',
    });
  });
});

describe('the search domain', () => {
  it('is OpenSearch 2.19 in one isolated subnet (dev), encrypted at rest and between nodes, HTTPS only with TLS 1.2, retained', () => {
    const [, domain] = only(t, 'AWS::OpenSearchService::Domain');
    expect(domain).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        DomainName: 'asof-test-search',
        EngineVersion: 'OpenSearch_2.19',
        EncryptionAtRestOptions: { Enabled: true },
        NodeToNodeEncryptionOptions: { Enabled: true },
        DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-PFS-2023-10' },
        ClusterConfig: { InstanceType: 't3.small.search', InstanceCount: 1, ZoneAwarenessEnabled: false, DedicatedMasterEnabled: false },
        EBSOptions: { EBSEnabled: true, VolumeSize: 10, VolumeType: 'gp3' },
      },
    });
    expect(domain.Properties.VPCOptions.SubnetIds).toEqual([{ Ref: expect.stringMatching(/^NetworkVpcdataSubnet1/) }]);
    // No domain access policy: access is the IAM grants' and fine-grained access control's.
    expect(domain.Properties.AccessPolicies).toBeUndefined();
  });

  it('has fine-grained access control with an IAM role as master user, and no internal users', () => {
    t.hasResourceProperties('AWS::OpenSearchService::Domain', {
      AdvancedSecurityOptions: {
        Enabled: true,
        InternalUserDatabaseEnabled: false,
        MasterUserOptions: { MasterUserARN: { 'Fn::GetAtt': ['SearchDomainAdminRole0957E550', 'Arn'] } },
      },
    });
    t.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })] }),
      Description: Match.stringLikeRegexp('^Master user'),
    });
  });

  it('publishes slow search, slow index and application logs to log groups the service may write, this domain only', () => {
    const [, domain] = only(t, 'AWS::OpenSearchService::Domain');
    const publishing = domain.Properties.LogPublishingOptions;
    expect(Object.keys(publishing).sort()).toEqual(['ES_APPLICATION_LOGS', 'INDEX_SLOW_LOGS', 'SEARCH_SLOW_LOGS']);
    for (const p of Object.values<any>(publishing)) expect(p.Enabled).toBe(true);
    const [, policy] = only(t, 'AWS::Logs::ResourcePolicy');
    const document = JSON.stringify(policy.Properties.PolicyDocument);
    expect(document).toContain('\\"Service\\":\\"es.amazonaws.com\\"');
    expect(document).toContain(':domain/asof-test-search');
    for (const group of ['SearchDomainSlowSearchLogs', 'SearchDomainSlowIndexLogs', 'SearchDomainAppLogs'])
      expect(document).toContain(group);
    expect(domain.DependsOn).toContain(Object.keys(t.findResources('AWS::Logs::ResourcePolicy'))[0]);
  });

  it('spreads data nodes over both zones and adds dedicated masters when the stage asks, and refuses an uneven spread', () => {
    const prod = build({ search: { instanceType: 'm6g.large.search', dataNodes: 2, volumeGb: 50, zoneAwareness: true, masterNodes: 3 } });
    const [, domain] = only(prod, 'AWS::OpenSearchService::Domain');
    expect(domain.Properties.ClusterConfig).toMatchObject({
      InstanceType: 'm6g.large.search',
      InstanceCount: 2,
      ZoneAwarenessEnabled: true,
      ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
      DedicatedMasterEnabled: true,
      DedicatedMasterCount: 3,
      DedicatedMasterType: 'm6g.large.search',
    });
    expect(domain.Properties.VPCOptions.SubnetIds).toHaveLength(2);
    expect(() => build({ search: { dataNodes: 3, zoneAwareness: true } })).toThrow(/multiple of the 2 zone/);
  });
});

describe('the sources bucket', () => {
  it('is versioned, encrypted, TLS-only, private, logged to an access-log bucket, retained', () => {
    t.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: {
        VersioningConfiguration: { Status: 'Enabled' },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: 'SourcesBucketAccessLogsA61B480F' }, LogFilePrefix: 'sources/' },
      },
    });
    const policies = Object.values(t.findResources('AWS::S3::BucketPolicy') as Resources);
    const sources = policies.find((p) => p.Properties.Bucket.Ref === 'SourcesBucket2B4AE65E')!.Properties.PolicyDocument.Statement;
    expect(sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Deny', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
    // The log delivery service writes the access logs through the log bucket's policy (ACLs stay disabled).
    const logs = policies.find((p) => p.Properties.Bucket.Ref === 'SourcesBucketAccessLogsA61B480F')!.Properties.PolicyDocument.Statement;
    expect(logs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject' }),
      ]),
    );
  });
});
