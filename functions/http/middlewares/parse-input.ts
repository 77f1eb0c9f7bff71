import type { z } from 'zod';
import { AppError } from '#shared/errors.ts';
import { thousands } from '#shared/thousands.ts';
import { MAX_BODY_BYTES } from '../input-limits.ts';
import { type FieldCodes, isEmpty, malformedCode, pathName, shown, toInputError, valueAt } from './input-errors.ts';
import type { HttpRequest } from './types.ts';

export interface ParseInputOptions {
  schema: z.ZodType;
  /** Error code per field for an invalid value; a missing or empty required field is `missing_fields`. */
  fieldCodes?: FieldCodes;
}

type Event = HttpRequest['event'];

function bodyOf(event: Event): Record<string, unknown> {
  if (event.httpMethod !== 'POST' || !event.body || event.body.trim() === '') return {};
  const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes > MAX_BODY_BYTES) {
    throw new AppError('too_large', `Request bodies are limited to ${thousands(MAX_BODY_BYTES)} bytes (got ${thousands(bytes)}).`);
  }
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('bad_json', 'The request body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('bad_json', 'The request body must be a JSON object of parameters.');
  }
  return body as Record<string, unknown>;
}

/**
 * GET parameters from the query string, POST parameters from a JSON object body (and its query string); one schema
 * validates both. A parameter is given once: twice in the query string, or in two places, is refused rather than
 * one of the values silently chosen.
 */
function rawParams(
  request: Pick<HttpRequest, 'event'>,
  fieldCodes: FieldCodes = {},
  known: (name: string) => boolean = () => true,
): Record<string, unknown> {
  const { event } = request;
  const sources: Array<[string, Record<string, unknown>]> = [
    ['the query string', { ...(event.queryStringParameters ?? {}) }],
    ['the body', bodyOf(event)],
    ['the path', { ...(event.pathParameters ?? {}) }],
  ];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if ((values?.length ?? 0) > 1 && known(name)) {
      throw new AppError(malformedCode(name, fieldCodes), `${name} is given ${values!.length} times in the query string: give it once.`, {
        field: name,
      });
    }
  }
  // A Map, then own properties: a body's `__proto__` stays a parameter of that name, never the object's prototype.
  const params = new Map<string, unknown>();
  const from = new Map<string, string>();
  for (const [source, values] of sources) {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (from.has(name) && known(name)) {
        throw new AppError(malformedCode(name, fieldCodes), `${name} is given both in ${from.get(name)} and in ${source}: give it once.`, {
          field: name,
        });
      }
      params.set(name, value);
      from.set(name, source);
    }
  }
  return Object.fromEntries(params);
}

/** Where a NUL character (U+0000) sits in a value, or null. PostgreSQL's text cannot hold one, and no law or citation has one. */
function nulAt(value: unknown, path: PropertyKey[]): PropertyKey[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = nulAt(inner, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return null;
}

/** Refuses a NUL character anywhere in a parameter, naming the parameter (before any store sees the value). */
function refuseNul(params: Record<string, unknown>, fieldCodes: FieldCodes, known: (name: string) => boolean): void {
  for (const [name, value] of Object.entries(params)) {
    const path = known(name) ? nulAt(value, [name]) : null;
    if (!path) continue;
    throw new AppError(
      malformedCode(name, fieldCodes),
      `${pathName(path)} contains a NUL character (U+0000), which no parameter may hold (got ${shown(valueAt(params, path))}).`,
      { field: name },
    );
  }
}

/**
 * The parameters an object schema reads (any name when the schema is not an object), and those it lets be left out.
 * A parameter it does not read is ignored, whatever its value, as it is dropped by validation.
 */
function fieldsOf(schema: z.ZodType) {
  const shape = (schema as { shape?: Record<string, z.ZodType> }).shape;
  const optional = new Set(Object.entries(shape ?? {}).flatMap(([name, field]) => (field.safeParse(undefined).success ? [name] : [])));
  return { known: (name: string) => !shape || Object.hasOwn(shape, name), optional };
}

export function parseInput(opts: ParseInputOptions) {
  const { schema, fieldCodes = {} } = opts;
  const { known, optional } = fieldsOf(schema);
  const parseInputMiddlewareBefore = (request: HttpRequest): void => {
    const params = rawParams(request, fieldCodes, known);
    refuseNul(params, fieldCodes, known);
    // An empty value is never taken for a value: a required field that is empty is missing; an optional one is left
    // out for validation (so that one of two alternatives, `text` or `citations`, is reported missing), then refused.
    const empty = Object.keys(params).filter((name) => optional.has(name) && isEmpty(params[name]));
    const given = Object.fromEntries(Object.entries(params).filter(([name]) => !empty.includes(name)));
    const result = schema.safeParse(given);
    if (!result.success) throw toInputError(result.error.issues, given, fieldCodes);
    const [blank] = empty;
    if (blank !== undefined) {
      throw new AppError(
        malformedCode(blank, fieldCodes),
        `${blank} is ${params[blank] === null ? 'null' : 'empty'}: give a value, or leave the parameter out for its default.`,
        { field: blank },
      );
    }
    request.context.http.input = result.data;
  };
  return { before: parseInputMiddlewareBefore };
}
