import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PlanBook } from '#accounts/plans.ts';
import { PAGE_HEADERS } from '#http/pages/html.ts';
import type { Page } from '#http/pages/page.ts';
import { PAGES } from '#http/pages/site-pages.ts';
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
    memorySize: 1024,
    timeoutSeconds: 10,
    logRetention: RetentionDays.ONE_WEEK,
  });
  t = Template.fromStack(api);
});

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** What the stack writes for an API's address on API Gateway's own domain. */
const executeApiUrl = (apiName: string, stage: string) => ({
  'Fn::Join': [
    '',
    ['https://', { Ref: restApiId(t, apiName) }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, `/${stage}`],
  ],
});

const logicalIdOf = (functions: Resources, name: string) =>
  Object.entries(functions).find(([, f]) => f.Properties.FunctionName === name)![0];

/** The logical id of the REST API of that name. */
const restApiId = (tpl: Template, name: string) =>
  Object.entries(tpl.findResources('AWS::ApiGateway::RestApi') as Resources).find(([, a]) => a.Properties.Name === name)![0];

/** Every API Gateway method of one REST API as `VERB /path` with its properties, the path rebuilt from the resources' PathParts. */
function methodEntries(apiName = 'asof-test-api', tpl: Template = t): Array<readonly [string, Record<string, any>]> {
  const resources = tpl.findResources('AWS::ApiGateway::Resource') as Resources;
  const pathOf = (ref: any): string => {
    if (ref?.['Fn::GetAtt']) return ''; // the API's root resource
    const r = resources[ref.Ref]!;
    return `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}`;
  };
  const api = restApiId(tpl, apiName);
  return Object.values(tpl.findResources('AWS::ApiGateway::Method') as Resources)
    .filter((m) => m.Properties.RestApiId.Ref === api)
    .map((m) => [`${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId)}`, m.Properties] as const);
}

const exposedMethods = (apiName?: string): string[] => methodEntries(apiName).map(([key]) => key);

