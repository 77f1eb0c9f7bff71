import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PlanBook } from '#accounts/plans.ts';
import { pathsOf } from '#http/route.ts';
import { ROUTES } from '#http/routes.ts';
import { ApiStack } from '../../lib/api-stack.ts';
import { StatefulStack } from '../../lib/stateful-stack.ts';

let t: Template;

beforeAll(() => {
  // Bundling is measured by the benchmark (bundle sizes, init times); here the templates only.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stateful = new StatefulStack(app, 'test-stateful', { prefix: 'asof-test' });
  const api = new ApiStack(app, 'test-api', {
    prefix: 'asof-test',
    tables: stateful.tables,
    siteUrl: 'https://asof.test',
    baseUrl: 'https://asof.test/v1',
    memorySize: 1024,
    timeoutSeconds: 10,
    logRetention: RetentionDays.ONE_WEEK,
  });
  t = Template.fromStack(api);
});

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** Every API Gateway method as `VERB /path`, the path rebuilt from the resources' PathParts. */
function exposedMethods(): string[] {
  const resources = t.findResources('AWS::ApiGateway::Resource') as Resources;
  const pathOf = (ref: any): string => {
    if (ref?.['Fn::GetAtt']) return ''; // the API's root resource
    const r = resources[ref.Ref]!;
    return `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}`;
  };
  return Object.values(t.findResources('AWS::ApiGateway::Method') as Resources).map((m) => `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`);
}

describe('the API built from the route table', () => {
  it('exposes exactly the routes: each method of each route at /law and /statutes, nothing else', () => {
    const expected = ROUTES.flatMap((r) => pathsOf(r).flatMap((p) => r.methods.map((m) => `${m} ${p}`)));
    expect(exposedMethods().sort()).toEqual(expected.sort());
    expect(new Set(expected).size).toBe(expected.length);
    expect(exposedMethods().some((m) => m.startsWith('OPTIONS'))).toBe(false); // no CORS
  });

  it('has one function per route, each method integrated with its own route function', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const names = Object.values(functions).map((f) => f.Properties.FunctionName).filter((n) => typeof n === 'string' && n.startsWith('asof-test-'));
    expect(names.sort()).toEqual(ROUTES.map((r) => `asof-test-${r.id}`).sort());
    const logicalIdOf = (routeId: string) => Object.entries(functions).find(([, f]) => f.Properties.FunctionName === `asof-test-${routeId}`)![0];
    const methods = Object.values(t.findResources('AWS::ApiGateway::Method') as Resources);
    for (const route of ROUTES) {
      const targets = methods.filter((m) => JSON.stringify(m.Properties.Integration.Uri).includes(logicalIdOf(route.id)));
      expect(targets.length, route.id).toBe(pathsOf(route).length * route.methods.length);
    }
  });

  it('runs every route function on Node.js 22, ARM64, traced, with source maps, memory and timeout from the stage', () => {
    for (const route of ROUTES) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `asof-test-${route.id}`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Timeout: 10,
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps', ASOF_TABLE_PREFIX: 'asof-test', ASOF_BASE_URL: 'https://asof.test/v1' }) },
      });
    }
  });

  it('serves the v1 stage', () => {
    t.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1', TracingEnabled: true });
  });

  it('reshapes API Gateway refusals to the error envelope, with Retry-After on throttling', () => {
    const responses = Object.values(t.findResources('AWS::ApiGateway::GatewayResponse') as Resources).map((r) => r.Properties);
    const byType = new Map(responses.map((p) => [p.ResponseType, p]));
    expect([...byType.keys()].sort()).toEqual(['ACCESS_DENIED', 'DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'QUOTA_EXCEEDED', 'THROTTLED', 'UNAUTHORIZED', 'WAF_FILTERED']);
    expect(byType.get('THROTTLED')).toMatchObject({ StatusCode: '429', ResponseParameters: { 'gatewayresponse.header.Retry-After': "'60'" } });
    const body = JSON.parse(byType.get('THROTTLED')!.ResponseTemplates['application/json']);
    expect(body).toEqual({ error: { code: 'rate_limited', message: expect.any(String), requestId: '$context.requestId' } });
    expect(byType.get('MISSING_AUTHENTICATION_TOKEN')).toMatchObject({ StatusCode: '404' });
    expect(JSON.parse(byType.get('DEFAULT_5XX')!.ResponseTemplates['application/json']).error.code).toBe('internal_error');
  });

  it('puts a usage plan per plan tier in front of the meter, never tighter than the plan', () => {
    const plans = Object.values(t.findResources('AWS::ApiGateway::UsagePlan') as Resources).map((r) => r.Properties);
    const book = new PlanBook();
    expect(plans.map((p) => p.UsagePlanName).sort()).toEqual(book.plans.map((p) => `asof-test-${p.id}`).sort());
    for (const plan of book.plans) {
      const p = plans.find((x) => x.UsagePlanName === `asof-test-${plan.id}`)!;
      expect(p.Throttle.RateLimit * 60).toBeGreaterThanOrEqual(plan.perMinute);
      expect(p.Quota).toEqual({ Limit: plan.monthly, Period: 'MONTH' });
    }
  });

  it('grants the route functions reads of versions and keys, writes only to meters and ops', () => {
    const policies = Object.values(t.findResources('AWS::IAM::Policy') as Resources);
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string[] | string; Resource: unknown }[]);
    const writesTo = (table: string) =>
      statements.some((s) => [s.Action].flat().includes('dynamodb:PutItem') && JSON.stringify(s.Resource).includes(table));
    expect(writesTo('VersionsTable')).toBe(false);
    expect(writesTo('AccountsTable')).toBe(false);
    expect(writesTo('MetersTable')).toBe(true);
    expect(writesTo('OpsTable')).toBe(true);
  });
});
