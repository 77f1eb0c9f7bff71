import type { Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Admission } from '#accounts/meter.ts';
import type { ApiKeyRecord } from '#accounts/ports.ts';

/** What the middlewares and the route hand each other; middy's own pattern (setToContext) keeps it on the context. */
export interface HttpState {
  requestId: string;
  principal: ApiKeyRecord | null;
  input: unknown;
  /** The POST body's text, for a route that reads its body itself (`Route.body: 'own'`). */
  body?: string;
  admission: Admission | null;
}

export type HttpContext = Context & { http: HttpState };
export type HttpRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/** Header lookup that ignores case, as HTTP does (API Gateway passes names as the client sent them). */
export function headerOf(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}
