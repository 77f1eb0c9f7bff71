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
    bindings: stateful.tables,
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
        Environment: { Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps', ASOF_SITE_URL: 'https://asof.test', ASOF_BASE_URL: 'https://asof.test/v1' }) },
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

  it('gives each route function the tables its route declares and nothing else: keys read, meters written, versions read, ops as declared', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const policies = Object.values(t.findResources('AWS::IAM::Policy') as Resources);
    const tableOf = (resource: unknown) => ['Versions', 'Accounts', 'Meters', 'Ops'].find((n) => JSON.stringify(resource).includes(`${n}Table`));
    for (const route of ROUTES) {
      const [, fn] = Object.entries(functions).find(([, f]) => f.Properties.FunctionName === `asof-test-${route.id}`)!;
      const roleRef = fn.Properties.Role['Fn::GetAtt'][0];
      const statements = policies
        .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string[] | string; Resource: unknown }[]);
      const access = new Map<string, 'read' | 'readwrite'>();
      for (const st of statements) {
        const table = tableOf(st.Resource);
        if (!table) continue;
        const writes = [st.Action].flat().includes('dynamodb:PutItem');
        if (writes || !access.has(table)) access.set(table, writes ? 'readwrite' : 'read');
      }
      const expected = new Map<string, 'read' | 'readwrite'>([
        ['Accounts', 'read'],
        ['Meters', 'readwrite'],
      ]);
      if (route.stores.includes('versions')) expected.set('Versions', 'read');
      if (route.stores.includes('formats')) expected.set('Ops', 'read');
      if (route.stores.includes('ops')) expected.set('Ops', 'readwrite');
      expect(Object.fromEntries(access), route.id).toEqual(Object.fromEntries(expected));

      const env = fn.Properties.Environment.Variables as Record<string, unknown>;
      const tableEnv = Object.keys(env).filter((k) => /^ASOF_[A-Z]+_TABLE$/.test(k)).sort();
      expect(tableEnv, route.id).toEqual([...expected.keys()].map((n) => `ASOF_${n.toUpperCase()}_TABLE`).sort());
    }
  });

  it('gives the citation lookup the reporters-db layer, and no other function', () => {
    const functions = Object.values(t.findResources('AWS::Lambda::Function') as Resources).filter((f) => String(f.Properties.FunctionName).startsWith('asof-test-'));
    const withLayer = functions.filter((f) => f.Properties.Layers).map((f) => f.Properties.FunctionName);
    expect(withLayer).toEqual(['asof-test-caselaw-citations']);
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'asof-test-caselaw-citations',
      Environment: { Variables: Match.objectLike({ REPORTERS_DB_DIR: '/opt/reporters-db' }) },
    });
  });
});
