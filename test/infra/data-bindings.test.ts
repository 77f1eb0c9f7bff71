/**
 * What a function gets when it is bound to a store of the stateful stack (Aurora through RDS Proxy, the search domain,
 * the sources bucket), and the deploy-time setup job with its trigger: environment, IAM grants, network path.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiStack } from '../../lib/api-stack.ts';
import { AsofFunction } from '../../lib/asof-function.ts';
import { SourcesBucket } from '../../lib/sources-bucket.ts';
import { StatefulStack } from '../../lib/stateful-stack.ts';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };
type Resources = Record<string, Resource>;
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

let stateful: Template;
let api: Template;
let jobs: Template;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const data = new StatefulStack(app, 'test-stateful', { prefix: 'asof-test' });
  const apiStack = new ApiStack(app, 'test-api', {
    prefix: 'asof-test',
    bindings: { ...data.tables, search: data.search, caselaw: data.caselaw },
    setup: { caselaw: data.caselaw, search: data.search },
    memorySize: 1024,
    timeoutSeconds: 10,
    logRetention: RetentionDays.ONE_WEEK,
  });
  // Functions bound after the setup job exists (as a jobs construct would be), in a stack of their own.
  const jobStack = new Stack(app, 'test-jobs');
  const job = (id: string) => new AsofFunction(jobStack, id, { entry: 'jobs/setup.ts', functionName: `asof-test-${id}` });
  const writer = new AsofFunction(jobStack, 'indexer', {
    entry: 'jobs/setup.ts',
    functionName: 'asof-test-indexer',
    network: data.search.network,
  });
  writer.bind(data.search, 'readwrite');
  job('reader').bind(data.sources, 'read');
  job('loader').bind(data.sources, 'readwrite');
  data.sources.bindFolder(job('folder-reader'), 'olrc', 'read');
  data.sources.bindFolder(job('folder-writer'), 'olrc', 'readwrite');
  stateful = Template.fromStack(data);
  api = Template.fromStack(apiStack);
  jobs = Template.fromStack(jobStack);
});

const functionNamed = (t: Template, name: string): [string, Resource] => {
  const found = Object.entries(t.findResources('AWS::Lambda::Function') as Resources).find(([, f]) => f.Properties.FunctionName === name);
  expect(found, name).toBeDefined();
  return found!;
};
const envOf = (t: Template, name: string) => functionNamed(t, name)[1].Properties.Environment.Variables as Record<string, unknown>;
const statementsOf = (t: Template, name: string): Statement[] => {
  const roleRef = functionNamed(t, name)[1].Properties.Role['Fn::GetAtt'][0];
  return Object.values(t.findResources('AWS::IAM::Policy') as Resources)
    .filter((p) => p.Properties.Roles.some((r: { Ref?: string }) => r.Ref === roleRef))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
};
const actions = (statements: Statement[], prefix: string) =>
  statements.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith(prefix));
const imported = (exportPart: string) => ({
  'Fn::ImportValue': expect.stringMatching(new RegExp(`^test-stateful:ExportsOutput.*${exportPart}`)),
});
const domainArn = { 'Fn::ImportValue': 'test-stateful:ExportsOutputFnGetAttSearchDomainDEDB155FArnE64038D5' };
const onDomain = (path: string) => ({ 'Fn::Join': ['', [domainArn, path]] });
/** What a reader of the index is granted: the paths functions/stores/opensearch/search-index.ts reads. */
const READ_STATEMENTS = [
  {
    Action: ['es:ESHttpGet', 'es:ESHttpPost'],
    Effect: 'Allow',
    Resource: [onDomain('/asof-versions/_search'), onDomain('/asof-versions/_count')],
  },
  { Action: 'es:ESHttpGet', Effect: 'Allow', Resource: onDomain('/_cluster/health/asof-versions') },
];
/** The ingress rules opened to a function's security group, as `store group export → port`. */
const ingressTo = (t: Template, fnLogicalId: string) =>
  Object.values(t.findResources('AWS::EC2::SecurityGroupIngress') as Resources)
    .map((r) => r.Properties)
    .filter((p) => JSON.stringify(p.SourceSecurityGroupId).includes(fnLogicalId))
    .map(
      (p) =>
        `${String(p.GroupId['Fn::ImportValue']).replace(/^test-stateful:ExportsOutputFnGetAtt|GroupId[0-9A-F]{8}$/g, '')} ${p.FromPort}-${p.ToPort}`,
    )
    .sort();

