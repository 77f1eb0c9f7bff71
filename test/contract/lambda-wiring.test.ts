/**
 * The Lambda wiring (functions/lambda/): each route's function is given only the stores its route declares, and
 * that declaration is complete. The real wiring runs here: DynamoDB stores from the environment a deployed function
 * gets (tables on dynalite through AWS_ENDPOINT_URL_DYNAMODB), the search index and the case-law replica on the
 * embedded PostgreSQL in place of OpenSearch and Aurora (their adapters' own suites are elsewhere).
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { mcpEndpoint } from '#http/handlers/mcp.ts';
import { MCP_TOOLS } from '#http/mcp/tools.ts';
import { ROUTE_STORES, type Route } from '#http/route.ts';
import { ROUTES } from '#http/routes.ts';
import { ENV } from '#lambda/env.ts';
import { routeLambda } from '#lambda/route-entry.ts';
import { lambdaServices } from '#lambda/route-services.ts';
import type { LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { deployedLambdaEnv } from './lambda-env.ts';

let stores: DynaliteStores;
let key: string;
const saved = { ...process.env };

/** The environment a deployed route function gets: every table bound (the test narrows nothing; the wiring must). */
const deployedEnv = (dynamo: LocalDynamoAccess) =>
  deployedLambdaEnv(dynamo, LOCAL_TABLES, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    [ENV.siteUrl]: 'https://asof.test',
    [ENV.baseUrl]: 'https://asof.test/v1',
  });

beforeAll(async () => {
  stores = await openDynaliteStores();
  Object.assign(process.env, deployedEnv(stores.dynamo));
  key = (await issueKey(stores.accounts, { name: 'wiring' }, new Date())).key;
  // A fresh probe verdict, so that corpus health has a 200 to give when its store is wired.
  await stores.ops.putHealthVerdict({ checkedAt: new Date().toISOString(), reachable: true, detail: 'ok' });
});
afterAll(async () => {
  process.env = saved;
  await stores?.close();
});

/** A valid call of each route, as API Gateway's proxy integration delivers it. */
const CALLS: Record<
  string,
  {
    method: 'GET' | 'POST';
    query?: Record<string, string>;
    body?: unknown;
    pathParameters?: Record<string, string>;
    headers?: Record<string, string>;
  }
