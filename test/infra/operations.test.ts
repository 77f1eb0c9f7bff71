/**
 * The operations of a stage (lib/operations.ts): every alarm as CloudFormation gets it (metric, namespace, dimensions,
 * statistic, period, threshold, comparison, evaluation, missing data, actions), the alarm topic, and the dashboard.
 * The parts other branches bring (jobs, Aurora + proxy, OpenSearch, WAF) are built here from the real CDK constructs.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LambdaIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Code, type IFunction, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Domain, EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import {
  AuroraPostgresEngineVersion,
  ClusterInstance,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
} from 'aws-cdk-lib/aws-rds';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, Pass, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES as ROUTE_TABLE } from '#http/routes.ts';
import { DEFAULT_ALARM_THRESHOLDS } from '../../lib/alarm-thresholds.ts';
import { ApiStack } from '../../lib/api-stack.ts';
import { Operations, type OperationsProps } from '../../lib/operations.ts';
import { countSum } from '../../lib/stage-alarms.ts';
import { StatefulStack } from '../../lib/stateful-stack.ts';

type Json = any;
type Resources = Record<string, { Type: string; Properties: Json }>;

/** One metric an alarm reads, whichever form (single metric or metric math) the alarm has. */
interface Watched {
  namespace: string;
  name: string;
  dimensions: Record<string, unknown>;
  stat: string;
  period: number;
}

interface AlarmShape {
  expression?: string;
  /** By metric-math id; `m` for a single-metric alarm. */
  metrics: Record<string, Watched>;
  threshold: number;
  comparison: string;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  treatMissingData: string;
}

// ---- the stage under test -------------------------------------------------------------------------------------

interface StageParts {
  routes: string[];
  jobs?: string[];
  queues?: string[];
  /** Jobs run as a state machine. */
  machines?: string[];
  database?: boolean;
  search?: { dataNodes: number; volumeSizeGiB: number };
  webAcl?: boolean;
  alarmEmail?: string;
  thresholds?: OperationsProps['thresholds'];
}

interface Stage {
  stack: Stack;
  t: Template;
  ops: Operations;
  api: RestApi;
  routes: Map<string, IFunction>;
  jobs: Map<string, IFunction>;
  queues: Map<string, Queue>;
  machines: Map<string, StateMachine>;
  cluster?: DatabaseCluster;
  proxy?: DatabaseProxy;
  domain?: Domain;
}

const fn = (stack: Stack, id: string) =>
  new LambdaFunction(stack, id, {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({ statusCode: 200 });'),
  });

function buildStage(id: string, parts: StageParts): Stage {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, id);
  const api = new RestApi(stack, 'Api', { restApiName: 'asof-test-api', deployOptions: { stageName: 'v1' } });
  const routes = new Map(parts.routes.map((r) => [r, fn(stack, `Route-${r}`) as IFunction]));
  for (const [r, f] of routes) api.root.addResource(r).addMethod('GET', new LambdaIntegration(f));
  const jobs = new Map((parts.jobs ?? []).map((j) => [j, fn(stack, `Job-${j}`) as IFunction]));
  const queues = new Map((parts.queues ?? []).map((q) => [q, new Queue(stack, `Dlq-${q}`)]));
  const machines = new Map(
    (parts.machines ?? []).map((m) => [
      m,
      new StateMachine(stack, `Machine-${m}`, { definitionBody: DefinitionBody.fromChainable(new Pass(stack, `Pass-${m}`)) }),
    ]),
  );
  const stage: Stage = { stack, api, routes, jobs, queues, machines } as Stage;

  let database: OperationsProps['database'];
  if (parts.database) {
    const vpc = new Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 });
    stage.cluster = new DatabaseCluster(stack, 'Db', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_7 }),
      writer: ClusterInstance.serverlessV2('Writer'),
      serverlessV2MinCapacity: 0.5,
      serverlessV2MaxCapacity: 4,
      vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
    });
    stage.proxy = stage.cluster.addProxy('Proxy', { secrets: [stage.cluster.secret!], vpc, iamAuth: true, requireTLS: true });
    database = { cluster: stage.cluster, proxy: stage.proxy };
  }
  let search: OperationsProps['search'];
  if (parts.search) {
    stage.domain = new Domain(stack, 'Search', {
      version: EngineVersion.OPENSEARCH_2_9,
      capacity: { dataNodes: parts.search.dataNodes, dataNodeInstanceType: 'r7g.large.search', multiAzWithStandbyEnabled: false },
      ebs: { volumeSize: parts.search.volumeSizeGiB },
      zoneAwareness: { enabled: parts.search.dataNodes > 1 },
    });
    search = { domain: stage.domain, ...parts.search };
  }

  stage.ops = new Operations(stack, 'Operations', {
    prefix: 'asof-test',
    apiStage: api.deploymentStage,
    routeFunctions: routes,
    ...(jobs.size && { jobFunctions: jobs }),
    ...(queues.size && { jobDeadLetterQueues: queues }),
    ...(machines.size && { jobStateMachines: machines }),
    ...(database && { database }),
    ...(search && { search }),
    ...(parts.webAcl && { webAcl: { name: 'asof-test-edge', metricName: 'asofTestEdge' } }),
    ...(parts.alarmEmail && { alarmEmail: parts.alarmEmail }),
    ...(parts.thresholds && { thresholds: parts.thresholds }),
  });
  stage.t = Template.fromStack(stack);
  return stage;
}

