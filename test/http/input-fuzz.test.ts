/**
 * Every bad input gets a documented code, never a 5xx. Requests are generated from the served OpenAPI document, over
 * every path and method it lists, each carrying one class of bad input (NUL and other control characters, malformed
 * percent-encoding, wrong JSON types, numbers above 2^53, very long strings, empty optional parameters, a parameter
 * given twice, bodies just under and just over 1 MiB, broken headers), and sent byte for byte over a socket to a real
 * local server of this file's own (the bundled sample, metered, its clock injected so that no ceiling is met).
 *
 * Each answer: below 500 (a 503 only with a code the operation documents, and Retry-After); x-request-id and nosniff;
 * for an error, the envelope with a code the document lists for that operation and status, or one of the transport's
 * (`TransportError`), a message that quotes at most a short prefix of the input; and no unit billed unless the call
 * was answered (2xx, or the 404s that are answers). fast-check with a fixed seed: the same requests on every run.
 *
 * Not generated here: searches of tens of thousands of terms, which the search `q` limits (another change) refuse;
 * on PGlite such a search answers, but leaves the instance unable to answer after its next failed statement, which
 * would stall every later request of this file rather than fail one.
 */
import { Buffer } from 'node:buffer';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { windowsAt } from '#accounts/windows.ts';
import { ERROR_STATUS } from '#http/error-status.ts';
import { MAX_BODY_BYTES } from '#http/input-limits.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import type { ErrorCode } from '#shared/errors.ts';
import { type RawReply, rawRequest } from '../support/raw-http.ts';

type Schema = Record<string, any>;
interface Param {
  name: string;
  in: 'path' | 'query' | 'body';
  required: boolean;
  schema: Schema;
}
interface Operation {
  method: 'GET' | 'POST';
  path: string;
  params: Param[];
  bearer: boolean;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

/** A request as it will be written: raw path segments, raw query pieces, raw JSON texts of body fields. */
interface Draft {
  op: Operation;
  segments: Record<string, string>;
  /** Encoded `name`, encoded `value`. */
  query: Array<[string, string]>;
  /** Field name, raw JSON text of its value. */
  body: Array<[string, string]>;
  /** Replaces the body built from `body` (a body of an exact size). */
  rawBody?: string;
  headers: Record<string, string>;
  /** Replaces the path built from the operation's (a malformed static segment). */
  rawPath?: string;
  /** What the class itself says of the answer, beyond what every answer must be. */
  expected?: (reply: RawReply, where: string) => void;
}

/** A refusal of the input: 400 naming the parameter (or, for an empty value, reporting it missing). */
const refusedNaming = (name: string) => (reply: RawReply, where: string) => {
  expect(reply.status, where).toBe(400);
  if (reply.json.error.code !== 'missing_fields') expect(reply.json.error.field, where).toBe(name);
};

const SEED = 15_2026;
const RUNS_PER_OPERATION = 3;
/** The 404s that are answers, billed as such (docs/DECISIONS.md, Plans, units and limits). */
const BILLED_404: readonly string[] = ['not_carried', 'no_edition_on_file', 'not_found'];
/** No message is longer, however long the input (the longest lists the filing-format records that exist). */
const MAX_MESSAGE_CHARS = 1_000;

let server: LocalServer;
let clock = new Date('2026-11-24T12:00:00Z');
let key: string;
let keyId: string;
let operations: Operation[];
let transportCodes: string[];
const validators = new Map<string, (body: unknown) => boolean>();
let ajv: InstanceType<typeof Ajv2020.default>;

beforeAll(async () => {
  server = await serveLocal({ dataDir: null, port: 0, sample: true, schedules: false, now: () => clock });
  const issued = await issueKey(
    server.stores.accounts,
    { name: 'input fuzz', limits: { perMinute: 120, daily: 1_000_000, monthly: 10_000_000 } },
    clock,
  );
  key = issued.key;
  keyId = issued.id;
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Schema;
  operations = operationsOf(doc);
  transportCodes = doc.components.schemas.TransportError.allOf[1].properties.error.properties.code.enum;
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'asof', components: doc.components });
}, 180_000);
afterAll(() => server?.close());

