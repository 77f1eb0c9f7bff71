/**
 * The input middleware on its own, with the routes' real schemas and codes: what is refused before validation (a
 * body over 1 MiB as a function receives it, a parameter given twice, a NUL character, an empty optional value),
 * and how zod's issues become the spec's codes and a message that says what was expected and what was given.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { malformedCode, shown } from '#http/middlewares/input-errors.ts';
import { parseInput } from '#http/middlewares/parse-input.ts';
import type { HttpRequest } from '#http/middlewares/types.ts';
import type { Route } from '#http/route.ts';
import { caselawCase, caselawCitations } from '#http/routes/caselaw.ts';
import { lawFormat } from '#http/routes/formats.ts';
import { lawLookup, lawSearch } from '#http/routes/law.ts';
import { lawQuality } from '#http/routes/ops.ts';
import { AppError } from '#shared/errors.ts';

interface Call {
  method?: 'GET' | 'POST';
  query?: Record<string, string | string[]>;
  body?: string;
  base64?: boolean;
  path?: Record<string, string>;
}

/** The event API Gateway hands a function (multi-value query parameters included), through the route's middleware. */
function parse(route: Route, call: Call): unknown {
  const multi = Object.fromEntries(Object.entries(call.query ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
  const event = {
    httpMethod: call.method ?? 'GET',
    queryStringParameters: Object.keys(multi).length ? Object.fromEntries(Object.entries(multi).map(([k, v]) => [k, v.at(-1)!])) : null,
    multiValueQueryStringParameters: Object.keys(multi).length ? multi : null,
    pathParameters: call.path ?? null,
    body: call.body ?? null,
    isBase64Encoded: call.base64 ?? false,
    headers: {},
  } as unknown as APIGatewayProxyEvent;
  const request = {
    event,
    context: { http: { requestId: 'r', principal: null, input: undefined, admission: null } },
  } as unknown as HttpRequest;
  parseInput({ schema: route.input, ...(route.fieldCodes && { fieldCodes: route.fieldCodes }) }).before(request);
  return request.context.http.input;
}

/** The refusal as the envelope shows it: code, field, message. */
function refusal(route: Route, call: Call): [string, unknown, string] {
  try {
    parse(route, call);
  } catch (err) {
    if (err instanceof AppError) return [err.code, err.details.field, err.message];
    throw err;
  }
  throw new Error('accepted');
}

const json = (value: unknown) => ({ method: 'POST' as const, body: JSON.stringify(value) });

describe('before validation', () => {
  it('refuses a body over 1 MiB as a function receives it (API Gateway passes up to 10 MB), base64 or not', () => {
    const over = JSON.stringify({ text: 'x'.repeat(1024 * 1024) });

    expect(refusal(caselawCitations, { method: 'POST', body: over })[0]).toBe('too_large');
    expect(refusal(caselawCitations, { method: 'POST', body: Buffer.from(over).toString('base64'), base64: true })[0]).toBe('too_large');
  });

  it('refuses a parameter the route reads given twice, in the query string or in two places, and ignores one it does not read', () => {
    expect(refusal(lawLookup, { query: { jurisdiction: 'us', citation: ['1-1', '1-2'] } })).toEqual([
      'bad_parameter',
      'citation',
      'citation is given 2 times in the query string: give it once.',
    ]);
    expect(refusal(lawLookup, { ...json({ jurisdiction: 'us', citation: '1-1' }), query: { jurisdiction: 'dc' } })[1]).toBe('jurisdiction');
    expect(refusal(caselawCase, { path: { clusterId: '1' }, query: { clusterId: '2' } })).toEqual([
      'bad_id',
      'clusterId',
      'clusterId is given both in the query string and in the path: give it once.',
    ]);
    expect(parse(lawLookup, { query: { jurisdiction: 'us', citation: '1-1', utm: ['a', 'b'] } })).toEqual({
      jurisdiction: 'us',
      citation: '1-1',
    });
  });

  it('reads a body’s `__proto__` as a parameter of that name (ignored), never as the prototype of the parameters', () => {
    expect(refusal(lawLookup, { method: 'POST', body: '{"__proto__":{"jurisdiction":"us","citation":"1-1"}}' })[0]).toBe('missing_fields');
  });

  it('refuses a NUL character at any depth, naming where it is, with the field’s own code when it has one', () => {
    expect(refusal(caselawCitations, json({ citations: ['1 U.S. 1', { volume: '1', reporter: 'U.\u0000S.', page: '1' }] }))).toEqual([
      'bad_parameter',
      'citations',
      "citations[1].reporter contains a NUL character (U+0000), which no parameter may hold (got 'U.\u0000S.').",
    ]);
    expect(refusal(lawSearch, { query: { q: 'law', asOf: '2024-01-01\u0000' } }).slice(0, 2)).toEqual(['bad_as_of', 'asOf']);
    expect(parse(lawLookup, { query: { jurisdiction: 'us', citation: '1-1', ignored: '\u0000' } })).toEqual({
      jurisdiction: 'us',
      citation: '1-1',
    });
  });

  it('finds the first NUL in document order at the deepest level a body may have, without recursing', () => {
    const deep = (depth: number, leaf: unknown): unknown => {
      let value = leaf;
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    const [code, field, message] = refusal(
      caselawCitations,
      json({ citations: [{ volume: deep(60, 'a'), reporter: deep(60, '\u0000'), page: '\u0000' }] }),
    );
    expect([code, field]).toEqual(['bad_parameter', 'citations']);
    expect(message).toMatch(/^citations\[0\]\.reporter(\[0\]){60} contains a NUL character/);
  });

  it('refuses a body too deep or too wide before building it: bad_json naming the limit and the parameter', () => {
    const nested = `{"jurisdiction":"us","citation":${'['.repeat(6_000)}"x"${']'.repeat(6_000)}}`;
    expect(refusal(lawLookup, { method: 'POST', body: nested })).toEqual([
      'bad_json',
      'citation',
      'The request body holds arrays and objects nested more than 64 levels deep (in citation); at most 64 levels are read.',
    ]);
    const keys = JSON.stringify({
      jurisdiction: 'us',
      citation: '1-1',
      ...Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, 0])),
    });
    expect(refusal(lawLookup, { method: 'POST', body: keys })).toEqual([
      'bad_json',
      undefined,
      'The request body holds an object of more than 1,000 members; at most 1,000 members of an object are read.',
    ]);
    expect(parse(lawLookup, json({ jurisdiction: 'us', citation: '1-1', unread: { x: Array(9_000).fill(0) } }))).toEqual({
      jurisdiction: 'us',
      citation: '1-1',
    });
  });

  it('refuses citations past 250 by their number, before any item is validated: too_many', () => {
    const items = (n: number) => json({ citations: Array.from({ length: n }, () => ({ volume: null })) });
    expect(refusal(caselawCitations, items(251))).toEqual([
      'too_many',
      'citations',
      'citations must be at most 250 items (got 251 items).',
    ]);
    expect(refusal(caselawCitations, items(20_000))).toEqual([
      'too_many',
      'citations',
      'citations must be at most 250 items (got more than 10,000 items).',
    ]);
    // Within the number, an item is judged as before: bad_parameter, naming it.
    expect(refusal(caselawCitations, items(250)).slice(0, 2)).toEqual(['bad_parameter', 'citations']);
  });

  it('never takes an empty value for a value: missing when required, refused by name when optional', () => {
    expect(refusal(lawLookup, { query: { jurisdiction: ' ', citation: '1-1' } })[0]).toBe('missing_fields');
    expect(refusal(lawFormat, { query: { jurisdiction: 'us', court: '' } })).toEqual([
      'bad_parameter',
      'court',
      'court is empty: give a value, or leave the parameter out for its default.',
    ]);
    expect(refusal(lawSearch, json({ q: 'law', limit: null })).slice(0, 2)).toEqual(['bad_limit', 'limit']);
    // One of two alternatives: an empty text is no text.
    expect(refusal(caselawCitations, json({ text: '  ' }))).toEqual([
      'missing_fields',
      undefined,
      'Missing required parameter(s): text or citations.',
    ]);
  });
});