// ---- reading the template -------------------------------------------------------------------------------------

const dims = (list: { Name: string; Value: unknown }[] = []) => Object.fromEntries(list.map((d) => [d.Name, d.Value]));

function alarmsByName(t: Template): Map<string, Json> {
  return new Map(
    Object.values(t.findResources('AWS::CloudWatch::Alarm') as Resources).map((r) => [r.Properties.AlarmName as string, r.Properties]),
  );
}

function shape(p: Json): AlarmShape {
  const common = {
    threshold: p.Threshold,
    comparison: p.ComparisonOperator,
    evaluationPeriods: p.EvaluationPeriods,
    datapointsToAlarm: p.DatapointsToAlarm,
    treatMissingData: p.TreatMissingData,
  };
  if (!p.Metrics) {
    return {
      ...common,
      metrics: {
        m: {
          namespace: p.Namespace,
          name: p.MetricName,
          dimensions: dims(p.Dimensions),
          stat: p.Statistic ?? p.ExtendedStatistic,
          period: p.Period,
        },
      },
    };
  }
  const queries = p.Metrics as Json[];
  const returned = queries.filter((q) => q.ReturnData !== false);
  expect(returned).toHaveLength(1);
  return {
    ...common,
    expression: returned[0].Expression,
    metrics: Object.fromEntries(
      queries
        .filter((q) => q.MetricStat)
        .map((q) => [
          q.Id,
          {
            namespace: q.MetricStat.Metric.Namespace,
            name: q.MetricStat.Metric.MetricName,
            dimensions: dims(q.MetricStat.Metric.Dimensions),
            stat: q.MetricStat.Stat,
            period: q.MetricStat.Period,
          },
        ]),
    ),
  };
}

const watched = (namespace: string, name: string, dimensions: Record<string, unknown>, stat: string, period = 300): Watched => ({
  namespace,
  name,
  dimensions,
  stat,
  period,
});

/** The template's dashboard body, tokens rendered as `TOKEN[logicalId]`, parsed. */
function dashboardBody(t: Template): { widgets: Json[] } {
  const [dashboard] = Object.values(t.findResources('AWS::CloudWatch::Dashboard') as Resources);
  const body = dashboard!.Properties.DashboardBody;
  const parts: unknown[] = body['Fn::Join'] ? body['Fn::Join'][1] : [body];
  const text = parts
    .map((part: any) =>
      typeof part === 'string' ? part : `TOKEN[${part.Ref ?? part['Fn::GetAtt']?.[0] ?? JSON.stringify(part).replace(/"/g, "'")}]`,
    )
    .join('');
  return JSON.parse(text);
}

const tokenOf = (stack: Stack, value: string) => {
  const resolved = stack.resolve(value);
  return `TOKEN[${resolved.Ref ?? resolved['Fn::GetAtt']?.[0]}]`;
};

// ---- the tests ------------------------------------------------------------------------------------------------

const ROUTES = ['law-lookup', 'law-search', 'health'];
let full: Stage;
let minimal: Stage;

