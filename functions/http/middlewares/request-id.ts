import { randomUUID } from 'node:crypto';
import type { HttpRequest } from './types.ts';

export interface RequestIdOptions {
  /** Response header carrying the id. */
  header?: string;
}
const defaults: Required<RequestIdOptions> = { header: 'x-request-id' };

/** Gives every request an id (API Gateway's, or a fresh UUID) and returns it on every response. */
export function requestId(opts: RequestIdOptions = {}) {
  const { header } = { ...defaults, ...opts };
  const requestIdMiddlewareBefore = (request: HttpRequest): void => {
    request.context.http = {
      requestId: request.event.requestContext?.requestId || randomUUID(),
      principal: null,
      input: undefined,
      admission: null,
    };
  };
  const requestIdMiddlewareAfter = (request: HttpRequest): void => {
    // The response's headers are its own (respond.ts makes them per answer): set in place, not copied.
    const { response } = request;
    if (!response) return;
    response.headers ??= {};
    response.headers[header] = request.context.http?.requestId ?? 'unknown';
  };
  return { before: requestIdMiddlewareBefore, after: requestIdMiddlewareAfter, onError: requestIdMiddlewareAfter };
}