describe('zod issues as the spec’s codes', () => {
  it('gives a field with no code of its own bad_parameter, and text of the wrong type is not too_large', () => {
    expect(refusal(caselawCitations, json({ text: 123 }))).toEqual(['bad_parameter', 'text', 'text must be a string (got 123).']);
    expect(refusal(caselawCitations, json({ text: 'x'.repeat(64_001) }))[0]).toBe('too_large');
    expect(refusal(lawSearch, json({ q: ['law'] }))).toEqual(['bad_parameter', 'q', 'q must be a string (got ["law"]).']);
  });

  it('says what each alternative of a union is, or goes to the field of the alternative the value was meant as', () => {
    expect(refusal(lawQuality, { query: { history: 'maybe' } })[2]).toBe(
      "history must be a boolean or one of 0, 1, true, false, yes, no (got 'maybe').",
    );
    expect(refusal(caselawCitations, json({ citations: [{ volume: 1, reporter: 'U.S.' }] }))[2]).toBe(
      'citations[0].page must be a string or a number (got nothing).',
    );
  });

  it('refuses ids and numbers above 2^53 − 1, which would be rounded to others', () => {
    expect(refusal(caselawCase, { path: { clusterId: '9007199254740992' } })[0]).toBe('bad_id');
    expect(parse(caselawCase, { path: { clusterId: '9007199254740991' } })).toEqual({ clusterId: 9007199254740991 });
    expect(refusal(caselawCitations, json({ citations: [{ volume: 2 ** 60, reporter: 'U.S.', page: 1 }] }))[2]).toBe(
      'citations[0].volume must be at most 9,007,199,254,740,991 (got 1152921504606847000).',
    );
  });

  it('keeps the spec’s missing_fields for both text and citations given', () => {
    expect(refusal(caselawCitations, json({ text: '1 U.S. 1', citations: [] }))).toEqual([
      'missing_fields',
      'citations',
      'Give either text or citations, not both.',
    ]);
  });
});

describe('quoting an input', () => {
  it('quotes strings, shows other values as JSON, and cuts either at 60 characters, saying how long it was', () => {
    expect(shown('abc')).toBe("'abc'");
    expect(shown(undefined)).toBe('nothing');
    expect(shown({ a: [1] })).toBe('{"a":[1]}');
    expect(shown('y'.repeat(100_000))).toBe(`'${'y'.repeat(60)}…' (100,000 characters)`);
    expect(shown(Array(100).fill(1))).toBe(`${JSON.stringify(Array(100).fill(1)).slice(0, 60)}… (201 characters)`);
  });

  it('gives a field its own bad_ code, and every other field bad_parameter', () => {
    expect([malformedCode('asOf', { asOf: 'bad_as_of' }), malformedCode('q', { q: 'missing_fields' }), malformedCode('x')]).toEqual([
      'bad_as_of',
      'bad_parameter',
      'bad_parameter',
    ]);
  });
});