beforeAll(() => {
  full = buildStage('ops-full', {
    routes: ROUTES,
    jobs: ['probe', 'ingest', 'coverage'],
    queues: ['probe', 'ingest'],
    machines: ['uscode-fetch'],
    database: true,
    search: { dataNodes: 2, volumeSizeGiB: 100 },
    webAcl: true,
    alarmEmail: 'ops@asof.test',
    thresholds: { p99LatencyMs: 1500 },
  });
  minimal = buildStage('ops-minimal', { routes: ROUTES });
});

describe('the alarms of a stage with every part', () => {
  let alarms: Map<string, Json>;
  let s: Stack;
  const apiDims = () => ({ ApiName: 'asof-test-api', Stage: s.resolve(full.api.deploymentStage.stageName) });
  const fnDims = (f: IFunction) => ({ FunctionName: s.resolve(f.functionName) });
  const expectAlarm = (name: string, expected: AlarmShape) => expect(shape(alarms.get(`asof-test-${name}`)), name).toEqual(expected);

  beforeAll(() => {
    alarms = alarmsByName(full.t);
    s = full.stack;
  });

  it('has exactly the expected alarms, each named under the prefix with a description', () => {
    const expected = [
      'api-5xx-rate',
      'api-p99-latency',
      'route-throttles',
      ...ROUTES.map((r) => `route-${r}-errors`),
      'waf-blocked',
      'corpus-unhealthy',
      'corpus-probe-missing',
      'ingest-failed',
      'job-probe-failed',
      'job-coverage-failed',
      'job-uscode-fetch-failed',
      'dlq-probe',
      'dlq-ingest',
      'aurora-cpu',
      'aurora-capacity',
      'db-proxy-auth-failures',
      'db-proxy-unavailable',
      'search-red',
      'search-yellow',
      'search-writes-blocked',
      'search-free-storage',
      'search-jvm-pressure',
      'search-cpu',
      'search-nodes',
      'search-snapshot-failed',
    ].map((n) => `asof-test-${n}`);
    expect([...alarms.keys()].sort()).toEqual(expected.sort());
    for (const [name, p] of alarms) expect(String(p.AlarmDescription).length, name).toBeGreaterThan(40);
  });

  it('sends every alarm that stands alone to the topic on ALARM and on OK; the per-route members only through their composite', () => {
    const topic = s.resolve(full.ops.topic.topicArn);
    for (const [name, p] of alarms) {
      if (/route-.+-errors$/.test(name) && name !== 'asof-test-route-errors') {
        expect(p.AlarmActions, name).toBeUndefined();
        expect(p.OKActions, name).toBeUndefined();
      } else {
        expect(p.AlarmActions, name).toEqual([topic]);
        expect(p.OKActions, name).toEqual([topic]);
      }
    }
    const composites = Object.values(full.t.findResources('AWS::CloudWatch::CompositeAlarm') as Resources).map((r) => r.Properties);
    expect(composites).toHaveLength(1);
    const [composite] = composites;
    expect(composite.AlarmName).toBe('asof-test-route-errors');
    expect(composite.AlarmActions).toEqual([topic]);
    expect(composite.OKActions).toEqual([topic]);
    const rule = JSON.stringify(composite.AlarmRule);
    for (const route of ROUTES) expect(rule).toContain(`OperationsApiAlarmsRouteErrors${route.replace(/-/g, '')}`);
    expect(rule.match(/ALARM\(/g)).toHaveLength(ROUTES.length);
    expect(rule).not.toContain(' AND ');
  });

  it('API 5xx rate: 5XXError / Count over the stage, above 1 % in 5 minutes, judged only from 50 requests up', () => {
    expectAlarm('api-5xx-rate', {
      expression: 'IF(requests >= 50, 100 * errors / requests, 0)',
      metrics: {
        errors: watched('AWS/ApiGateway', '5XXError', apiDims(), 'Sum'),
        requests: watched('AWS/ApiGateway', 'Count', apiDims(), 'Sum'),
      },
      threshold: 1,
      comparison: 'GreaterThanThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it('API p99 latency: above the stage threshold (1,500 ms here) over 5 minutes, judged only from 50 requests up', () => {
    expectAlarm('api-p99-latency', {
      expression: 'IF(requests >= 50, latency, 0)',
      metrics: {
        latency: watched('AWS/ApiGateway', 'Latency', apiDims(), 'p99'),
        requests: watched('AWS/ApiGateway', 'Count', apiDims(), 'Sum'),
      },
      threshold: 1500,
      comparison: 'GreaterThanThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it("throttles: the route functions' Lambda Throttles summed, above 0", () => {
    const routes = [...full.routes.values()];
    expectAlarm('route-throttles', {
      expression: 'FILL(t0, 0) + FILL(t1, 0) + FILL(t2, 0)',
      metrics: Object.fromEntries(routes.map((f, i) => [`t${i}`, watched('AWS/Lambda', 'Throttles', fnDims(f), 'Sum')])),
      threshold: 0,
      comparison: 'GreaterThanThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it("per route: its function's Errors plus its own ServerError count (dimensions service + route), 5 or more in 5 minutes", () => {
    for (const [route, f] of full.routes) {
      expectAlarm(`route-${route}-errors`, {
        expression: 'FILL(errors, 0) + FILL(serverErrors, 0)',
        metrics: {
          errors: watched('AWS/Lambda', 'Errors', fnDims(f), 'Sum'),
          serverErrors: watched('asof', 'ServerError', { service: 'asof', route }, 'Sum'),
        },
        threshold: 5,
        comparison: 'GreaterThanOrEqualToThreshold',
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        treatMissingData: 'notBreaching',
      });
    }
  });

  it("WAF: the web ACL's BlockedRequests (all rules, this region) above 300 in 5 minutes", () => {
    expectAlarm('waf-blocked', {
      metrics: {
        m: watched('AWS/WAFV2', 'BlockedRequests', { WebACL: 'asofTestEdge', Rule: 'ALL', Region: { Ref: 'AWS::Region' } }, 'Sum'),
      },
      threshold: 300,
      comparison: 'GreaterThanThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it('corpus probe unhealthy: CorpusHealthy below 1 on two probes in a row', () => {
    expectAlarm('corpus-unhealthy', {
      metrics: { m: watched('asof', 'CorpusHealthy', { service: 'asof', job: 'probe' }, 'Maximum') },
      threshold: 1,
      comparison: 'LessThanThreshold',
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      treatMissingData: 'notBreaching',
    });
  });

  it('corpus probe unknown: no CorpusHealthy datapoint for 15 minutes, missing data breaching', () => {
    expectAlarm('corpus-probe-missing', {
      metrics: { m: watched('asof', 'CorpusHealthy', { service: 'asof', job: 'probe' }, 'SampleCount') },
      threshold: 1,
      comparison: 'LessThanThreshold',
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      treatMissingData: 'breaching',
    });
  });

  it("ingest: IngestFailed or the ingest function's Errors, 1 or more", () => {
    expectAlarm('ingest-failed', {
      expression: 'FILL(ingestFailed, 0) + FILL(errors, 0)',
      metrics: {
        ingestFailed: watched('asof', 'IngestFailed', { service: 'asof', job: 'ingest' }, 'Sum'),
        errors: watched('AWS/Lambda', 'Errors', fnDims(full.jobs.get('ingest')!), 'Sum'),
      },
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it("every other job: its JobFailed or its function's Errors, 1 or more (the ingest is not counted twice)", () => {
    for (const job of ['probe', 'coverage']) {
      expectAlarm(`job-${job}-failed`, {
        expression: 'FILL(jobFailed, 0) + FILL(errors, 0)',
        metrics: {
          jobFailed: watched('asof', 'JobFailed', { service: 'asof', job }, 'Sum'),
          errors: watched('AWS/Lambda', 'Errors', fnDims(full.jobs.get(job)!), 'Sum'),
        },
        threshold: 1,
        comparison: 'GreaterThanOrEqualToThreshold',
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        treatMissingData: 'notBreaching',
      });
    }
    expect(alarms.has('asof-test-job-ingest-failed')).toBe(false);
  });

  it('a job run as a state machine: its failed or timed-out runs, 1 or more', () => {
    const machineDims = { StateMachineArn: s.resolve(full.machines.get('uscode-fetch')!.stateMachineArn) };
    expectAlarm('job-uscode-fetch-failed', {
      expression: 'FILL(failed, 0) + FILL(timedOut, 0)',
      metrics: {
        failed: watched('AWS/States', 'ExecutionsFailed', machineDims, 'Sum'),
        timedOut: watched('AWS/States', 'ExecutionsTimedOut', machineDims, 'Sum'),
      },
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
  });

  it('dead-letter queues: a visible message in any of them', () => {
    for (const [name, queue] of full.queues) {
      expectAlarm(`dlq-${name}`, {
        metrics: { m: watched('AWS/SQS', 'ApproximateNumberOfMessagesVisible', { QueueName: s.resolve(queue.queueName) }, 'Maximum') },
        threshold: 1,
        comparison: 'GreaterThanOrEqualToThreshold',
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        treatMissingData: 'notBreaching',
      });
    }
  });

  it('Aurora: CPU and Serverless v2 capacity (ACUUtilization) sustained 15 minutes; proxy authentication failures', () => {
    const cluster = { DBClusterIdentifier: s.resolve(full.cluster!.clusterIdentifier) };
    const sustained = {
      threshold: 0,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      treatMissingData: 'notBreaching',
    };
    expectAlarm('aurora-cpu', { ...sustained, metrics: { m: watched('AWS/RDS', 'CPUUtilization', cluster, 'Average') }, threshold: 80 });
    expectAlarm('aurora-capacity', {
      ...sustained,
      metrics: { m: watched('AWS/RDS', 'ACUUtilization', cluster, 'Average') },
      threshold: 90,
    });
    expectAlarm('db-proxy-auth-failures', {
      metrics: { m: watched('AWS/RDS', 'ClientConnectionsSetupFailedAuth', { ProxyName: s.resolve(full.proxy!.dbProxyName) }, 'Sum') },
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData: 'notBreaching',
    });
    expectAlarm('db-proxy-unavailable', {
      metrics: {
        m: watched(
          'AWS/RDS',
          'AvailabilityPercentage',
          { ProxyName: s.resolve(full.proxy!.dbProxyName), TargetGroup: 'default', TargetRole: 'READ_WRITE' },
          'Average',
          60,
        ),
      },
      threshold: 90,
      comparison: 'LessThanThreshold',
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      treatMissingData: 'notBreaching',
    });
  });

  it("OpenSearch: AWS's recommended alarms with their statistics, periods and thresholds", () => {
    const domain = { DomainName: s.resolve(full.domain!.domainName), ClientId: s.resolve(s.account) };
    const es = (name: string, stat: string, period: number) => ({ m: watched('AWS/ES', name, domain, stat, period) });
    const once = { evaluationPeriods: 1, datapointsToAlarm: 1, treatMissingData: 'notBreaching' };
    expectAlarm('search-red', {
      ...once,
      metrics: es('ClusterStatus.red', 'Maximum', 60),
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
    });
    expectAlarm('search-yellow', {
      ...once,
      metrics: es('ClusterStatus.yellow', 'Maximum', 60),
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
    });
    expectAlarm('search-writes-blocked', {
      ...once,
      metrics: es('ClusterIndexWritesBlocked', 'Maximum', 300),
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
    });
    // 25 % of a 100 GiB volume, in MiB.
    expectAlarm('search-free-storage', {
      ...once,
      metrics: es('FreeStorageSpace', 'Minimum', 60),
      threshold: 25_600,
      comparison: 'LessThanOrEqualToThreshold',
    });
    expectAlarm('search-jvm-pressure', {
      ...once,
      metrics: es('JVMMemoryPressure', 'Maximum', 60),
      threshold: 95,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
    });
    expectAlarm('search-cpu', {
      ...once,
      metrics: es('CPUUtilization', 'Maximum', 900),
      threshold: 80,
      comparison: 'GreaterThanOrEqualToThreshold',
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
    });
    expectAlarm('search-nodes', { ...once, metrics: es('Nodes', 'Minimum', 86_400), threshold: 2, comparison: 'LessThanThreshold' });
    expectAlarm('search-snapshot-failed', {
      ...once,
      metrics: es('AutomatedSnapshotFailure', 'Maximum', 60),
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('the alarm topic', () => {
  it('is encrypted with a key of its own that CloudWatch may use (the AWS-managed SNS key would refuse it)', () => {
    const [topic] = Object.values(full.t.findResources('AWS::SNS::Topic') as Resources);
    expect(topic!.Properties.TopicName).toBe('asof-test-alarms');
    const keyId = topic!.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const key = (full.t.findResources('AWS::KMS::Key') as Resources)[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Resource: '*',
    });
  });

  it("refuses publishing without TLS and lets only this stage's alarms of this account publish", () => {
    const [policy] = Object.values(full.t.findResources('AWS::SNS::TopicPolicy') as Resources);
    const statements = policy!.Properties.PolicyDocument.Statement as Json[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allow = statements.filter((st) => st.Effect === 'Allow');
    expect(allow).toHaveLength(1);
    expect(allow[0]).toMatchObject({
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
    expect(JSON.stringify(allow[0].Condition.ArnLike['aws:SourceArn'])).toContain(':alarm:asof-test-*');
  });

  it('has an e-mail subscription when the stage names an address, and none otherwise', () => {
    full.t.resourceCountIs('AWS::SNS::Subscription', 1);
    full.t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@asof.test',
      TopicArn: full.stack.resolve(full.ops.topic.topicArn),
    });
    minimal.t.resourceCountIs('AWS::SNS::Subscription', 0);
    minimal.t.resourceCountIs('AWS::SNS::Topic', 1);
  });
});

describe('a stage without the optional parts', () => {
  it('has only the API and route alarms: no job, probe, ingest, queue, database, search or WAF alarm', () => {
    const names = [...alarmsByName(minimal.t).keys()].sort();
    expect(names).toEqual(
      ['api-5xx-rate', 'api-p99-latency', 'route-throttles', ...ROUTES.map((r) => `route-${r}-errors`)].map((n) => `asof-test-${n}`).sort(),
    );
    minimal.t.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 1);
  });

  it('uses the default thresholds', () => {
    const latency = alarmsByName(minimal.t).get('asof-test-api-p99-latency');
    expect(latency.Threshold).toBe(DEFAULT_ALARM_THRESHOLDS.p99LatencyMs);
    expect(latency.Metrics[0].Expression).toBe(`IF(requests >= ${DEFAULT_ALARM_THRESHOLDS.minRequests}, latency, 0)`);
  });

  it('has a dashboard without widgets for the parts it lacks', () => {
    const text = JSON.stringify(dashboardBody(minimal.t));
    for (const namespace of ['AWS/RDS', 'AWS/ES', 'AWS/WAFV2', 'AWS/SQS', 'AWS/States', 'JobFailed', 'CorpusHealthy'])
      expect(text, namespace).not.toContain(namespace);
  });
});

describe('edge cases of the alarm set', () => {
  let big: Stage;
  beforeAll(() => {
    big = buildStage('ops-big', {
      routes: Array.from({ length: 12 }, (_, i) => `route-${i}`),
      jobs: ['coverage'],
      search: { dataNodes: 1, volumeSizeGiB: 10 },
    });
  });

  it('splits the throttle sum into alarms of at most 10 functions that together cover each route function once', () => {
    const alarms = alarmsByName(big.t);
    const groups = ['asof-test-route-throttles-1', 'asof-test-route-throttles-2'].map((n) => shape(alarms.get(n)));
    expect(groups.map((g) => Object.keys(g.metrics).length)).toEqual([10, 2]);
    const covered = groups.flatMap((g) => Object.values(g.metrics).map((m) => JSON.stringify(m.dimensions.FunctionName)));
    const expected = [...big.routes.values()].map((f) => JSON.stringify(big.stack.resolve(f.functionName)));
    expect(covered.sort()).toEqual(expected.sort());
    expect(alarms.has('asof-test-route-throttles')).toBe(false);
  });

  it('has no yellow alarm on a single search node (its replica can never be placed) and scales the storage threshold to its volume', () => {
    const alarms = alarmsByName(big.t);
    expect(alarms.has('asof-test-search-yellow')).toBe(false);
    expect(alarms.get('asof-test-search-red')).toBeDefined();
    expect(alarms.get('asof-test-search-free-storage').Threshold).toBe(2560);
    expect(alarms.get('asof-test-search-nodes').Threshold).toBe(1);
  });

  it('has no probe or ingest alarm when those jobs are not deployed, only the failures of the jobs that are', () => {
    const names = [...alarmsByName(big.t).keys()];
    expect(names).toContain('asof-test-job-coverage-failed');
    for (const absent of ['corpus-unhealthy', 'corpus-probe-missing', 'ingest-failed']) expect(names).not.toContain(`asof-test-${absent}`);
  });

  it('refuses a metric sum an alarm cannot hold (more than 10 metrics, or none)', () => {
    const stack = new Stack();
    const f = fn(stack, 'F');
    const metrics = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, f.metricErrors()]));
    expect(() => countSum(metrics(11), 'too many')).toThrow(/11 metrics/);
    expect(() => countSum(metrics(0), 'none')).toThrow(/0 metrics/);
    expect(countSum(metrics(10), 'ten').expression).toContain('FILL(m9, 0)');
  });
});

describe('the dashboard', () => {
  let widgets: Json[];
  beforeAll(() => {
    widgets = dashboardBody(full.t).widgets;
  });

  it('is named after the stage', () => {
    full.t.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'asof-test' });
    full.t.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('opens with the state of every alarm of the stage', () => {
    const status = widgets[0];
    expect(status.type).toBe('alarm');
    const shown = (status.properties.alarms as string[]).sort();
    const alarmIds = [
      ...Object.keys(full.t.findResources('AWS::CloudWatch::Alarm')),
      ...Object.keys(full.t.findResources('AWS::CloudWatch::CompositeAlarm')),
    ].map((id) => `TOKEN[${id}]`);
    expect(shown).toEqual(alarmIds.sort());
  });

  it("graphs each route function (duration, errors, throttles, concurrency) and each route's answers", () => {
    const titled = (title: string) => widgets.filter((w) => w.properties?.title === title);
    for (const title of ['Duration p99 (ms)', 'Errors', 'Throttles', 'Concurrent executions']) {
      const [routeGraph] = titled(title); // the route functions' row comes before the jobs'
      const text = JSON.stringify(routeGraph.properties.metrics);
      for (const f of full.routes.values()) expect(text, title).toContain(tokenOf(full.stack, f.functionName));
    }
    for (const title of ['Success per route', 'ClientError per route', 'ServerError per route']) {
      const lines = titled(title)[0].properties.metrics as Json[];
      expect(lines.map((l) => l[l.indexOf('route') + 1]).sort(), title).toEqual([...ROUTES].sort());
    }
  });

  it('graphs the API (requests, 4xx/5xx, latency p50/p90/p99), the jobs, the probe, the WAF and the stores', () => {
    const text = JSON.stringify(widgets);
    for (const part of ['"Count"', '"4XXError"', '"5XXError"', '"p50"', '"p90"', '"p99"', '"IntegrationLatency"'])
      expect(text, part).toContain(part);
    for (const part of ['"JobSucceeded"', '"JobFailed"', '"CorpusHealthy"', '"IngestFailed"', '"ApproximateNumberOfMessagesVisible"'])
      expect(text, part).toContain(part);
    for (const part of [
      '"uscode-fetch runs"',
      '"ExecutionsStarted"',
      '"ExecutionsSucceeded"',
      '"ExecutionsFailed"',
      '"ExecutionsTimedOut"',
    ])
      expect(text, part).toContain(part);
    for (const part of [
      '"AWS/WAFV2"',
      '"AllowedRequests"',
      '"BlockedRequests"',
      '"ACUUtilization"',
      '"ClientConnectionsSetupFailedAuth"',
      '"ClusterStatus.red"',
      '"JVMMemoryPressure"',
    ]) {
      expect(text, part).toContain(part);
    }
    for (const f of full.jobs.values()) expect(text).toContain(tokenOf(full.stack, f.functionName));
  });
});

describe('composed into the API stack', () => {
  it("watches every route function of the route table, with the stage's e-mail and thresholds", () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stateful = new StatefulStack(app, 'compose-stateful', { prefix: 'asof-test' });

    // Act
    const api = new ApiStack(app, 'compose-api', {
      prefix: 'asof-test',
      bindings: stateful.tables,
      memorySize: 1024,
      timeoutSeconds: 10,
      logRetention: RetentionDays.ONE_WEEK,
      alarmEmail: 'ops@asof.test',
      alarmThresholds: { p99LatencyMs: 2000 },
    });

    // Assess
    const t = Template.fromStack(api);
    const alarms = alarmsByName(t);
    for (const route of ROUTE_TABLE) {
      const errors = shape(alarms.get(`asof-test-route-${route.id}-errors`));
      expect(errors.metrics.errors!.dimensions.FunctionName, route.id).toEqual(
        api.resolve(api.lawApi.functions.get(route.id)!.fn.functionName),
      );
    }
    expect(alarms.get('asof-test-api-p99-latency').Threshold).toBe(2000);
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@asof.test' });
    const body = JSON.stringify(dashboardBody(t));
    for (const f of api.lawApi.functions.values()) expect(body).toContain(tokenOf(api, f.fn.functionName));
  });
});
