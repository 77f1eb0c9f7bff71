import type { z } from 'zod';
import { AppError } from '#shared/errors.ts';
import { thousands } from '#shared/thousands.ts';
import { MAX_BODY_BYTES } from '../input-limits.ts';
import { JsonLimitError, readJson } from '../json-reader.ts';
import { type FieldCodes, isEmpty, malformedCode, pathName, shown, toInputError, valueAt } from './input-errors.ts';
import type { HttpRequest } from './types.ts';

export interface ParseInputOptions {
  schema: z.ZodType;
  /** Error code per field for an invalid value; a missing or empty required field is `missing_fields`. */
  fieldCodes?: FieldCodes;
  /**
   * The route reads its POST body itself (the MCP endpoint, whose protocol answers a malformed message with errors of
   * its own): no parameter is read from the query string or the body; the body's text, its size checked, is handed on.
   */
  ownBody?: boolean;
}

type Event = HttpRequest['event'];

/** A POST body's text, refused past 1 MiB (API Gateway lets 10 MB through); empty when there is none. */
function bodyText(event: Event): string {
  if (event.httpMethod !== 'POST' || !event.body) return '';
  const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes > MAX_BODY_BYTES) {
    throw new AppError('too_large', `Request bodies are limited to ${thousands(MAX_BODY_BYTES)} bytes (got ${thousands(bytes)}).`);
  }
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** The most items each array parameter may hold, from its schema (`z.array(…).max(n)`): checked before any item is. */
export type ItemLimits = ReadonlyMap<string, number>;

/**
 * `citations must be at most 250 items (got 200,000 items).`: `too_many`, the spec's code for more items than a
 * request may hold, with the limit and the count when it is known (`{citations: 200000, limit: 250}`).
 */
function tooManyItems(name: string, max: number, count: number | undefined, atLeast = 0): AppError {
  const given = count === undefined ? `more than ${thousands(atLeast)}` : thousands(count);
  return new AppError('too_many', `${name} must be at most ${thousands(max)} items (got ${given} items).`, {
    field: name,
    ...(count !== undefined && { [name]: count }),
    limit: max,
  });
}

/**
 * The body's JSON object, read within the shape limits (json-reader.ts) before anything is built from it: too deep or
 * too wide is bad_json naming the limit, except an array parameter past the reader's item limit, which is refused
 * as that parameter too long (`too_many`, as it would be with fewer items).
 */
function bodyOf(event: Event, itemLimits: ItemLimits): Record<string, unknown> {
  const text = bodyText(event);
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = readJson(text);
  } catch (err) {
    if (!(err instanceof JsonLimitError)) throw new AppError('bad_json', 'The request body is not valid JSON.');
    const max = err.field === undefined ? undefined : itemLimits.get(err.field);
    if (err.limit === 'arrayItems' && err.depth === 2 && max !== undefined) {
      throw tooManyItems(err.field!, max, undefined, err.max);
    }
    throw new AppError('bad_json', `The request body holds ${err.message}.`, { ...(err.field !== undefined && { field: err.field }) });
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
  itemLimits: ItemLimits = new Map(),
): Record<string, unknown> {
  const { event } = request;
  const sources: Array<[string, Record<string, unknown>]> = [
    ['the query string', { ...(event.queryStringParameters ?? {}) }],
    ['the body', bodyOf(event, itemLimits)],
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

/**
 * Where a NUL character (U+0000) sits in a value, or null. PostgreSQL's text cannot hold one, and no law or citation
 * has one. Depth first with a stack of its own, in document order, so that no value, however deep, can overflow the
 * call stack (the reader bounds a body's depth too).
 */
function nulAt(value: unknown, path: PropertyKey[]): PropertyKey[] | null {
  const stack: Array<[unknown, PropertyKey[]]> = [[value, path]];
  while (stack.length > 0) {
    const [current, at] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return at;
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push([inner, [...at, Array.isArray(current) ? Number(key) : key]]);
      }
    }
  }
  return null;
}

/** Refuses a NUL character anywhere in a parameter, naming the parameter (before any store sees the value). */
function refuseNul(params: Record<string, unknown>, fieldCodes: FieldCodes, known: (name: string) => boolean): void {
  for (const [name, value] of Object.entries(params)) {
    // A string (every query-string parameter) is looked at directly; only a body's objects and arrays are walked.
    if (typeof value === 'string' && !value.includes('\u0000')) continue;
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
  const itemLimits = new Map(
    Object.entries(shape ?? {}).flatMap(([name, field]) => {
      const max = maxItemsOf(field);
      return max === undefined ? [] : [[name, max] as const];
    }),
  );
  return { known: (name: string) => !shape || Object.hasOwn(shape, name), optional, itemLimits };
}

interface ZodInternals {
  _zod: { def: { type: string; innerType?: z.ZodType; checks?: Array<{ _zod: { def: { check: string; maximum?: number } } }> } };
}

/** The `max` of an array schema (through optional, nullable, default), or undefined. */
function maxItemsOf(schema: z.ZodType): number | undefined {
  let def = (schema as unknown as ZodInternals)._zod.def;
  while (def.innerType && ['optional', 'nullable', 'default', 'prefault'].includes(def.type)) {
    def = (def.innerType as unknown as ZodInternals)._zod.def;
  }
  if (def.type !== 'array') return undefined;
  return def.checks?.find((c) => c._zod.def.check === 'max_length')?._zod.def.maximum;
}

/** An array parameter longer than its schema's `max` is refused by its length, before any of its items is validated. */
function refuseLongArrays(params: Record<string, unknown>, itemLimits: ItemLimits): void {
  for (const [name, max] of itemLimits) {
    const value = params[name];
    if (Array.isArray(value) && value.length > max) throw tooManyItems(name, max, value.length);
  }
}

export function parseInput(opts: ParseInputOptions) {
  const { schema, fieldCodes = {}, ownBody = false } = opts;
  const { known, optional, itemLimits } = fieldsOf(schema);
  const parseInputMiddlewareBefore = (request: HttpRequest): void => {
    if (ownBody) {
      request.context.http.body = bodyText(request.event);
      request.context.http.input = {};
      return;
    }
    const params = rawParams(request, fieldCodes, known, itemLimits);
    refuseLongArrays(params, itemLimits);
    refuseNul(params, fieldCodes, known);
    // An empty value is never taken for a value: a required field that is empty is missing; an optional one is left
    // out for validation (so that one of two alternatives, `text` or `citations`, is reported missing), then refused.
    const empty = Object.keys(params).filter((name) => optional.has(name) && isEmpty(params[name]));
    const given = empty.length === 0 ? params : Object.fromEntries(Object.entries(params).filter(([name]) => !empty.includes(name)));
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