describe('the API built from the route table', () => {
  it('exposes exactly the routes: each method of each route at /law and /statutes, nothing else', () => {
    const expected = ROUTES.flatMap((r) => pathsOf(r).flatMap((p) => r.methods.map((m) => `${m} ${p}`)));
    expect(exposedMethods().sort()).toEqual(expected.sort());
    expect(new Set(expected).size).toBe(expected.length);
    expect(exposedMethods().some((m) => m.startsWith('OPTIONS'))).toBe(false); // no CORS
  });

  it("is the stack's only APIs with the public site: two REST APIs, every method of the stack on one of them", () => {
    expect(
      Object.values(t.findResources('AWS::ApiGateway::RestApi') as Resources)
        .map((a) => a.Properties.Name)
        .sort(),
    ).toEqual(['asof-test-api', 'asof-test-site']);
    expect(exposedMethods().length + exposedMethods('asof-test-site').length).toBe(
      Object.keys(t.findResources('AWS::ApiGateway::Method')).length,
    );
  });

  it('has one function per route and the authorizer (and one per site page), nothing else; each method integrated with its own route function', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const names = Object.values(functions)
      .map((f) => f.Properties.FunctionName)
      .filter((n) => typeof n === 'string' && n.startsWith('asof-test-'));
    expect(names.sort()).toEqual(
      [...ROUTES.map((r) => `asof-test-${r.id}`), 'asof-test-authorizer', ...PAGES.map((p) => `asof-test-page-${p.id}`)].sort(),
    );
    const methods = methodEntries().map(([, m]) => m);
    for (const route of ROUTES) {
      const targets = methods.filter((m) => JSON.stringify(m.Integration.Uri).includes(logicalIdOf(functions, `asof-test-${route.id}`)));
      expect(targets.length, route.id).toBe(pathsOf(route).length * route.methods.length);
    }
    // The authorizer is no route: no method is integrated with it.
    expect(methods.filter((m) => JSON.stringify(m.Integration.Uri).includes(logicalIdOf(functions, 'asof-test-authorizer')))).toEqual([]);
  });

  it('puts the Lambda authorizer and an API key on exactly the bearer routes, and neither on the public ones', () => {
    const [authorizerId, authorizer] = Object.entries(t.findResources('AWS::ApiGateway::Authorizer') as Resources).at(0)!;
    expect(Object.keys(t.findResources('AWS::ApiGateway::Authorizer'))).toHaveLength(1);
    expect(authorizer.Properties).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
      logicalIdOf(t.findResources('AWS::Lambda::Function') as Resources, 'asof-test-authorizer'),
    );
    t.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });

    const methods = new Map(methodEntries());
    for (const route of ROUTES) {
      for (const path of pathsOf(route)) {
        for (const verb of route.methods) {
          const m = methods.get(`${verb} ${path}`)!;
          if (route.auth.kind === 'bearer') {
            expect(m, `${verb} ${path}`).toMatchObject({
              AuthorizationType: 'CUSTOM',
              AuthorizerId: { Ref: authorizerId },
              ApiKeyRequired: true,
            });
          } else {
            expect(m.AuthorizationType, `${verb} ${path}`).toBe('NONE');
            expect(m.AuthorizerId, `${verb} ${path}`).toBeUndefined();
            expect(m.ApiKeyRequired ?? false, `${verb} ${path}`).toBe(false);
          }
        }
      }
    }
    expect(ROUTES.some((r) => r.auth.kind === 'public') && ROUTES.some((r) => r.auth.kind === 'bearer')).toBe(true);
    // The MCP endpoint is such a route: POST /mcp alone (no event stream to GET), behind the authorizer and an API key,
    // so its calls are throttled by the key's usage plan like every other; each tool call is metered in the function.
    expect([...methods.keys()].filter((k) => k.endsWith('/mcp'))).toEqual(['POST /mcp']);
    expect(methods.get('POST /mcp')).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true });
    expect(JSON.stringify(methods.get('POST /mcp')!.Integration.Uri)).toContain(
      logicalIdOf(t.findResources('AWS::Lambda::Function') as Resources, 'asof-test-mcp'),
    );
  });

  it('runs the authorizer with no store: no table in its environment, no grant, small and short', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const id = logicalIdOf(functions, 'asof-test-authorizer');
    const fn = functions[id]!.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], MemorySize: 256, Timeout: 3 });
    expect(Object.keys(fn.Environment.Variables).filter((k) => k.startsWith('ASOF_'))).toEqual([]);
    const roleRef = fn.Role['Fn::GetAtt'][0];
    const policies = Object.values(t.findResources('AWS::IAM::Policy') as Resources).filter((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef),
    );
    const actions = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .flatMap((st: { Action: string | string[] }) => [st.Action].flat());
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
        Environment: {
          Variables: Match.objectLike({
            NODE_OPTIONS: '--enable-source-maps',
            ASOF_SITE_URL: executeApiUrl('asof-test-site', 'site'),
            ASOF_BASE_URL: executeApiUrl('asof-test-api', 'v1'),
          }),
        },
      });
    }
  });

  it('serves the v1 stage', () => {
    t.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1', TracingEnabled: true });
  });

  it('reshapes every API Gateway refusal to the error envelope: status, code, request id, JSON content type, nosniff, Retry-After on 429s and 5xx', () => {
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
      DEFAULT_5XX: { status: undefined, code: 'internal_error', retryAfter: "'30'" },
    };
    const api = restApiId(t, 'asof-test-api');
    const responses = Object.values(t.findResources('AWS::ApiGateway::GatewayResponse') as Resources)
      .map((r) => r.Properties)
      .filter((p) => p.RestApiId.Ref === api);
    expect(responses.map((p) => p.ResponseType).sort()).toEqual(Object.keys(expected).sort());
    for (const p of responses) {
      const want = expected[p.ResponseType]!;
      expect(p.StatusCode, p.ResponseType).toBe(want.status);
      const headers = {
        'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
        ...(want.retryAfter && { 'gatewayresponse.header.Retry-After': want.retryAfter }),
      };
      expect(p.ResponseParameters, p.ResponseType).toEqual(headers);
      expect(Object.keys(p.ResponseTemplates), p.ResponseType).toEqual(['application/json']);
      const body = JSON.parse(p.ResponseTemplates['application/json']);
      expect(body, p.ResponseType).toEqual({ error: { code: want.code, message: expect.any(String), requestId: '$context.requestId' } });
    }
  });

  it('puts a throttle-only usage plan per plan tier on the v1 stage, never tighter than the plan, with no request quota', () => {
    const plans = Object.values(t.findResources('AWS::ApiGateway::UsagePlan') as Resources).map((r) => r.Properties);
    const [stageId] = Object.entries(t.findResources('AWS::ApiGateway::Stage') as Resources).find(
      ([, s]) => s.Properties.StageName === 'v1',
    )!;
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

  it("protects the v1 stage and the site's stage with the edge firewall, and nothing else", () => {
    const stageIds = Object.entries(t.findResources('AWS::ApiGateway::Stage') as Resources).map(
      ([id, s]) => [s.Properties.StageName, id] as const,
    );
    expect(stageIds.map(([name]) => name).sort()).toEqual(['site', 'v1']);
    const [aclId] = Object.keys(t.findResources('AWS::WAFv2::WebACL'));
    const associations = Object.values(t.findResources('AWS::WAFv2::WebACLAssociation') as Resources).map((a) => a.Properties);
    expect(associations).toHaveLength(2);
    for (const [name, stageId] of stageIds) {
      const association = associations.find((a) => JSON.stringify(a.ResourceArn).includes(JSON.stringify({ Ref: stageId })));
      expect(association, name).toBeDefined();
      expect(association!.WebACLArn, name).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
      expect(JSON.stringify(association!.ResourceArn), name).toContain('/stages/');
    }
  });

  it('gives each route function the tables its route declares and nothing else: keys read, meters written, versions read, ops as declared', () => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const policies = Object.values(t.findResources('AWS::IAM::Policy') as Resources);
    const tableOf = (resource: unknown) =>
      ['Versions', 'Accounts', 'Meters', 'Ops'].find((n) => JSON.stringify(resource).includes(`${n}Table`));
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
      const tableEnv = Object.keys(env)
        .filter((k) => /^ASOF_[A-Z]+_TABLE$/.test(k))
        .sort();
      expect(tableEnv, route.id).toEqual([...expected.keys()].map((n) => `ASOF_${n.toUpperCase()}_TABLE`).sort());
    }
  });

  it('gives the citation lookup and the MCP endpoint (whose citation tool runs it) the reporters-db layer, the docs pages the docs layer, and no other function', () => {
    const functions = Object.values(t.findResources('AWS::Lambda::Function') as Resources).filter((f) =>
      String(f.Properties.FunctionName).startsWith('asof-test-'),
    );
    const withLayer = functions.filter((f) => f.Properties.Layers).map((f) => f.Properties.FunctionName);
    expect(withLayer.sort()).toEqual(['asof-test-caselaw-citations', 'asof-test-mcp', 'asof-test-page-docs', 'asof-test-page-docs-asset']);
    for (const name of ['asof-test-caselaw-citations', 'asof-test-mcp']) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: name,
        Environment: { Variables: Match.objectLike({ REPORTERS_DB_DIR: '/opt/reporters-db' }) },
      });
    }
    for (const name of ['asof-test-page-docs', 'asof-test-page-docs-asset']) {
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: name,
        Environment: { Variables: Match.objectLike({ ASOF_DOCS_DIR: '/opt/docs' }) },
      });
    }
  });
});

