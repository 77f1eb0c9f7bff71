import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Services } from '#app/services.ts';
import { createRouteHandler, type RouteHandler } from './handler.ts';
import { errorResponse } from './middlewares/error-envelope.ts';
import type { Page } from './pages/page.ts';
import { pathsOf, type Route } from './route.ts';

export interface LocalServerOptions {
  services: Services;
  routes: readonly Route[];
  pages: readonly Page[];
  /** The API's path prefix (API Gateway's stage). */
  basePath?: string;
  /** Larger bodies are refused with 413 before they are read further. */
  maxBodyBytes?: number;
}

interface Compiled {
  pattern: RegExp;
  resource: string;
  params: string[];
  handlers: Map<string, RouteHandler>;
}

const compilePath = (path: string) => {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)');
  return { pattern: new RegExp(`^${source}$`), params };
};

/** Mounts the route table on node:http the way API Gateway does: one Lambda-style handler per route, the same event shape. */
export function createLocalServer(opts: LocalServerOptions): Server {
  const basePath = opts.basePath ?? '/v1';
  const maxBody = opts.maxBodyBytes ?? 1024 * 1024;
  const compiled: Compiled[] = [];
  for (const route of opts.routes) {
    const handler = createRouteHandler(route, opts.services);
    for (const path of pathsOf(route)) {
      let entry = compiled.find((c) => c.resource === path);
      if (!entry) {
        entry = { ...compilePath(path), resource: path, handlers: new Map() };
        compiled.push(entry);
      }
      for (const method of route.methods) entry.handlers.set(method, handler);
    }
  }
  const pages = opts.pages.map((page) => ({ page, ...compilePath(page.path) }));

  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      opts.services.logger.error('local server failure', { error: err });
      if (!res.headersSent) send(res, errorResponse('internal_error', 'The request failed inside the service.', randomUUID()));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    if (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`)) {
      const path = url.pathname.slice(basePath.length) || '/';
      const match = compiled.map((c) => ({ c, m: c.pattern.exec(path) })).find((x) => x.m);
      if (!match)
        return send(res, errorResponse('no_route', `No endpoint at ${url.pathname}; see ${basePath}/openapi.json.`, randomUUID()));
      const handler = match.c.handlers.get(method);
      if (!handler) {
        const allow = [...match.c.handlers.keys()].join(', ');
        return send(
          res,
          errorResponse('method_not_allowed', `${method} is not supported here; use ${allow}.`, randomUUID(), {}, { allow }),
        );
      }
      const body = await readBody(req, maxBody);
      if (body === null) {
        req.resume();
        return send(
          res,
          errorResponse('too_large', `Request bodies are limited to ${maxBody} bytes.`, randomUUID(), {}, { connection: 'close' }),
        );
      }
      const pathParameters = Object.fromEntries(match.c.params.map((p, i) => [p, decodeURIComponent(match.m![i + 1]!)]));
      const event = toEvent(req, url, method, match.c.resource, pathParameters, body);
      return send(res, await handler(event, lambdaContext(event.requestContext.requestId)));
    }
    const pageMatch = pages.map((p) => ({ p, m: p.pattern.exec(url.pathname) })).find((x) => x.m);
    if (pageMatch && method === 'GET') {
      const params = Object.fromEntries(pageMatch.p.params.map((p, i) => [p, decodeURIComponent(pageMatch.m![i + 1]!)]));
      return send(res, await pageMatch.p.page.render({ params, query: url.searchParams, services: opts.services }));
    }
    return send(res, errorResponse('no_route', `Nothing at ${url.pathname}. The API is at ${basePath}.`, randomUUID()));
  }
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  resource: string,
  pathParameters: Record<string, string>,
  body: string,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    const values = multi[k];
    if (values) values.push(v);
    else multi[k] = [v];
  }
  const requestId = randomUUID();
  return {
    httpMethod: method,
    path: url.pathname,
    resource,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(multi).length ? multi : null,
    headers,
    multiValueHeaders: {},
    body: body === '' ? null : body,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId,
      httpMethod: method,
      path: url.pathname,
      resourcePath: resource,
      stage: 'local',
    } as APIGatewayProxyEvent['requestContext'],
  };
}

const lambdaContext = (requestId: string): Context =>
  ({
    awsRequestId: requestId,
    functionName: 'asof-local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 30_000,
  }) as unknown as Context;

/** The body as text, or null when it exceeds `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
  const headers: Record<string, string | number> = { ...(result.headers as Record<string, string>), 'content-length': body.length };
  res.writeHead(result.statusCode, headers);
  res.end(body);
}
