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

const logicalIdOf = (functions: Resources, name: string) => Object.entries(functions).find(([, f]) => f.Properties.FunctionName === name)![0];

/** Every API Gateway method as `VERB /path` with its properties, the path rebuilt from the resources' PathParts. */
function methodEntries(): Array<readonly [string, Record<string, any>]> {
  const resources = t.findResources('AWS::ApiGateway::Resource') as Resources;
  const pathOf = (ref: any): string => {
    if (ref?.['Fn::GetAtt']) return ''; // the API's root resource
    const r = resources[ref.Ref]!;
    return `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}`;
  };
  return Object.values(t.findResources('AWS::ApiGateway::Method') as Resources).map((m) => [`${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`, m.Properties] as const);
}

const exposedMethods = (): string[] => methodEntries().map(([key]) => key);

describe('the API built from the route table', () => {
  it('exposes exactly the routes: each method of each route at /law and /statutes, nothing else', () => {
    const expected = ROUTES.flatMap((r) => pathsOf(r).flatMap((p) => r.methods.map((m) => `${m} ${p}`)));
    expect(exposedMethods().sort()).toEqual(expected.sort());
    expect(new Set(expected).size).toBe(expected.length);
    expect(exposedMethods().some((m) => m.startsWith('OPTIONS'))).toBe(false); // no CORS
  });

  it('has one function per route and the authorizer, nothing else; each method integrated with its own route function', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const names = Object.values(functions).map((f) => f.Properties.FunctionName).filter((n) => typeof n === 'string' && n.startsWith('asof-test-'));
    expect(names.sort()).toEqual([...ROUTES.map((r) => `asof-test-${r.id}`), 'asof-test-authorizer'].sort());
    const methods = Object.values(t.findResources('AWS::ApiGateway::Method') as Resources);
    for (const route of ROUTES) {
      const targets = methods.filter((m) => JSON.stringify(m.Properties.Integration.Uri).includes(logicalIdOf(functions, `asof-test-${route.id}`)));
      expect(targets.length, route.id).toBe(pathsOf(route).length * route.methods.length);
    }
    // The authorizer is no route: no method is integrated with it.
    expect(methods.filter((m) => JSON.stringify(m.Properties.Integration.Uri).includes(logicalIdOf(functions, 'asof-test-authorizer')))).toEqual([]);
  });

  it('puts the Lambda authorizer and an API key on exactly the bearer routes, and neither on the public ones', () => {
    const [authorizerId, authorizer] = Object.entries(t.findResources('AWS::ApiGateway::Authorizer') as Resources).at(0)!;
    expect(Object.keys(t.findResources('AWS::ApiGateway::Authorizer'))).toHaveLength(1);
    expect(authorizer.Properties).toMatchObject({ Type: 'TOKEN', IdentitySource: 'method.request.header.Authorization', AuthorizerResultTtlInSeconds: 300 });
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(logicalIdOf(t.findResources('AWS::Lambda::Function') as Resources, 'asof-test-authorizer'));
    t.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });

    const methods = new Map(methodEntries());
    for (const route of ROUTES) {
      for (const path of pathsOf(route)) {
        for (const verb of route.methods) {
          const m = methods.get(`${verb} ${path}`)!;
          if (route.auth.kind === 'bearer') {
            expect(m, `${verb} ${path}`).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
          } else {
            expect(m.AuthorizationType, `${verb} ${path}`).toBe('NONE');
            expect(m.AuthorizerId, `${verb} ${path}`).toBeUndefined();
            expect(m.ApiKeyRequired ?? false, `${verb} ${path}`).toBe(false);
          }
        }
      }
    }
    expect(ROUTES.some((r) => r.auth.kind === 'public') && ROUTES.some((r) => r.auth.kind === 'bearer')).toBe(true);
  });

  it('runs the authorizer with no store: no table in its environment, no grant, small and short', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const id = logicalIdOf(functions, 'asof-test-authorizer');
    const fn = functions[id]!.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], MemorySize: 256, Timeout: 3 });
    expect(Object.keys(fn.Environment.Variables).filter((k) => k.startsWith('ASOF_'))).toEqual([]);
    const roleRef = fn.Role['Fn::GetAtt'][0];
    const policies = Object.values(t.findResources('AWS::IAM::Policy') as Resources).filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef));
    const actions = policies.flatMap((p) => p.Properties.PolicyDocument.Statement).flatMap((st: { Action: string | string[] }) => [st.Action].flat());
    expect(actions.filter((a: string) => !a.startsWith('xray:'))).toEqual([]);
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

  it('reshapes every API Gateway refusal to the error envelope: status, code, request id, JSON content type, Retry-After on 429s', () => {
    const expected: Record<string, { status: string | undefined; code: string; retryAfter?: string }> = {
      UNAUTHORIZED: { status: '401', code: 'missing_bearer' },
      ACCESS_DENIED: { status: '401', code: 'invalid_key' },
      INVALID_API_KEY: { status: '401', code: 'invalid_key' },
      THROTTLED: { status: '429', code: 'rate_limited', retryAfter: "'60'" },
      WAF_FILTERED: { status: '429', code: 'rate_limited', retryAfter: "'60'" },
      QUOTA_EXCEEDED: { status: '429', code: 'monthly_limit_exceeded', retryAfter: "'3600'" },
      MISSING_AUTHENTICATION_TOKEN: { status: '404', code: 'no_route' },
      // The defaults keep the status of the refusal they stand for.
      DEFAULT_4XX: { status: undefined, code: 'bad_request' },
      DEFAULT_5XX: { status: undefined, code: 'internal_error' },
    };
    const responses = Object.values(t.findResources('AWS::ApiGateway::GatewayResponse') as Resources).map((r) => r.Properties);
    expect(responses.map((p) => p.ResponseType).sort()).toEqual(Object.keys(expected).sort());
    for (const p of responses) {
      const want = expected[p.ResponseType]!;
      expect(p.StatusCode, p.ResponseType).toBe(want.status);
      const headers = { 'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'", ...(want.retryAfter && { 'gatewayresponse.header.Retry-After': want.retryAfter }) };
      expect(p.ResponseParameters, p.ResponseType).toEqual(headers);
      expect(Object.keys(p.ResponseTemplates), p.ResponseType).toEqual(['application/json']);
      const body = JSON.parse(p.ResponseTemplates['application/json']);
      expect(body, p.ResponseType).toEqual({ error: { code: want.code, message: expect.any(String), requestId: '$context.requestId' } });
    }
  });

  it('puts a throttle-only usage plan per plan tier on the v1 stage, never tighter than the plan, with no request quota', () => {
    const plans = Object.values(t.findResources('AWS::ApiGateway::UsagePlan') as Resources).map((r) => r.Properties);
    const [stageId] = Object.entries(t.findResources('AWS::ApiGateway::Stage') as Resources).find(([, s]) => s.Properties.StageName === 'v1')!;
    const book = new PlanBook();
    expect(plans.map((p) => p.UsagePlanName).sort()).toEqual(book.plans.map((p) => `asof-test-${p.id}`).sort());
    for (const plan of book.plans) {
      const p = plans.find((x) => x.UsagePlanName === `asof-test-${plan.id}`)!;
      // The meter admits a whole minute's ceiling at once, twice across a minute boundary: the bucket holds both.
      expect(p.Throttle.RateLimit * 60, plan.id).toBeGreaterThanOrEqual(plan.perMinute);
      expect(p.Throttle.BurstLimit, plan.id).toBeGreaterThanOrEqual(2 * plan.perMinute);
      // A quota would count the calls the meter refuses too, and lock a key out for the month after a burst of them.
      expect(p.Quota, plan.id).toBeUndefined();
      expect(p.ApiStages, plan.id).toEqual([expect.objectContaining({ Stage: { Ref: stageId } })]);
    }
  });

  it('protects the v1 stage with the edge firewall', () => {
    const [stageId] = Object.entries(t.findResources('AWS::ApiGateway::Stage') as Resources).find(([, s]) => s.Properties.StageName === 'v1')!;
    const [aclId] = Object.keys(t.findResources('AWS::WAFv2::WebACL'));
    const associations = Object.values(t.findResources('AWS::WAFv2::WebACLAssociation') as Resources).map((a) => a.Properties);
    expect(associations).toHaveLength(1);
    expect(associations[0]!.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const arn = JSON.stringify(associations[0]!.ResourceArn);
    expect(arn).toContain('/stages/');
    expect(arn).toContain(JSON.stringify({ Ref: stageId }));
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

describe('the CourtListener token of the case-law fallback', () => {
  const build = (courtListenerTokenSecret?: string) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stateful = new StatefulStack(app, 'token-stateful', { prefix: 'asof-test' });
    const api = new ApiStack(app, 'token-api', {
      prefix: 'asof-test',
      bindings: stateful.tables,
      siteUrl: 'https://asof.test',
      baseUrl: 'https://asof.test/v1',
      memorySize: 1024,
      timeoutSeconds: 10,
      logRetention: RetentionDays.ONE_WEEK,
      ...(courtListenerTokenSecret && { courtListenerTokenSecret }),
    });
    return Template.fromStack(api);
  };
  const secretReaders = (tpl: Template) => {
    const functions = tpl.findResources('AWS::Lambda::Function') as Resources;
    const policies = Object.values(tpl.findResources('AWS::IAM::Policy') as Resources);
    return Object.values(functions)
      .filter((f) => {
        const role = f.Properties.Role?.['Fn::GetAtt']?.[0];
        return policies.some(
          (p) =>
            (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role) &&
            (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).some((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue')),
        );
      })
      .map((f) => f.Properties.FunctionName);
  };

  it('is readable by the citation lookup alone, named in its environment', () => {
    const tpl = build('asof-test/courtlistener-token');

    expect(secretReaders(tpl)).toEqual(['asof-test-caselaw-citations']);
    tpl.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'asof-test-caselaw-citations',
      Environment: { Variables: Match.objectLike({ ASOF_COURTLISTENER_SECRET: 'asof-test/courtlistener-token' }) },
    });
  });

  it('is absent when the stage names no secret: no function may read a secret, the fallback answers unavailable', () => {
    const tpl = build();

    expect(secretReaders(tpl)).toEqual([]);
    const env = Object.values(tpl.findResources('AWS::Lambda::Function') as Resources).map((f) => f.Properties.Environment?.Variables ?? {});
    expect(env.some((v) => 'ASOF_COURTLISTENER_SECRET' in v)).toBe(false);
  });
});