describe('the CourtListener token of the case-law fallback', () => {
  const build = (courtListenerTokenSecret?: string) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stateful = new StatefulStack(app, 'token-stateful', { prefix: 'asof-test' });
    const api = new ApiStack(app, 'token-api', {
      prefix: 'asof-test',
      bindings: stateful.tables,
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
            (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).some((s) =>
              [s.Action].flat().includes('secretsmanager:GetSecretValue'),
            ),
        );
      })
      .map((f) => f.Properties.FunctionName);
  };

  it('is readable by the citation lookup and the MCP endpoint (its citation tool) alone, named in their environment', () => {
    const tpl = build('asof-test/courtlistener-token');

    expect(secretReaders(tpl).sort()).toEqual(['asof-test-caselaw-citations', 'asof-test-mcp']);
    for (const name of ['asof-test-caselaw-citations', 'asof-test-mcp']) {
      tpl.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: name,
        Environment: { Variables: Match.objectLike({ ASOF_COURTLISTENER_SECRET: 'asof-test/courtlistener-token' }) },
      });
    }
  });

  it('is absent when the stage names no secret: no function may read a secret, the fallback answers unavailable', () => {
    const tpl = build();

    expect(secretReaders(tpl)).toEqual([]);
    const env = Object.values(tpl.findResources('AWS::Lambda::Function') as Resources).map(
      (f) => f.Properties.Environment?.Variables ?? {},
    );
    expect(env.some((v) => 'ASOF_COURTLISTENER_SECRET' in v)).toBe(false);
  });
});

