import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Services } from '#app/services.ts';
import { createRouteHandler, type RouteHandler } from '#http/handler.ts';
import type { Route } from '#http/route.ts';

/** A route's answer as the tool sees it: the HTTP status, the parsed JSON body, the response headers (lowercase). */
export interface RouteAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Runs a tool's route with the tool's arguments as its JSON body, on behalf of the bearer of `authorization`. */
export type RunRoute = (route: Route, args: Record<string, unknown>, authorization: string | undefined) => Promise<RouteAnswer>;

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

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
export function inProcessRunner(services: Services, opts: { edge: boolean }): RunRoute {
  const served = opts.edge ? services : { ...services, edge: null };
  const handlers = new Map<string, RouteHandler>();
  return async (route, args, authorization) => {
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
    return { status: result.statusCode, body: parsed(result.body), headers: lowercased(result.headers) };
  };
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
        body: { error: { code: 'service_unreachable', message: `asof at ${base} could not be reached: ${reason}.` } },
        headers: {},
      };
    }
    return { status: res.status, body: parsed(await res.text()), headers: lowercased(res.headers) };
  };
}