> = {
  'law-lookup': { method: 'GET', query: { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' } },
  'law-text': { method: 'GET', query: { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' } },
  'law-versions': { method: 'GET', query: { jurisdiction: 'dc', citation: '22-404.05' } },
  'law-diff': { method: 'POST', body: { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-18', to: '2024-04-21' } },
  'law-search': { method: 'GET', query: { q: 'strangulation', jurisdiction: 'dc' } },
  'law-format': { method: 'GET', query: { jurisdiction: 'us' } },
  'caselaw-citations': { method: 'POST', body: { text: 'Marsh v. Chambers, 463 U.S. 783 (1983)', fallback: 'courtlistener' } },
  'caselaw-case': { method: 'GET', pathParameters: { clusterId: '111014' } },
  'caselaw-cited-by': { method: 'GET', pathParameters: { clusterId: '111014' } },
  // A tool call of each store the MCP function declares runs in it: the search tool needs the search index.
  mcp: {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_law', arguments: { q: 'strangulation' } } },
  },
  'law-coverage': { method: 'GET' },
  'law-quality': { method: 'GET' },
  health: { method: 'GET' },
  'health-corpus': { method: 'GET' },
  'openapi-yaml': { method: 'GET' },
  'openapi-json': { method: 'GET' },
};

function apiEvent(route: Route, call: (typeof CALLS)[string]): APIGatewayProxyEvent {
  const requestId = `wiring-${route.id}`;
  return {
    httpMethod: call.method,
    path: `/v1${route.path}`,
    resource: route.path,
    pathParameters: call.pathParameters ?? null,
    queryStringParameters: call.query ?? null,
    multiValueQueryStringParameters: null,
    headers: { authorization: `Bearer ${key}`, ...(call.body !== undefined && { 'content-type': 'application/json' }), ...call.headers },
    multiValueHeaders: {},
    body: call.body === undefined ? null : JSON.stringify(call.body),
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId,
      httpMethod: call.method,
      path: `/v1${route.path}`,
      resourcePath: route.path,
      stage: 'v1',
    } as APIGatewayProxyEvent['requestContext'],
  };
}

const context = (id: string) =>
  ({
    awsRequestId: id,
    functionName: id,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

describe('a route function is wired to what its route declares', () => {
  it('has a valid call for every route (so the next test covers the whole table)', () => {
    expect(Object.keys(CALLS).sort()).toEqual(ROUTES.map((r) => r.id).sort());
  });

  it('answers a valid call of every route with only the declared stores: no "not configured" 503', async () => {
    for (const route of ROUTES) {
      const handler = routeLambda(route, {
        search: () => stores.search,
        caselaw: () => stores.caselaw,
        fallback: () => ({ provider: null, dailyRequests: 0, perRequestCap: 0 }),
        mcp: mcpEndpoint,
      });
      const res = await handler(apiEvent(route, CALLS[route.id]!), context(route.id));
      // An empty store still answers (200, or a 404 such as not_carried); a store that is not wired answers 503.
      expect(res.statusCode, `${route.id}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    }
  });

  it('runs every MCP tool in the MCP function with the stores its route needs: no tool answers 503', async () => {
    const route = ROUTES.find((r) => r.id === 'mcp')!;
    const handler = routeLambda(route, {
      search: () => stores.search,
      caselaw: () => stores.caselaw,
      fallback: () => ({ provider: null, dailyRequests: 0, perRequestCap: 0 }),
      mcp: mcpEndpoint,
    });
    const toolCall = (name: string, args: Record<string, unknown>) => ({
      method: 'POST' as const,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
    const lookup = { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' };
    const calls = {
      lookup_section: lookup,
      section_text: lookup,
      list_versions: { jurisdiction: 'us', citation: '1-112b' },
      diff_versions: { jurisdiction: 'us', citation: '1-112b', from: '2019-03-01', to: '2024-01-01' },
      search_law: { q: 'strangulation' },
      filing_format: { jurisdiction: 'us' },
      resolve_citations: { text: 'Marsh v. Chambers, 463 U.S. 783 (1983)', fallback: 'courtlistener' },
    };
    expect(Object.keys(calls)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const [name, args] of Object.entries(calls)) {
      const res = await handler(apiEvent(route, toolCall(name, args)), context(`mcp-${name}`));
      const answer = JSON.parse(res.body);
      expect(res.statusCode, name).toBe(200);
      expect(answer.result._meta['asof/status'], `${name}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    }
  });

  it('would catch an incomplete declaration: the lookup without its stores answers 503 statutes_unavailable', async () => {
    const lookup = ROUTES.find((r) => r.id === 'law-lookup')!;
    const handler = routeLambda({ ...lookup, stores: [] });
    const res = await handler(apiEvent(lookup, CALLS['law-lookup']!), context('law-lookup-undeclared'));
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).error.code).toBe('statutes_unavailable');
  });

  it('leaves every store the route does not declare unwired', () => {
    for (const route of ROUTES) {
      const services = lambdaServices(route, {
        search: () => stores.search,
        caselaw: () => stores.caselaw,
        fallback: () => ({ provider: null, dailyRequests: 1, perRequestCap: 1 }),
      });
      const wired = {
        versions: services.versions !== null,
        search: services.search !== null,
        caselaw: services.caselaw !== null,
        formats: services.formats !== null,
        ops: services.ops !== null,
        fallback: services.fallback.dailyRequests > 0,
      };
      expect(wired, route.id).toEqual(Object.fromEntries(ROUTE_STORES.map((s) => [s, route.stores.includes(s)])));
      expect(services.accounts, route.id).not.toBeNull();
    }
  });

  it('refuses, at module load, a route whose entry brings no adapter for a store it declares', () => {
    const search = ROUTES.find((r) => r.id === 'law-search')!;
    expect(() => lambdaServices(search, {})).toThrow(/law-search uses search, but its entry brings no adapter/);
  });

  it('loads every route entry with the environment a deployed function gets, without calling AWS', async () => {
    for (const route of ROUTES) {
      const entry = (await import(`../../functions/lambda/routes/${route.id}.ts`)) as { handler?: unknown };
      expect(typeof entry.handler, route.id).toBe('function');
    }
  });
});