describe.each(['law-search', 'page-search'])('a function bound to the search domain for reading (%s)', (name) => {
  it('gets the domain address and the index, and no case-law variables', () => {
    const env = envOf(api, `asof-test-${name}`);
    expect(env.ASOF_SEARCH_URL).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::ImportValue': expect.any(String) }]] });
    expect(JSON.stringify(env.ASOF_SEARCH_URL)).toContain('DomainEndpoint');
    expect(env.ASOF_SEARCH_INDEX).toBe('asof-versions');
    expect(Object.keys(env).filter((k) => k.startsWith('ASOF_CASELAW') || k === 'ASOF_SEARCH_READ_ROLES')).toEqual([]);
  });

  it('may read the index only, on exactly the adapter’s read paths: _search, _count and the index’s cluster health, no wildcard', () => {
    const es = statementsOf(api, `asof-test-${name}`).filter((s) => actions([s], 'es:').length);
    expect(es).toEqual(READ_STATEMENTS);
  });

  it('runs in the functions’ subnets and is let in on 443 by the domain, and by nothing else', () => {
    const [id, fn] = functionNamed(api, `asof-test-${name}`);
    expect(JSON.stringify(fn.Properties.VpcConfig.SubnetIds)).toMatch(/functionsSubnet1.*functionsSubnet2/);
    expect(ingressTo(api, id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['SearchDomainSecurityGroup91949D7F 443-443']);
  });
});

describe('a function bound to the search domain for writing (an indexing job)', () => {
  it('may read as a reader does, and POST _bulk and the index’s _refresh: nothing else of the domain, no wildcard', () => {
    const es = statementsOf(jobs, 'asof-test-indexer').filter((s) => actions([s], 'es:').length);
    expect(es).toEqual([
      ...READ_STATEMENTS,
      { Action: 'es:ESHttpPost', Effect: 'Allow', Resource: [onDomain('/_bulk'), onDomain('/asof-versions/_refresh')] },
    ]);
    expect(JSON.stringify(es)).not.toContain('*');
    const [id] = functionNamed(jobs, 'asof-test-indexer');
    expect(ingressTo(jobs, id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['SearchDomainSecurityGroup91949D7F 443-443']);
  });
});

describe('route functions bound to the case-law replica', () => {
  for (const route of ['caselaw-case', 'caselaw-cited-by', 'caselaw-citations']) {
    it(`${route}: the proxy's address, port, the API user and database; an IAM login as that user on the proxy; 5432 on the proxy`, () => {
      const env = envOf(api, `asof-test-${route}`);
      expect(env).toMatchObject({
        ASOF_CASELAW_HOST: imported('CaselawDatabaseProxy.*Endpoint'),
        ASOF_CASELAW_PORT: '5432',
        ASOF_CASELAW_USER: 'asof_api',
        ASOF_CASELAW_DATABASE: 'asof',
      });
      expect(Object.keys(env).filter((k) => k.startsWith('ASOF_SEARCH') || k === 'ASOF_CASELAW_ADMIN_SECRET')).toEqual([]);
      const rds = statementsOf(api, `asof-test-${route}`).filter((s) => actions([s], 'rds').length);
      expect(rds).toEqual([
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
                { 'Fn::Select': [6, { 'Fn::Split': [':', imported('CaselawDatabaseProxy.*DBProxyArn')] }] },
                '/asof_api',
              ],
            ],
          },
        },
      ]);
      expect(actions(statementsOf(api, `asof-test-${route}`), 'secretsmanager:')).toEqual([]);
      const [id] = functionNamed(api, `asof-test-${route}`);
      expect(ingressTo(api, id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['CaselawDatabaseProxyProxySecurityGroupCBC3579D 5432-5432']);
    });
  }
});