function operationsOf(doc: Schema): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const params: Param[] = (op.parameters ?? []).map((p: Schema) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: p.schema,
      }));
      const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      for (const [name, schema] of Object.entries((body?.properties ?? {}) as Record<string, Schema>)) {
        params.push({ name, in: 'body', required: (body?.required ?? []).includes(name), schema });
      }
      return {
        method: method.toUpperCase() as Operation['method'],
        path,
        params,
        bearer: (op.security ?? []).length > 0,
        responses: op.responses,
      };
    }),
  );
}

/** A valid-looking value of a parameter, from the document: its example, its first allowed value, or one of its type. */
function exampleOf(schema: Schema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return exampleOf(alternatives[0]);
  if (schema.type === 'integer' || schema.type === 'number') return 5;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [exampleOf(schema.items ?? {})];
  return 'x';
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const enc = encodeURIComponent;

/** The request with the required parameters and the chosen optional ones at their examples. */
function baseDraft(op: Operation, optional: boolean[]): Draft {
  const draft: Draft = { op, segments: {}, query: [], body: [], headers: { authorization: `Bearer ${key}` } };
  op.params.forEach((p, i) => {
    if (!p.required && !optional[i]) return;
    const value = exampleOf(p.schema);
    if (p.in === 'path') draft.segments[p.name] = enc(asText(value));
    else if (p.in === 'query') draft.query.push([enc(p.name), enc(asText(value))]);
    else draft.body.push([p.name, JSON.stringify(value)]);
  });
  for (const p of op.params) if (p.in === 'path') draft.segments[p.name] ??= enc(asText(exampleOf(p.schema)));
  return draft;
}

/** A value in both forms: raw for a URL, raw JSON text for a body. */
interface Value {
  url: string;
  json: string;
}
const ofString = (s: string): Value => ({ url: enc(s), json: JSON.stringify(s) });

/** Puts `value` where `p` is read from (an unknown `x` when the operation reads nothing), replacing what was there. */
function put(draft: Draft, p: Param | undefined, value: Value): void {
  const target = p ?? { name: 'x', in: draft.op.method === 'POST' ? 'body' : 'query', required: false, schema: {} };
  if (target.in === 'path') draft.segments[target.name] = value.url;
  else if (target.in === 'query') draft.query = [...draft.query.filter(([n]) => n !== enc(target.name)), [enc(target.name), value.url]];
  else {
    const json = target.schema.type === 'array' && !value.json.startsWith('[') ? `[${value.json}]` : value.json;
    draft.body = [...draft.body.filter(([n]) => n !== target.name), [target.name, json]];
  }
}

/** Inserts `piece` into the parameter's example string at a chosen position. */
const spliced = (p: Param | undefined, piece: string) =>
  fc.nat().map((n) => {
    const example = p ? asText(exampleOf(p.schema)) : 'x';
    const at = n % (example.length + 1);
    return `${example.slice(0, at)}${piece}${example.slice(at)}`;
  });

const CONTROL = ['\u0001', '\u0007', '\b', '\t', '\n', '\u000b', '\f', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\u2028', '\ufeff'];
const BAD_ESCAPES = ['%ZZ', '%E0%A4%A', '%C0%AF', '%', '%2', '%ED%A0%80', '%F4%90%80%80', '%FF', '%C0%80', '%00', '%%41'];
const BIG_NUMBERS = [
  '9007199254740992',
  '9007199254740993',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e308',
  '1e309',
  '-9007199254740993',
];

type Mutation = (draft: Draft) => void;
type BadInputClass = (op: Operation, p: Param | undefined) => fc.Arbitrary<Mutation>;

/** Each class of bad input, as a generator of changes to a valid request aimed at one parameter `p`. */
const CLASSES: Record<string, BadInputClass> = {
  'a NUL character': (_op, p) =>
    fc
      .tuple(spliced(p, '\u0000'), p?.schema.type === 'array' ? fc.boolean() : fc.constant(false))
      .map(([s, asObject]) => (draft: Draft) => {
        const value = ofString(s);
        put(draft, p, asObject ? { ...value, json: `[{"volume":${value.json},"reporter":"U.S.","page":"113"}]` } : value);
        if (p) draft.expected = refusedNaming(p.name);
      }),
  'other control characters': (_op, p) =>
    fc
      .constantFrom(...CONTROL, '\ud800')
      .chain((c) => spliced(p, c))
      .map((s) => (draft) => {
        // A lone surrogate has no URL form: it travels in JSON only, and as its (invalid) UTF-8 bytes in a URL.
        put(
          draft,
          p,
          s.includes('\ud800') ? { url: enc(s.replace('\ud800', '')).concat('%ED%A0%80'), json: JSON.stringify(s) } : ofString(s),
        );
      }),
  'malformed percent-encoding': (op, p) =>
    fc.tuple(fc.constantFrom(...BAD_ESCAPES), fc.constantFrom('value', 'name', 'path')).map(([bad, where]) => (draft) => {
      if (where === 'path') {
        draft.rawPath = `/v1${op.path.replace(/\{\w+\}/g, (m) => draft.segments[m.slice(1, -1)] ?? '1').replace(/\/([^/{]+)$/, `/$1${bad}`)}`;
      } else if (where === 'name') {
        draft.query.push([`${bad}${p?.name ?? 'x'}`, '1']);
      } else if (p?.in === 'body') {
        // Escapes live in URLs: the parameter moves from the body to the query string, malformed.
        draft.body = draft.body.filter(([n]) => n !== p.name);
        draft.query.push([enc(p.name), `${enc(asText(exampleOf(p.schema)))}${bad}`]);
      } else {
        put(draft, p, { url: `${enc(p ? asText(exampleOf(p.schema)) : 'x')}${bad}`, json: '""' });
      }
    }),
  'a wrong JSON type': (_op, p) =>
    p?.in === 'body'
      ? fc.constantFrom('123', '-1', '0', '1.5', 'true', 'false', 'null', '[]', '["x"]', '{}', '{"a":1}', '"x"').map((json) => (draft) => {
          draft.body = [...draft.body.filter(([n]) => n !== p.name), [p.name, json]];
        })
      : fc
          .constantFrom('true', '[]', '{}', '-1', '0', '1.5', 'NaN', 'Infinity', '1e3', '0x10', '%20%205', '%D9%A3')
          .map((url) => (draft) => {
            put(draft, p, { url, json: url });
          }),
  'a number above 2^53': (_op, p) =>
    fc.tuple(fc.constantFrom(...BIG_NUMBERS), fc.boolean()).map(([n, inObject]) => (draft) => {
      put(draft, p, { url: n, json: p?.schema.type === 'array' && inObject ? `[{"volume":${n},"reporter":"U.S.","page":${n}}]` : n });
    }),
  'a very long string': (_op, p) =>
    fc
      .tuple(fc.constantFrom('x', 'é', '§', '9'), fc.constantFrom(201, 4_000, 17_000, 64_001, 300_000, 1_000_000), fc.boolean())
      .map(([c, length, many]) => (draft) => {
        if (p?.schema.type === 'array' && many) {
          // As many items: past the 250 citations a request may resolve.
          draft.body = [
            ...draft.body.filter(([n]) => n !== p.name),
            [p.name, JSON.stringify(Array(Math.min(length, 5_000)).fill('410 U.S. 113'))],
          ];
          return;
        }
        // In a URL past 16 KiB the request line itself is refused; in a body past 1 MiB the body is.
        const inBody = p?.in === 'body' || (!p && draft.op.method === 'POST');
        put(draft, p, ofString(c.repeat(inBody ? length : Math.min(length, 17_000))));
        if (!inBody && length >= 17_000) draft.expected = (reply, where) => expect(reply.json.error.code, where).toBe('headers_too_large');
        if (inBody && Buffer.byteLength(c.repeat(length)) > MAX_BODY_BYTES) {
          draft.expected = (reply, where) => expect(reply.json.error.code, where).toBe('too_large');
        }
      }),
  'an empty value': (_op, p) =>
    fc.constantFrom(['', '""'], ['%20%20', '"  "'], ['+', 'null']).map(([url, json]) => (draft) => {
      put(draft, p, { url: url!, json: json! });
      // An empty path segment is another path; an empty parameter is refused, named (or reported missing).
      if (p?.in === 'path')
        draft.expected = (reply, where) => expect(reply.json.error.code, where).toBe(url === '' ? 'no_route' : 'bad_id');
      else if (p) draft.expected = refusedNaming(p.name);
    }),
  'a parameter given twice': (_op, p) =>
    fc.boolean().map((same) => (draft) => {
      const name = p?.name ?? 'x';
      const value = enc(p ? asText(exampleOf(p.schema)) : 'x');
      if (p?.in === 'query' || !p) draft.query.push([enc(name), value], [enc(name), same ? value : `${value}2`]);
      else if (p.in === 'path') draft.query.push([enc(name), value]);
      else {
        // In the body and in the query string.
        put(draft, p, { url: value, json: JSON.stringify(exampleOf(p.schema)) });
        draft.query.push([enc(name), value]);
      }
      // A parameter the operation does not read is ignored, however often it is given.
      if (p) draft.expected = refusedNaming(p.name);
    }),
  'a body just under or just over 1 MiB': (_op, p) =>
    fc.tuple(fc.integer({ min: 1, max: 64 }), fc.boolean(), fc.boolean()).map(([delta, over, inParam]) => (draft) => {
      const field = inParam && p?.in === 'body' && p.schema.type !== 'array' ? p.name : 'pad';
      const entries = draft.body.filter(([n]) => n !== field);
      const text = (pad: string) =>
        `{${[...entries, [field, JSON.stringify(pad)]].map(([n, v]) => `${JSON.stringify(n)}:${v}`).join(',')}}`;
      const size = MAX_BODY_BYTES + (over ? delta : -delta);
      draft.rawBody = text('x'.repeat(size - Buffer.byteLength(text(''))));
      // The body's own refusal names no field (a field's too_large, text over 64,000 characters, names it).
      draft.expected = (reply, where) => expect(reply.json?.error?.code === 'too_large' && !reply.json.error.field, where).toBe(over);
    }),
  'a broken header': () =>
    fc
      .constantFrom<Record<string, string>>(
        { 'x-fuzz': 'a\u0000b' },
        { authorization: `Bearer \u0001` },
        { authorization: `Bearer ${'x'.repeat(20_000)}` },
        { authorization: `Bearer ${'x'.repeat(4_000)}` },
        { authorization: 'Bearer \u00e9\u00e9' },
        { authorization: '' },
        { 'content-length': '-1' },
      )
      .map((headers) => (draft) => {
        Object.assign(draft.headers, headers);
      }),
};

/** How fast-check shows a request it reports: the request line and the body's size, not a megabyte of it. */
function shownAs(draft: Draft): string {
  const { method, target, headers, body } = requestOf(draft);
  const odd = Object.entries(headers).filter(([name, value]) => name !== 'authorization' || value !== `Bearer ${key}`);
  return `${method} ${target.length > 200 ? `${target.slice(0, 200)}… (${target.length} characters)` : target}${
    odd.length ? ` headers ${JSON.stringify(odd.map(([n, v]) => [n, v.length > 60 ? `${v.slice(0, 60)}… (${v.length})` : v]))}` : ''
  }${body === undefined ? '' : ` body ${body.length > 200 ? `${body.slice(0, 200)}… (${Buffer.byteLength(body)} bytes)` : body}`}`;
}

function requestOf(draft: Draft) {
  const path = draft.rawPath ?? `/v1${draft.op.path.replace(/\{(\w+)\}/g, (_, name: string) => draft.segments[name] ?? '')}`;
  const query = draft.query.map(([n, v]) => `${n}=${v}`).join('&');
  const body =
    draft.rawBody ??
    (draft.op.method === 'POST' || draft.body.length
      ? `{${draft.body.map(([n, v]) => `${JSON.stringify(n)}:${v}`).join(',')}}`
      : undefined);
  return {
    method: draft.op.method,
    target: query ? `${path}?${query}` : path,
    headers: draft.headers,
    ...(body !== undefined && { body }),
  };
}

/** Whether `body` is what the document says the operation answers with `status`. */
function documented(op: Operation, status: number, body: unknown): boolean {
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return false;
  const id = `${op.method} ${op.path} ${status}`;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"asof#/components/')));
    validators.set(id, validate);
  }
  return validate(body);
}

const usage = () => server.stores.meters.usage(keyId, windowsAt(clock));

function assertAnswer(op: Operation, sent: ReturnType<typeof requestOf>, reply: RawReply, billedBefore: number, billedAfter: number): void {
  const where = `${sent.method} ${sent.target.slice(0, 160)} → ${reply.status} ${reply.text.slice(0, 300)}`;
  const error = reply.json?.error;
  const code: string | undefined = error?.code;
  // What the operation documents for that status (an error envelope with its codes, or corpus health's record), or
  // one of the transport's refusals, which any request may meet.
  const asDocumented = documented(op, reply.status, reply.json);
  const transport = transportCodes.includes(code!) && ERROR_STATUS[code as ErrorCode] === reply.status;
  expect(asDocumented || transport, `${where}: not an answer the document gives`).toBe(true);
  expect(reply.status < 500 || (reply.status === 503 && asDocumented), where).toBe(true);
  if (reply.status === 503) expect(reply.headers['retry-after'], where).toMatch(/^\d+$/);
  expect(reply.headers['x-content-type-options'], where).toBe('nosniff');
  expect(reply.headers['content-type'], where).toBe('application/json; charset=utf-8');
  expect(reply.headers['x-request-id'], where).toMatch(/^[\w-]{8,}$/);
  if (reply.status >= 400 && error && reply.json.jsonrpc === '2.0') {
    // The MCP endpoint's transport refuses in the protocol's own envelope (JSON-RPC), as its document says.
    expect(asDocumented, where).toBe(true);
    expect(error, where).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    expect(error.message.length, where).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(error.message, where).not.toMatch(/(.)\1{60}/su);
  } else if (reply.status >= 400 && error) {
    expect(error, where).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: reply.headers['x-request-id'] });
    expect(error.message.length, where).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    // The inputs sent are runs of one character: a message quotes at most 60 of them.
    expect(error.message, where).not.toMatch(/(.)\1{60}/su);
  }
  const answered = reply.status < 300 || (reply.status === 404 && BILLED_404.includes(code!));
  if (!answered) expect(billedAfter, `${where}: billed`).toBe(billedBefore);
}

