import type { APIGatewayProxyResult } from 'aws-lambda';

/** JSON bodies, no CORS headers at all (the service is called from servers). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export function textResponse(
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode: status, headers: { 'content-type': contentType, ...headers }, body };
}
