import type { APIGatewayProxyResult } from 'aws-lambda';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-status.ts';

/**
 * Headers every answer carries, API or page: no content-type sniffing (a browser must never read a JSON error that
 * quotes its input as HTML), and a Retry-After on every 503 that does not name its own.
 */
function commonHeaders(status: number, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { 'x-content-type-options': 'nosniff' };
  if (status === 503 && !headers['retry-after']) out['retry-after'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return Object.assign(out, headers);
}

/** JSON bodies, no CORS headers at all (the service is called from servers). */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): APIGatewayProxyResult {
  const own: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  return { statusCode: status, headers: commonHeaders(status, headers ? Object.assign(own, headers) : own), body: JSON.stringify(body) };
}

export function textResponse(
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode: status, headers: commonHeaders(status, { 'content-type': contentType, ...headers }), body };
}