describe('the public site (permalink pages)', () => {
  const siteFunction = (pageId = 'permalink') => {
    const functions = t.findResources('AWS::Lambda::Function') as Resources;
    const id = logicalIdOf(functions, `asof-test-page-${pageId}`);
    return { id, fn: functions[id]!.Properties };
  };

  it("exposes exactly one public GET per page, integrated with that page's function: no authorizer, no key", () => {
    const methods = new Map(methodEntries('asof-test-site'));
    // The site's root resource has the path '' here.
    const keyOf = (p: Page) => `GET ${p.path === '/' ? '' : p.path}`;
    expect([...methods.keys()].sort()).toEqual(PAGES.map(keyOf).sort());
    for (const page of PAGES) {
      const m = methods.get(keyOf(page))!;
      expect(m.AuthorizationType, page.id).toBe('NONE');
      expect(m.ApiKeyRequired ?? false, page.id).toBe(false);
      expect(JSON.stringify(m.Integration.Uri), page.id).toContain(siteFunction(page.id).id);
    }
  });

  /** The tables each page's function may read (and write: coverage's cache in the ops table), by what it declares. */
  const TABLES: Record<string, { env: string; table: string; write: boolean }[]> = {
    permalink: [{ env: 'ASOF_VERSIONS_TABLE', table: 'VersionsTable', write: false }],
    home: [
      { env: 'ASOF_VERSIONS_TABLE', table: 'VersionsTable', write: false },
      { env: 'ASOF_OPS_TABLE', table: 'OpsTable', write: true },
    ],
    search: [
      { env: 'ASOF_VERSIONS_TABLE', table: 'VersionsTable', write: false },
      { env: 'ASOF_OPS_TABLE', table: 'OpsTable', write: true },
    ],
    cite: [],
    favicon: [],
    docs: [],
    'docs-asset': [],
  };

  it('runs each page on Node.js 22, ARM64, traced, reading the tables its page declares and nothing else', () => {
    expect(Object.keys(TABLES).sort()).toEqual(PAGES.map((p) => p.id).sort());
    for (const page of PAGES) {
      const { fn } = siteFunction(page.id);
      const tables = TABLES[page.id]!;
      expect(fn, page.id).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        TracingConfig: { Mode: 'Active' },
      });
      expect(
        Object.keys(fn.Environment.Variables)
          .filter((k) => k.endsWith('_TABLE'))
          .sort(),
        page.id,
      ).toEqual(tables.map((x) => x.env).sort());
      expect(fn.Environment.Variables, page.id).toMatchObject({ ASOF_SITE_URL: expect.anything(), ASOF_BASE_URL: expect.anything() });
      const roleRef = fn.Role['Fn::GetAtt'][0];
      const statements = Object.values(t.findResources('AWS::IAM::Policy') as Resources)
        .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
      const dynamo = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('dynamodb:')));
      expect(dynamo.length > 0, page.id).toBe(tables.length > 0);
      for (const st of dynamo) {
        const table = tables.find((x) => JSON.stringify(st.Resource).includes(x.table));
        expect(table, `${page.id}: ${JSON.stringify(st.Resource)}`).toBeDefined();
        if (!table!.write)
          expect(
            [st.Action].flat().filter((a) => /Put|Update|Delete|Write/.test(a)),
            page.id,
          ).toEqual([]);
      }
      expect(
        statements.flatMap((st) => [st.Action].flat()).filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('xray:')),
        page.id,
      ).toEqual([]);
    }
  });

  it("serves the site stage with access logs, after the account's logging role is set by the API", () => {
    const [, site] = Object.entries(t.findResources('AWS::ApiGateway::Stage') as Resources).find(
      ([, s]) => s.Properties.StageName === 'site',
    )!;
    expect(site.Properties).toMatchObject({ TracingEnabled: true, AccessLogSetting: { DestinationArn: expect.anything() } });
    const [accountId] = Object.keys(t.findResources('AWS::ApiGateway::Account'));
    expect(Object.keys(t.findResources('AWS::ApiGateway::Account'))).toHaveLength(1);
    expect((site as unknown as { DependsOn: string[] }).DependsOn).toContain(accountId);
  });

  it("answers a path with no page 404, the web ACL's refusal 429 and its own failures with Retry-After, as HTML pages with a page's headers", () => {
    const site = restApiId(t, 'asof-test-site');
    const responses = Object.values(t.findResources('AWS::ApiGateway::GatewayResponse') as Resources)
      .map((r) => r.Properties)
      .filter((p) => p.RestApiId.Ref === site);

    expect(responses.map((p) => [p.ResponseType, p.StatusCode]).sort()).toEqual([
      ['DEFAULT_4XX', undefined],
      ['DEFAULT_5XX', undefined],
      ['MISSING_AUTHENTICATION_TOKEN', '404'],
      ['WAF_FILTERED', '429'],
    ]);
    for (const p of responses) {
      expect(p.ResponseParameters, p.ResponseType).toMatchObject({
        'gatewayresponse.header.Content-Type': "'text/html; charset=utf-8'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
        'gatewayresponse.header.cache-control': "'no-store'",
        // A static header value is quoted; quotes inside it are escaped.
        'gatewayresponse.header.content-security-policy': `'${PAGE_HEADERS['content-security-policy'].replaceAll("'", "\\'")}'`,
        'gatewayresponse.header.x-frame-options': "'DENY'",
      });
      expect(Object.keys(p.ResponseTemplates).sort(), p.ResponseType).toEqual(['application/json', 'text/html']);
      const html = p.ResponseTemplates['text/html'];
      expect(html, p.ResponseType).toMatch(/^<!doctype html>.*<\/html>$/s);
      // The body is a Velocity template: `$` and `#` would be read as its syntax, not shown.
      expect(html, p.ResponseType).not.toMatch(/[$#]/);
      expect(p.ResponseTemplates['application/json'], p.ResponseType).toBe(html);
    }
    expect(responses.find((p) => p.ResponseType === 'MISSING_AUTHENTICATION_TOKEN')!.ResponseTemplates['text/html']).toContain('Not found');
    const retryAfter = (type: string) =>
      responses.find((p) => p.ResponseType === type)!.ResponseParameters['gatewayresponse.header.Retry-After'];
    expect([retryAfter('WAF_FILTERED'), retryAfter('DEFAULT_5XX'), retryAfter('DEFAULT_4XX')]).toEqual(["'60'", "'30'", undefined]);
  });

  it('is watched like a route: its errors alarm names the page', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'asof-test-route-page-permalink-errors' });
  });
});

