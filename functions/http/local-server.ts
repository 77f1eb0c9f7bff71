import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Services } from '#app/services.ts';
import type { ErrorCode } from '#shared/errors.ts';
import { thousands } from '#shared/thousands.ts';
import { createRouteHandler, type RouteHandler } from './handler.ts';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, REQUEST_TIMEOUT_MS } from './input-limits.ts';
import { errorResponse } from './middlewares/error-envelope.ts';
import { notFoundPage } from './pages/html.ts';
import type { Page } from './pages/page.ts';
import { decodePathSegment } from './path-segment.ts';
import { pathsOf, type Route } from './route.ts';
import { messageRefusal, writeToSocket } from './transport-refusals.ts';

export interface LocalServerOptions {
  services: Services;
  routes: readonly Route[];
  pages: readonly Page[];
  /** The API's path prefix (API Gateway's stage). */
  basePath?: string;
  /** Larger bodies are refused with 413 before they are read further. */
  maxBodyBytes?: number;
  /** A request (line, headers and body) not received in this time is answered 408 request_timeout. */
  requestTimeoutMs?: number;
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

/**
 * Mounts the route table on node:http the way API Gateway does: one Lambda-style handler per route, the same event
 * shape; the site's pages outside the base path. Every answer is the error envelope or a page, never Node's bare
 * status line: the transport's own refusals (headers too large, a request too slow, not HTTP) included.
 */
export function createLocalServer(opts: LocalServerOptions): Server {
  const basePath = opts.basePath ?? '/v1';
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
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
  // A path without parameters is found by a Map lookup (unless a pattern before it in the table takes it: that one
  // answers, as the table's first match always does); the others by their patterns, in the table's order.
  const withParams = compiled.filter((c) => c.params.length > 0);
  const exact = new Map(
    compiled
      .filter((c, at) => c.params.length === 0 && !compiled.slice(0, at).some((before) => before.pattern.test(c.resource)))
      .map((c) => [c.resource, c]),
  );
  const routeOf = (path: string): { c: Compiled; m: RegExpExecArray | null } | undefined => {
    const found = exact.get(path);
    if (found) return { c: found, m: null };
    for (const c of withParams) {
      const m = c.pattern.exec(path);
      if (m) return { c, m };
    }
    return undefined;
  };

  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout,
      headersTimeout: requestTimeout,
      // How often Node checks for requests past their time: the timeout is exact to within this.
      connectionsCheckingInterval: Math.min(30_000, Math.max(25, Math.floor(requestTimeout / 4))),
      // Node would refuse a request with no Host by a bare 400: `handle` refuses it in the envelope.
      requireHostHeader: false,
    },
    (req, res) => {
      const requestId = randomUUID();
      handle(req, res, requestId).catch((err) => {
        // A client gone (its connection closed, or answered 408 by a timeout) has no one left to answer.
        if (res.headersSent || !req.socket.writable) return void res.destroy();
        opts.services.logger.error('local server failure', { error: err });
        send(res, errorResponse('internal_error', 'The request failed inside the service.', requestId));
      });
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, requestTimeout));
  // Node's own answers to an expectation other than 100-continue (a bare 417) and to a CONNECT (the connection closed).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const message = `Expect ${clip(String(req.headers.expect))} cannot be met: the only expectation understood is 100-continue.`;
    send(res, errorResponse('expectation_failed', message, randomUUID(), {}, { connection: 'close' }));
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const message = 'CONNECT is not supported: this server answers requests for its own paths, it is not a proxy.';
    writeToSocket(socket, errorResponse('bad_request', message, randomUUID(), {}, { connection: 'close' }));
  });
  return server;

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = targetOf(req.url ?? '/');
    const method = (req.method ?? 'GET').toUpperCase();
    const refusal = messageRefusal(req);
    if (refusal) {
      req.resume();
      return refuse(res, requestId, 'bad_request', refusal, { connection: 'close' });
    }
    if (!url) return refuse(res, requestId, 'bad_request', 'The request target is not a path.');
    if (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`)) {
      const path = url.pathname.slice(basePath.length) || '/';
      const match = routeOf(path);
      if (!match) return refuse(res, requestId, 'no_route', `No endpoint at ${clip(url.pathname)}; see ${basePath}/openapi.json.`);
      const handler = match.c.handlers.get(method);
      if (!handler) {
        const allow = [...match.c.handlers.keys()].join(', ');
        return refuse(res, requestId, 'method_not_allowed', `${clip(method)} is not supported here; use ${allow}.`, { allow });
      }
      const body = hasNoBody(req) ? '' : await readBody(req, maxBody);
      if (body === null) {
        req.resume();
        return refuse(res, requestId, 'too_large', `Request bodies are limited to ${thousands(maxBody)} bytes.`, { connection: 'close' });
      }
      // A malformed escape is passed on as it came, as API Gateway passes path parameters: the route refuses it.
      let pathParameters: Record<string, string> | null = null;
      match.c.params.forEach((p, i) => {
        const raw = match.m![i + 1]!;
        pathParameters ??= {};
        pathParameters[p] = decodePathSegment(raw) ?? raw;
      });
      const event = toEvent(req, url, method, match.c.resource, pathParameters, body, requestId);
      return send(res, await handler(event, lambdaContext(requestId)));
    }
    const pageMatch = method === 'GET' ? pages.map((p) => ({ p, m: p.pattern.exec(url.pathname) })).find((x) => x.m) : undefined;
    const values = pageMatch?.p.params.map((_, i) => decodePathSegment(pageMatch.m![i + 1]!));
    if (!pageMatch || !values || values.some((v) => v === null)) return send(res, notFoundPage());
    const params = Object.fromEntries(pageMatch.p.params.map((p, i) => [p, values[i]!]));
    const client = req.socket.remoteAddress;
    return send(
      res,
      await pageMatch.p.page.render({ params, query: url.searchParams, services: opts.services, ...(client && { client }) }),
    );
  }
}

/** The request target as a URL: origin-form (`/v1/…`) or absolute-form (`http://host/v1/…`); anything else is null. */
function targetOf(raw: string): URL | null {
  try {
    if (raw.startsWith('/')) return new URL(`http://local${raw}`);
    return /^https?:\/\//i.test(raw) ? new URL(raw) : null;
  } catch {
    return null;
  }
}

const refuse = (res: ServerResponse, requestId: string, code: ErrorCode, message: string, headers: Record<string, string> = {}) =>
  send(res, errorResponse(code, message, requestId, {}, headers));

/** A path or method quoted in a message: at most 100 characters of it. */
const clip = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

/**
 * What Node would answer with a bare status line (431, 408, 400) for a request it could not read, in the envelope.
 * Nothing is written once a response has begun, or to a connection already gone.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, requestTimeout: number): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const [code, message]: [ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          'headers_too_large',
          `The request line and headers exceed ${thousands(MAX_HEADER_BYTES)} bytes; send long parameters in a POST body.`,
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', `The request was not received within ${thousands(requestTimeout / 1000)} seconds.`]
        : ['bad_request', 'The request is not valid HTTP/1.1.'];
  writeToSocket(socket, errorResponse(code, message, requestId, {}, { connection: 'close' }));
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  resource: string,
  /** Null for a route without parameters, as API Gateway passes it. */
  pathParameters: Record<string, string> | null,
  body: string,
  requestId: string,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const given = req.headers;
  for (const k in given) {
    const v = given[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  let query: Record<string, string> | null = null;
  let multi: Record<string, string[]> | null = null;
  for (const [k, v] of url.searchParams) {
    query ??= {};
    multi ??= {};
    query[k] = v;
    const values = multi[k];
    if (values) values.push(v);
    else multi[k] = [v];
  }
  return {
    httpMethod: method,
    path: url.pathname,
    resource,
    pathParameters,
    queryStringParameters: query,
    multiValueQueryStringParameters: multi,
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

const remainingTime = () => 30_000;
const lambdaContext = (requestId: string): Context =>
  ({
    awsRequestId: requestId,
    functionName: 'asof-local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: remainingTime,
  }) as unknown as Context;

/**
 * A request that declares no body (no Content-Length, or 0, and no Transfer-Encoding) has none (RFC 9112 § 6.3):
 * there is nothing to wait for before it is answered.
 */
const hasNoBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || req.headers['content-length'] === '0');

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
    // Closed before its end (the client went away, or a timeout refused it): nothing left to read or answer.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the request was closed before its body was read'));
    });
  });
}

/** The answer: a text body is handed to Node as it is (written with the head in one write), its length in UTF-8 bytes. */
function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  const headers: Record<string, string | number> = { ...(result.headers as Record<string, string>), 'content-length': length };
  res.writeHead(result.statusCode, headers);
  res.end(body, 'utf8');
}
