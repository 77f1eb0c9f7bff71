import { stringify } from 'yaml';
import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import type { ErrorCode } from '#shared/errors.ts';
import { ERROR_STATUS } from './error-status.ts';
import { pathsOf, type Route } from './route.ts';
import { ErrorEnvelopeSchema, RESPONSE_SCHEMAS } from './schemas-responses.ts';

const AUTH_ERRORS: readonly ErrorCode[] = [
  'missing_bearer',
  'invalid_key',
  'missing_scope',
  'rate_limited',
  'daily_limit_exceeded',
  'monthly_limit_exceeded',
];
/** A public route ignores a key it is sent, but the edge limit still counts the token (120 a minute). */
const PUBLIC_ERRORS: readonly ErrorCode[] = ['rate_limited'];
/**
 * What any request may be answered before an operation reads it, whatever its path and method: not HTTP, no such
 * path or method, too slow, a body over 1 MiB, an `Expect` other than 100-continue, a request line and headers over
 * 16 KiB. In the document once, as the
 * `TransportError` schema, rather than under every operation.
 */
const TRANSPORT_ERRORS = [
  'bad_request',
  'no_route',
  'method_not_allowed',
  'request_timeout',
  'too_large',
  'expectation_failed',
  'headers_too_large',
] as const satisfies readonly ErrorCode[];

export interface OpenApiOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8787/v1. */
  serverUrl: string;
  version: string;
}

/**
 * The codes any input can meet, beyond those a route names: a POST body that is not a JSON object, too deep or too
 * wide (bad_json) or over 1 MiB (too_large), and
 * `bad_parameter` for a value of a field with no code of its own (a NUL character, a wrong JSON type, too long, empty
 * when optional, given twice).
 */
function inputErrors(route: Route, method: 'GET' | 'POST'): ErrorCode[] {
  // A route that reads its own body (MCP) answers a malformed one its own way; only the size limit is the API's.
  if (route.body === 'own') return ['too_large'];
  const fields = Object.keys((route.input as unknown as z.ZodObject).shape ?? {});
  const generic = fields.some((f) => !route.fieldCodes?.[f]?.startsWith('bad_'));
  return [...(method === 'POST' ? (['bad_json', 'too_large'] as const) : []), ...(generic ? (['bad_parameter'] as const) : [])];
}

/**
 * The envelope (the `Error` component) with its `code` narrowed to `codes`. A plain schema object, not zod: zod's
 * intersection would render every object's additionalProperties, and split `Error` into input and output copies.
 */
const envelopeOf = (codes: readonly ErrorCode[]) => ({
  allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error: { properties: { code: { enum: [...codes] } } } } }],
});

function errorResponses(route: Route, method: 'GET' | 'POST') {
  const codes = [
    ...new Set([...route.errors, ...inputErrors(route, method), ...(route.auth.kind === 'bearer' ? AUTH_ERRORS : PUBLIC_ERRORS)]),
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: `error codes: ${list.join(', ')}`,
        ...(status === 429 || status === 503
          ? { headers: { 'Retry-After': { schema: { type: 'integer' as const }, description: 'seconds to wait' } } }
          : {}),
        content: { 'application/json': { schema: envelopeOf(list) } },
      },
    ]),
  );
}

type Answer = { description: string; content: { 'application/json': { schema: unknown } } };

/**
 * The route's own answers and its error answers by status. A status that has both (the MCP transport's JSON-RPC
 * refusals beside the input errors at 400) is documented as either: the route's resource by its component's reference.
 */
function withErrors(route: Route, errors: Record<string, Answer>, answers: Record<string, Answer>): ZodOpenApiResponsesObject {
  const merged: Record<string, Answer> = { ...answers, ...errors };
  for (const [status, answer] of Object.entries(answers)) {
    const error = errors[status];
    if (!error) continue;
    const own = { $ref: `#/components/schemas/${route.responses[Number(status)]!.schema}` };
    const either = { oneOf: [own, error.content['application/json'].schema] };
    merged[status] = {
      ...error,
      description: `${answer.description}; or ${error.description}`,
      content: { 'application/json': { schema: either } },
    };
  }
  return merged as ZodOpenApiResponsesObject;
}