describe('a stage with its own domain', () => {
  const DOMAIN = {
    name: 'law.asof.test',
    certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab',
    hostedZone: { id: 'Z0123456789', name: 'asof.test' },
  };
  const build = (domain: typeof DOMAIN) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stateful = new StatefulStack(app, 'domain-stateful', { prefix: 'asof-test' });
    const api = new ApiStack(app, 'domain-api', {
      prefix: 'asof-test',
      bindings: stateful.tables,
      memorySize: 1024,
      timeoutSeconds: 10,
      logRetention: RetentionDays.ONE_WEEK,
      domain,
    });
    return Template.fromStack(api);
  };

  it('serves the site at the root and the API at /v1 of the domain, TLS 1.2, with an alias record in the zone', () => {
    const tpl = build(DOMAIN);

    tpl.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'law.asof.test',
      RegionalCertificateArn: DOMAIN.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    const mappings = Object.values(tpl.findResources('AWS::ApiGateway::BasePathMapping') as Resources).map((m) => m.Properties);
    expect(mappings).toHaveLength(2);
    const stageOf = (name: string) =>
      Object.entries(tpl.findResources('AWS::ApiGateway::Stage') as Resources).find(([, s]) => s.Properties.StageName === name)![0];
    expect(mappings.find((m) => m.BasePath === 'v1')).toMatchObject({
      RestApiId: { Ref: restApiId(tpl, 'asof-test-api') },
      Stage: { Ref: stageOf('v1') },
    });
    expect(mappings.find((m) => m.BasePath === undefined)).toMatchObject({
      RestApiId: { Ref: restApiId(tpl, 'asof-test-site') },
      Stage: { Ref: stageOf('site') },
    });
    tpl.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'law.asof.test.',
      Type: 'A',
      HostedZoneId: 'Z0123456789',
      AliasTarget: Match.anyValue(),
    });
  });

  it("closes API Gateway's own addresses of both APIs, which only a stage without a domain keeps", () => {
    const disabled = (tpl: Template) =>
      Object.values(tpl.findResources('AWS::ApiGateway::RestApi') as Resources).map((a) => [
        a.Properties.Name,
        a.Properties.DisableExecuteApiEndpoint ?? false,
      ]);

    expect(disabled(build(DOMAIN)).sort()).toEqual([
      ['asof-test-api', true],
      ['asof-test-site', true],
    ]);
    expect(disabled(t).sort()).toEqual([
      ['asof-test-api', false],
      ['asof-test-site', false],
    ]);
  });

  it("gives every route function the domain's addresses: permalinks at its root, the API at /v1", () => {
    const tpl = build(DOMAIN);

    for (const route of ROUTES) {
      tpl.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `asof-test-${route.id}`,
        Environment: { Variables: Match.objectLike({ ASOF_SITE_URL: 'https://law.asof.test', ASOF_BASE_URL: 'https://law.asof.test/v1' }) },
      });
    }
  });

  it('refuses, at synth, a name with a scheme, a certificate that is no ACM ARN, or a name outside its zone', () => {
    expect(() => build({ ...DOMAIN, name: 'https://law.asof.test' })).toThrow(/domain.name must be a lower-case host name/);
    expect(() => build({ ...DOMAIN, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' })).toThrow(
      /domain.certificateArn must be an ACM certificate ARN/,
    );
    expect(() => build({ ...DOMAIN, hostedZone: { id: 'Z1', name: 'other.test' } })).toThrow(
      /law.asof.test is not in the hosted zone other.test/,
    );
  });
});