describe('route functions bound to neither', () => {
  it('stay outside the VPC, with no search or case-law variables or grants', () => {
    for (const route of ['law-lookup', 'law-text', 'health', 'law-coverage']) {
      const [, fn] = functionNamed(api, `asof-test-${route}`);
      expect(fn.Properties.VpcConfig, route).toBeUndefined();
      expect(
        Object.keys(envOf(api, `asof-test-${route}`)).filter((k) => /^ASOF_(SEARCH|CASELAW)/.test(k)),
        route,
      ).toEqual([]);
      const granted = statementsOf(api, `asof-test-${route}`);
      expect([...actions(granted, 'es:'), ...actions(granted, 'rds-db:')], route).toEqual([]);
    }
  });
});

describe('the setup job', () => {
  it('runs as the search domain’s master role, in the functions’ subnets, with the runtime’s RDS certificate authorities', () => {
    const [, fn] = functionNamed(api, 'asof-test-setup');
    expect(fn.Properties.Role).toEqual(imported('SearchDomainAdminRole'));
    expect(JSON.stringify(fn.Properties.VpcConfig.SubnetIds)).toMatch(/functionsSubnet1.*functionsSubnet2/);
    expect(fn.Properties.Timeout).toBe(300);
    expect(envOf(api, 'asof-test-setup').NODE_EXTRA_CA_CERTS).toBe('/var/runtime/ca-cert.pem');
  });

  it('is told the admin secret, the API user and database, the domain, and the roles bound to the index by access level', () => {
    const env = envOf(api, 'asof-test-setup');
    expect(env).toMatchObject({
      ASOF_CASELAW_ADMIN_SECRET: imported('CaselawDatabaseAdminSecretAttachment'),
      ASOF_CASELAW_USER: 'asof_api',
      ASOF_CASELAW_DATABASE: 'asof',
      ASOF_SEARCH_INDEX: 'asof-versions',
    });
    // The read roles: exactly the functions bound to search for reading: the search route's, the MCP endpoint's (its
    // search tool runs that route) and the search page's.
    const [lawSearchId, lawSearch] = functionNamed(api, 'asof-test-law-search');
    const [mcpId, mcp] = functionNamed(api, 'asof-test-mcp');
    const [pageSearchId, pageSearch] = functionNamed(api, 'asof-test-page-search');
    expect(env.ASOF_SEARCH_READ_ROLES).toEqual({
      'Fn::Join': ['', ['["', lawSearch.Properties.Role, '","', mcp.Properties.Role, '","', pageSearch.Properties.Role, '"]']],
    });
    expect(lawSearchId).toMatch(/^LawApiRoutelawsearch/);
    expect(mcpId).toMatch(/^LawApiRoutemcp/);
    expect(pageSearchId).toMatch(/^PublicSitePagesearch/);
    // The write roles: the function bound for writing in another stack, after the setup job was built.
    const [, indexer] = functionNamed(jobs, 'asof-test-indexer');
    expect(JSON.stringify(env.ASOF_SEARCH_WRITE_ROLES)).toContain(JSON.stringify(indexer.Properties.Role['Fn::GetAtt'][0]).slice(1, -1));
  });

  it('may read the admin secret and call every path of the domain; its role gets the Lambda execution and VPC policies', () => {
    const adminRole = Object.entries(stateful.findResources('AWS::IAM::Role') as Resources).find(([id]) =>
      id.startsWith('SearchDomainAdminRole'),
    )!;
    expect(JSON.stringify(adminRole[1].Properties.ManagedPolicyArns)).toMatch(
      /AWSLambdaBasicExecutionRole.*AWSLambdaVPCAccessExecutionRole/,
    );
    const statements = Object.values(stateful.findResources('AWS::IAM::Policy') as Resources)
      .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === adminRole[0]))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          Effect: 'Allow',
          Resource: { Ref: expect.stringMatching(/^CaselawDatabaseAdminSecretAttachment/) },
        },
        {
          Action: ['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpDelete', 'es:ESHttpPost', 'es:ESHttpPut', 'es:ESHttpPatch'],
          Effect: 'Allow',
          Resource: [
            { 'Fn::GetAtt': ['SearchDomainDEDB155F', 'Arn'] },
            { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['SearchDomainDEDB155F', 'Arn'] }, '/*']] },
          ],
        },
      ]),
    );
    expect(actions(statements, 'rds-db:')).toEqual([]);
  });

  it('reaches Aurora itself on 5432 (not the proxy) and the domain on 443', () => {
    const [id] = functionNamed(api, 'asof-test-setup');
    expect(ingressTo(api, id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'CaselawDatabaseClusterSecurityGroup916C7137 5432-5432',
      'SearchDomainSecurityGroup91949D7F 443-443',
    ]);
  });

  it('is run by a trigger on the function’s current version (a new version on any change of code or configuration), waiting for its answer', () => {
    const triggers = Object.values(api.findResources('Custom::Trigger') as Resources);
    expect(triggers).toHaveLength(1);
    const [setupId] = functionNamed(api, 'asof-test-setup');
    expect(triggers[0]!.Properties).toMatchObject({
      InvocationType: 'RequestResponse',
      ExecuteOnHandlerChange: true,
      HandlerArn: { Ref: expect.stringMatching(/^DataSetupJobFunctionCurrentVersion/) },
    });
    expect(Number(triggers[0]!.Properties.Timeout)).toBeGreaterThan(300_000);
    const version = Object.values(api.findResources('AWS::Lambda::Version') as Resources)[0]!;
    expect(version.Properties.FunctionName).toEqual({ Ref: setupId });
  });

  it('must run as the master role: binding the domain’s setup to another function is refused', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const data = new StatefulStack(app, 'test-stateful', { prefix: 'asof-test' });
    const other = new AsofFunction(new Stack(app, 'test-other'), 'Other', {
      entry: 'jobs/setup.ts',
      functionName: 'asof-test-other',
      network: data.search.network,
    });
    expect(() => data.search.bindSetup(other)).toThrow(/master role/);
  });
});

