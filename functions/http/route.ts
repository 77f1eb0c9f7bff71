import type { z } from 'zod';
import type { Scope } from '#accounts/authenticate.ts';
import type { ApiKeyRecord } from '#accounts/ports.ts';
import type { Services } from '#app/services.ts';
import type { ErrorCode } from '#shared/errors.ts';
import type { ResponseSchemaId } from './schemas-responses.ts';

export type Method = 'GET' | 'POST';

/**
 * A store a route's handler uses, beyond the keys and meters every route uses to authenticate and bill: a deployed
 * function is wired to these and granted nothing else. `formats` reads the filing-format records (kept in the ops
 * table); `ops` reads and writes operational state; `fallback` is the paid case-law provider.
 */
export const ROUTE_STORES = ['versions', 'search', 'caselaw', 'formats', 'ops', 'fallback'] as const;
export type RouteStore = (typeof ROUTE_STORES)[number];

export interface RouteContext {
  services: Services;
  /** The authenticated key (metered routes), or the key a public call carried, or null. */
  principal: ApiKeyRecord | null;
  requestId: string;
  pathParameters: Record<string, string>;
  /** The request's headers, names lowercased (the MCP endpoint hands them to the protocol's transport). */
  headers: Record<string, string>;
  /** The POST body's text for a route that reads its body itself (`body: 'own'`); empty for every other route. */
  body: string;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Serialization: JSON (default), or a pre-rendered text body with its content type. */
  contentType?: string;
}

export interface RouteResponse {
  description: string;
  /**
   * The resource answered, by its OpenAPI component id (schemas-responses.ts): only the document is built from the
   * schemas, so a function serving the route never loads them.
   */
  schema: ResponseSchemaId;
}

/** One endpoint: the single source the local server, the Lambda functions, the API Gateway and OpenAPI are built from. */
export interface Route<I extends z.ZodType = z.ZodType> {
  /** Stable id: names the Lambda function and the OpenAPI operation. */
  id: string;
  methods: readonly Method[];
  /** Path below the base URL (`/v1`); `{name}` marks a path parameter. `/law/*` paths are also served at `/statutes/*`. */
  path: string;
  /** What the handler reads or writes (see RouteStore). */
  stores: readonly RouteStore[];
  /** Shared data files the handler reads from disk (in AWS, Lambda layers): `reporters-db` for the citation extractor. */
  assets?: readonly 'reporters-db'[];
  auth: { kind: 'public' } | { kind: 'bearer'; scope: Scope };
  /**
   * Units billed per admitted call (0: a public route), or a function of the validated input for a call whose size
   * is known only once parsed (citation resolution bills one unit per citation): the meter then admits it after
   * validation, reserving exactly that many units.
   */
  units: number | ((input: z.output<I>) => number);
  input: I;
  /**
   * `'own'`: the handler reads the POST body itself (the MCP endpoint: JSON-RPC answers a malformed message with its
   * own errors); no parameter is read from the query string or the body, and `input` only documents the body.
   */
  body?: 'own';
  /** The error code for an invalid value of each field; a missing required field is always `missing_fields`. */
  fieldCodes?: Partial<Record<string, ErrorCode>>;
  summary: string;
  description?: string;
  tag: string;
  responses: Record<number, RouteResponse>;
  /** Error codes this route can answer with, beyond the shared ones of its auth kind (for OpenAPI). */
  errors: readonly ErrorCode[];
  /** Response headers particular to this route, by name, with what they say (for OpenAPI). */
  responseHeaders?: Record<string, string>;
  /** Kept out of the OpenAPI document (the spec files themselves). */
  hidden?: boolean;
  handle(input: z.output<I>, ctx: RouteContext): Promise<RouteResult>;
}

export const defineRoute = <I extends z.ZodType>(route: Route<I>): Route<I> => route;

/** The paths a route answers on: `/law/…` routes also at `/statutes/…`. */
export const pathsOf = (route: Pick<Route, 'path'>): string[] =>
  route.path.startsWith('/law/') ? [route.path, route.path.replace(/^\/law\//, '/statutes/')] : [route.path];