async function exchange(draft: Draft): Promise<void> {
  // A minute of its own for every call: no per-minute ceiling or edge limit is ever met.
  clock = new Date(clock.getTime() + 61_000);
  const sent = requestOf(draft);
  const before = await usage();
  const reply = await rawRequest(server.port, sent);
  const after = await usage();
  assertAnswer(draft.op, sent, reply, before.month, after.month);
  draft.expected?.(reply, `${sent.method} ${sent.target.slice(0, 160)} → ${reply.status} ${reply.text.slice(0, 300)}`);
}

describe.each(Object.keys(CLASSES))('%s, on every operation of the document', (name) => {
  it('is answered with a documented code, never a 5xx, and never billed unless answered', { timeout: 120_000 }, async () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    for (const [i, op] of operations.entries()) {
      const target = op.params.length ? fc.constantFrom<Param | undefined>(...op.params) : fc.constant(undefined);
      const request = fc
        .tuple(fc.array(fc.boolean(), { minLength: op.params.length, maxLength: op.params.length }), target)
        .chain(([optional, p]) =>
          CLASSES[name]!(op, p).map((mutate) => {
            const draft = baseDraft(op, optional);
            mutate(draft);
            return Object.assign(draft, { [fc.toStringMethod]: () => shownAs(draft) });
          }),
        );
      await fc.assert(fc.asyncProperty(request, exchange), { seed: SEED + i, numRuns: RUNS_PER_OPERATION, endOnFailure: true });
    }
  });
});