describe('functions bound to the sources bucket', () => {
  it('get the bucket name (no cross-stack import) and a grant of named actions: list and read, or also write and delete; they need no VPC', () => {
    const bucketName = { 'Fn::Join': ['', ['asof-test-sources-', { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]] };
    for (const [name, writes] of [
      ['asof-test-reader', false],
      ['asof-test-loader', true],
    ] as const) {
      expect(envOf(jobs, name).ASOF_SOURCES_BUCKET).toEqual(bucketName);
      const s3 = actions(statementsOf(jobs, name), 's3:');
      expect(s3.sort(), name).toEqual(
        (writes
          ? ['s3:ListBucket', 's3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload']
          : ['s3:ListBucket', 's3:GetObject']
        ).sort(),
      );
      expect(functionNamed(jobs, name)[1].Properties.VpcConfig, name).toBeUndefined();
    }
  });

  it('get one folder only when given a folder: its objects to read, or to read and put (never to delete), and the bucket to list', () => {
    const bucketArn = [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':s3:::asof-test-sources-',
      { Ref: 'AWS::AccountId' },
      '-',
      { Ref: 'AWS::Region' },
    ];
    for (const [name, objectActions] of [
      ['asof-test-folder-reader', 's3:GetObject'],
      ['asof-test-folder-writer', ['s3:GetObject', 's3:PutObject']],
    ] as const) {
      const s3 = statementsOf(jobs, name).filter((st) => actions([st], 's3:').length);
      expect(s3, name).toEqual([
        { Action: 's3:ListBucket', Effect: 'Allow', Resource: { 'Fn::Join': ['', bucketArn] } },
        { Action: objectActions, Effect: 'Allow', Resource: { 'Fn::Join': ['', [...bucketArn, '/olrc/*']] } },
      ]);
      expect(envOf(jobs, name).ASOF_SOURCES_BUCKET, name).toBeDefined();
    }
  });

  it('refuses a folder name that is not one plain path segment', () => {
    const stack = new Stack(new App(), 'folder-names');
    const bucket = new SourcesBucket(stack, 'Sources', { prefix: 'asof-test' });
    const fn = new AsofFunction(stack, 'f', { entry: 'jobs/setup.ts', functionName: 'f' });
    for (const folder of ['', 'olrc/', '../x', 'OLRC', 'a*'])
      expect(() => bucket.bindFolder(fn, folder, 'read'), folder).toThrow(/sources folder/);
  });
});
