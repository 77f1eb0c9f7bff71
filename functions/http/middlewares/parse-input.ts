import type { z } from 'zod';
import { CORPORA } from '#law/model.ts';
import { AppError, type ErrorCode } from '#shared/errors.ts';
import type { HttpRequest } from './types.ts';

export interface ParseInputOptions {
  schema: z.ZodType;
  /** Error code per field for an invalid value; a missing or empty required field is `missing_fields`. */
  fieldCodes?: Partial<Record<string, ErrorCode>>;
}

/** GET parameters from the query string, POST parameters from a JSON object body; one schema validates both. */
export function rawParams(request: Pick<HttpRequest, 'event'>): Record<string, unknown> {
  const { event } = request;
  const params: Record<string, unknown> = { ...(event.queryStringParameters ?? {}) };
  if (event.httpMethod === 'POST' && event.body && event.body.trim() !== '') {
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
    Object.assign(params, body);
  }
  // A path parameter is part of the resource: it wins over a query or body field of the same name.
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) if (value !== undefined) params[name] = value;
  return params;
}

/** What a valid value looks like, per error code, for the message. */
const EXPECTED: Partial<Record<ErrorCode, string>> = {
  bad_as_of: 'a calendar date written YYYY-MM-DD',
  bad_corpus: `one of ${CORPORA.join(', ')}`,
  bad_limit: 'a positive integer',
  bad_level: 'one of the four court levels',
  bad_fallback: "'none' or 'courtlistener'",
  bad_id: 'a positive integer',
  too_large: 'at most 64,000 characters',
};

const isMissing = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** Map zod's issues to the spec's codes: missing fields first (all of them named), then the first invalid field. */
export function toInputError(
  issues: readonly z.core.$ZodIssue[],
  params: Record<string, unknown>,
  fieldCodes: ParseInputOptions['fieldCodes'] = {},
): AppError {
  const fields = issues.map((i) => String(i.path[0] ?? ''));
  const missing = [...new Set(fields.filter((f) => isMissing(params[f]) && !fieldCodes[f]?.startsWith('bad_')))];
  if (missing.length) return new AppError('missing_fields', `Missing required parameter(s): ${missing.join(', ')}.`, { fields: missing });
  const field = fields[0]!;
  const code = fieldCodes[field] ?? 'missing_fields';
  // A schema's own check (a refinement) of a code with no stock wording says in its message what is wrong.
  if (issues[0]!.code === 'custom' && !EXPECTED[code]) return new AppError(code, issues[0]!.message, { field });
  const got = params[field];
  const shown = typeof got === 'string' ? `'${got.length > 60 ? `${got.slice(0, 60)}…` : got}'` : JSON.stringify(got);
  const expected = EXPECTED[code] ?? issues[0]!.message.replace(/^Invalid input: /, '');
  return new AppError(code, `${field || 'input'} must be ${expected} (got ${shown}).`, { field });
}

export function parseInput(opts: ParseInputOptions) {
  const { schema, fieldCodes } = opts;
  const parseInputMiddlewareBefore = (request: HttpRequest): void => {
    const params = rawParams(request);
    const result = schema.safeParse(params);
    if (!result.success) throw toInputError(result.error.issues, params, fieldCodes);
    request.context.http.input = result.data;
  };
  return { before: parseInputMiddlewareBefore };
}