/** Path parameters from the path, the rest of a GET's input from the query string. */
function requestParams(route: Route, method: 'GET' | 'POST', pathParams: string[]) {
  const input = route.input as unknown as z.ZodObject;
  const inPath: Record<string, true> = Object.fromEntries(pathParams.map((p) => [p, true as const]));
  const path = pathParams.length ? z.object(Object.fromEntries(pathParams.map((p) => [p, input.shape?.[p] ?? z.string()]))) : undefined;
  const rest = method === 'GET' && input.shape ? input.omit(inPath as never) : undefined;
  return { ...(path && { path }), ...(rest && Object.keys(rest.shape).length && { query: rest }) };
}

function operation(route: Route, method: 'GET' | 'POST', path: string): ZodOpenApiOperationObject {
  const suffix = path === route.path ? '' : '-statutes';
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const shape = (route.input as unknown as z.ZodObject).shape ?? {};
  const hasParams = Object.keys(shape).length > 0;
  return {
    operationId: `${route.id}${suffix}${route.methods.length > 1 ? `-${method.toLowerCase()}` : ''}`,
    summary: route.summary,
    ...(route.description && { description: route.description }),
    tags: [route.tag],
    ...(route.auth.kind === 'bearer' ? { security: [{ bearer: [] }] } : { security: [] }),
    ...((pathParams.length || (hasParams && method === 'GET')) && { requestParams: requestParams(route, method, pathParams) }),
    ...(hasParams && method === 'POST' && { requestBody: { content: { 'application/json': { schema: route.input } } } }),
    responses: withErrors(route, errorResponses(route, method), {
      ...Object.fromEntries(
        Object.entries(route.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...((route.auth.kind === 'bearer' || route.responseHeaders) && {
              headers: {
                ...(route.auth.kind === 'bearer' && {
                  RateLimit: { schema: { type: 'string' as const }, description: 'remaining quota (IETF httpapi draft)' },
                  'RateLimit-Policy': { schema: { type: 'string' as const }, description: 'quota windows (IETF httpapi draft)' },
                }),
                ...Object.fromEntries(
                  Object.entries(route.responseHeaders ?? {}).map(([name, description]) => [
                    name,
                    { schema: { type: 'string' as const }, description },
                  ]),
                ),
              },
            }),
            content: { 'application/json': { schema: RESPONSE_SCHEMAS[r.schema] } },
          },
        ]),
      ),
    }),
  };
}

/** The OpenAPI 3.1 document of the routes: generated, never hand-edited. */
export function buildOpenApi(routes: readonly Route[], options: OpenApiOptions) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    if (route.hidden) continue;
    for (const path of pathsOf(route)) {
      const item: Record<string, ZodOpenApiOperationObject> = {};
      for (const method of route.methods) item[method.toLowerCase()] = operation(route, method, path);
      paths[path] = item;
    }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'asof — point-in-time US law API',
      version: options.version,
      description:
        'What did the law say on a date, with provenance. A lookup never returns a nearest guess: nothing in force on that date is a 404. ' +
        'Every /law/* path is also served at /statutes/*. Content is an unofficial copy of government-published law.',
    },
    servers: [{ url: options.serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key: asof_live_… or asof_test_…' } },
      schemas: {
        Error: ErrorEnvelopeSchema,
        TransportError: {
          description: `Any request, whatever its path and method, may be refused before an operation reads it: ${TRANSPORT_ERRORS.map((c) => `${c} (${ERROR_STATUS[c]})`).join(', ')}.`,
          ...envelopeOf(TRANSPORT_ERRORS),
        },
      },
    },
    paths,
  });
}

export const openApiYaml = (doc: object): string => stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
