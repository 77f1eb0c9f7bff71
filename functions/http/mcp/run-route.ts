import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Services } from '#app/services.ts';
import { createRouteHandler, type RouteHandler } from '#http/handler.ts';
import { jsonResponse } from '#http/respond.ts';
import type { Route } from '#http/route.ts';
import type { ErrorCode } from '#shared/errors.ts';
import { Semaphore } from '#shared/semaphore.ts';

/**
 * A route's answer as the tool sees it: the HTTP status, the body's text as the route serialized it (a tool result
 * carries it as it is, never parsed and serialized again), the response headers (lowercase).
 */
export interface RouteAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** Runs a tool's route with the tool's arguments as its JSON body, on behalf of the bearer of `authorization`. */
export type RunRoute = (route: Route, args: Record<string, unknown>, authorization: string | undefined) => Promise<RouteAnswer>;

/**
 * Tool calls run in this process at once, and waiting for a place, whoever their caller: a long call (250 citations)
 * keeps the event loop for stretches, and twenty of them at once would keep it from every other request. One more
 * than both is answered 503 at once (nothing billed: its route never ran).
 */
export const TOOL_CALLS_AT_ONCE = 4;
export const TOOL_CALLS_WAITING = 32;
const inProcessCalls = new Semaphore(TOOL_CALLS_AT_ONCE, TOOL_CALLS_WAITING);

/** The route's own 503 code (its store's), for a call refused as too busy. */
const unavailableCode = (route: Route): ErrorCode =>
  route.errors.find((code) => code.endsWith('_unavailable')) ??
  (route.stores.includes('caselaw') ? 'caselaw_unavailable' : 'statutes_unavailable');

/** The envelope a call refused for the process's load answers, as a route's 503 (with Retry-After). */
function tooBusy(route: Route): RouteAnswer {
  const requestId = randomUUID();
  const message =
    `Too many tool calls are running in this process (${TOOL_CALLS_AT_ONCE} at once and ${TOOL_CALLS_WAITING} waiting): ` +
    'this one was not run and is not billed; try again after Retry-After seconds.';
  const result = jsonResponse(503, { error: { code: unavailableCode(route), message, requestId } }, { 'x-request-id': requestId });
  return { status: result.statusCode, text: result.body, headers: lowercased(result.headers) };
}

const lowercased = (headers: Record<string, unknown> | Headers | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers ?? {});
  for (const [k, v] of entries) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
};

/**
 * In this process: the route's own middleware chain (authentication, admission, validation, the handler, settlement)
 * on a POST event, as API Gateway would hand it to the route's function. `edge: false` when the caller was already
 * counted by the edge limit (the /mcp request that carries the tool call), so a tool call is not counted twice.
 */
export function inProcessRunner(services: Services, opts: { edge: boolean; gate?: Semaphore }): RunRoute {
  const served = opts.edge ? services : { ...services, edge: null };
  const gate = opts.gate ?? inProcessCalls;
  const handlers = new Map<string, RouteHandler>();
  return (route, args, authorization) =>
    gate.run(
      () => runRoute(route, args, authorization),
      () => tooBusy(route),
    );

  async function runRoute(route: Route, args: Record<string, unknown>, authorization: string | undefined): Promise<RouteAnswer> {
    if (!route.methods.includes('POST')) throw new Error(`route ${route.id} does not accept POST: it cannot be a tool`);
    const handler = handlers.get(route.id) ?? createRouteHandler(route, served);
    handlers.set(route.id, handler);
    const requestId = randomUUID();
    const path = `/v1${route.path}`;
    const event = {
      httpMethod: 'POST',
      path,
      resource: route.path,
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      headers: { 'content-type': 'application/json', ...(authorization !== undefined && { authorization }) },
      multiValueHeaders: {},
      body: JSON.stringify(args),
      isBase64Encoded: false,
      stageVariables: null,
      requestContext: { requestId, httpMethod: 'POST', path, resourcePath: route.path, stage: 'mcp' },
    } as unknown as APIGatewayProxyEvent;
    const context = {
      awsRequestId: requestId,
      functionName: `mcp-${route.id}`,
      callbackWaitsForEmptyEventLoop: false,
      getRemainingTimeInMillis: () => 30_000,
    } as unknown as Context;
    const result = await handler(event, context);
    return { status: result.statusCode, text: result.body, headers: lowercased(result.headers) };
  }
}

/**
 * Over HTTP, against a deployed or local asof at `baseUrl` (its address with `/v1`): the route's REST endpoint, so
 * the remote service authenticates, meters and answers exactly as it does for any client. A service that cannot be
 * reached is answered 503 `service_unreachable` here (nothing was billed: no request arrived).
 */
export function remoteRunner(baseUrl: string, fetchImpl: typeof fetch = fetch): RunRoute {
  const base = baseUrl.replace(/\/+$/, '');
  return async (route, args, authorization) => {
    let res: Response;
    try {
      res = await fetchImpl(`${base}${route.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization !== undefined && { authorization }) },
        body: JSON.stringify(args),
      });
    } catch (err) {
      const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      return {
        status: 503,
        text: JSON.stringify({ error: { code: 'service_unreachable', message: `asof at ${base} could not be reached: ${reason}.` } }),
        headers: {},
      };
    }
    return { status: res.status, text: await res.text(), headers: lowercased(res.headers) };
  };
}
