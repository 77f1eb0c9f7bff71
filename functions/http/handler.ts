import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Services } from '#app/services.ts';
import { authenticate } from './middlewares/authenticate.ts';
import { edgeLimit } from './middlewares/edge-limit.ts';
import { errorEnvelope } from './middlewares/error-envelope.ts';
import { admitUsage, settleUsage } from './middlewares/meter.ts';
import { parseInput } from './middlewares/parse-input.ts';
import { requestId } from './middlewares/request-id.ts';
import type { HttpContext } from './middlewares/types.ts';
import { jsonResponse, textResponse } from './respond.ts';
import type { Route } from './route.ts';

/** The entries of `values` whose value is defined, names lowercased when `lower` (a later duplicate wins, as before). */
function definedValues(values: Record<string, string | undefined> | null | undefined, lower: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in values) {
    const v = values[k];
    if (v !== undefined) out[lower ? k.toLowerCase() : k] = v;
  }
  return out;
}

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * One route as a Lambda-style handler: request id → usage settlement → error envelope → edge limit →
 * authentication (401, 403) → admission (429s) → input validation → admission of input-sized calls → the route.
 * The local server and the Lambda entry points both call this.
 */
export function createRouteHandler(route: Route, services: Services): RouteHandler {
  const usage = { meter: services.meter, routeId: route.id, units: route.units };
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>({ timeoutEarlyInMillis: 0 })
    .use(requestId())
    .use(settleUsage(usage))
    .use(errorEnvelope({ logger: services.logger }))
    .use(edgeLimit({ limiter: services.edge, now: services.now }))
    .use(authenticate({ accounts: services.accounts, ...(route.auth.kind === 'bearer' && { scope: route.auth.scope }) }))
    .use(admitUsage({ ...usage, phase: 'before-input' }))
    .use(parseInput({ schema: route.input, ...(route.fieldCodes && { fieldCodes: route.fieldCodes }), ownBody: route.body === 'own' }))
    .use(admitUsage({ ...usage, phase: 'after-input' }))
    .handler(async (event, context) => {
      const { http } = context;
      const result = await route.handle(http.input, {
        services,
        principal: http.principal,
        requestId: http.requestId,
        body: http.body ?? '',
        pathParameters: definedValues(event.pathParameters, false),
        headers: definedValues(event.headers, true),
      });
      const status = result.status ?? 200;
      return result.contentType
        ? textResponse(status, String(result.body), result.contentType, result.headers)
        : jsonResponse(status, result.body, result.headers);
    });
  return handler as unknown as RouteHandler;
}
