/**
 * Every bad input gets the spec's code, never a 500 (issue 15): the cases the issue names, one by one, over real
 * sockets against a server of this file's own (the bundled sample, metered, its clock fixed), with what each costs:
 * a call refused for its input bills nothing (its usage record says 0 units, the counters do not move).
 * input-fuzz.test.ts generates the same classes over every route of the OpenAPI document.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { windowsAt } from '#accounts/windows.ts';
import { createLocalServer } from '#http/local-server.ts';
import { PAGE_HEADERS } from '#http/pages/html.ts';
import { PAGES } from '#http/pages/site-pages.ts';
import { ROUTES } from '#http/routes.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { besideLookups, CHEAP_MAX_MS, CHEAP_P50_MS } from '../support/beside-lookups.ts';
import { type RawReply, type RawRequest, rawRequest } from '../support/raw-http.ts';
import { testLogger } from '../support/test-logger.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
let server: LocalServer;

beforeAll(async () => {
  server = await serveLocal({ dataDir: null, port: 0, sample: true, schedules: false, now: () => NOW, logger: testLogger() });
}, 180_000);
afterAll(() => server?.close());

const keyWith = async () => {
  const { key, id } = await issueKey(server.stores.accounts, { name: 'bad input', limits: { perMinute: 120 } }, NOW);
  return { key, id };
};
const send = (req: RawRequest, key?: string) =>
  rawRequest(server.port, { ...req, headers: { ...(key && { authorization: `Bearer ${key}` }), ...req.headers } });
const post = (target: string, body: unknown, key: string) => send({ method: 'POST', target, body: JSON.stringify(body) }, key);

/** Runs `calls` with a fresh key and checks that none of them billed a unit: counters unmoved, every record 0 units. */
async function unbilled<T extends RawReply[]>(calls: (key: string) => Promise<[...T]>): Promise<T> {
  const { key, id } = await keyWith();
  const replies = await calls(key);
  await server.services.usageLog!.flush();
  expect(await server.stores.meters.usage(id, windowsAt(NOW))).toMatchObject({ day: 0, month: 0 });
  const records = await server.stores.meters.records(id, NOW.toISOString().slice(0, 10));
  // Records of one instant come back in request-id order, not the order sent.
  expect(records.map((r) => `${r.status} ${r.units}`).sort()).toEqual(replies.map((r) => `${r.status} 0`).sort());
  return replies;
}

const error = (reply: RawReply) => [reply.status, reply.json?.error?.code, reply.json?.error?.field];

describe('a NUL character in a parameter or a body', () => {
  it('is refused with 400 naming the parameter, before any store sees it, and bills nothing', async () => {
    const [q, list, asOf, item, nested, text] = await unbilled((key) =>
      Promise.all([
        send({ target: '/v1/law/search?q=a%00' }, key),
        send({ target: '/v1/law/search?q=law&jurisdiction=us,dc%00' }, key),
        send({ target: '/v1/law/lookup?jurisdiction=us&citation=1-1&asOf=2024-01-01%00' }, key),
        post('/v1/law/citations/lookup', { citations: ['410 U.S. 113\u0000'] }, key),
        post('/v1/law/citations/lookup', { citations: [{ volume: '410\u0000', reporter: 'U.S.', page: '113' }] }, key),
        post('/v1/law/citations/lookup', { text: 'Roe v. Wade, 410 U.S. 113\u0000 (1973)' }, key),
      ]),
    );

    expect(error(q)).toEqual([400, 'bad_parameter', 'q']);
    expect(q.json.error.message).toBe("q contains a NUL character (U+0000), which no parameter may hold (got 'a\u0000').");
    expect(error(list)).toEqual([400, 'bad_parameter', 'jurisdiction']);
    expect(error(asOf)).toEqual([400, 'bad_as_of', 'asOf']);
    expect(error(item)).toEqual([400, 'bad_parameter', 'citations']);
    expect(item.json.error.message).toMatch(/^citations\[0\] contains a NUL character/);
    expect(error(nested)).toEqual([400, 'bad_parameter', 'citations']);
    expect(nested.json.error.message).toMatch(/^citations\[0\]\.volume contains a NUL character/);
    expect(error(text)).toEqual([400, 'bad_parameter', 'text']);
  });
});

describe('malformed percent-encoding in a path', () => {
  it.each(['%ZZ', '%E0%A4%A', '%C0%AF'])('is 400 bad_id for a case id (%s), not billed', async (malformed) => {
    const [one, citing] = await unbilled((key) =>
      Promise.all([
        send({ target: `/v1/law/cases/${malformed}` }, key),
        send({ target: `/v1/statutes/cases/1${malformed}/cited-by` }, key),
      ]),
    );

    expect(error(one)).toEqual([400, 'bad_id', 'clusterId']);
    expect(error(citing)).toEqual([400, 'bad_id', 'clusterId']);
    expect(one.json.error.message).toContain(`(got '${malformed}')`);
  });

  it.each([
    '/law/us/statutes/%ZZ',
    '/law/%E0%A4%A/statutes/1-1',
    '/law/us/statutes/%C0%AF',
    '/law/us/statutes/1-1%00',
    `/law/us/statutes/${'1'.repeat(300)}`,
    '/nowhere',
    // `/` is the front page (site-pages.test.ts); a malformed file name of the docs' files is not found.
    '/docs/assets/%ZZ',
  ])('is a 404 page for the site (%s), in HTML with the pages’ headers', async (target) => {
    const page = await send({ target });

    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<h1>Not found</h1>');
  });
});

describe('values of the wrong type or size', () => {
  it('refuses text that is not a string with 400 (not 413), and still text over 64,000 characters with 413', async () => {
    const [number, long] = await unbilled((key) =>
      Promise.all([
        post('/v1/law/citations/lookup', { text: 123 }, key),
        post('/v1/law/citations/lookup', { text: 'x'.repeat(64_001) }, key),
      ]),
    );

    expect(error(number)).toEqual([400, 'bad_parameter', 'text']);
    expect(number.json.error.message).toBe('text must be a string (got 123).');
    expect(error(long)).toEqual([413, 'too_large', 'text']);
  });

  it('refuses a case id above 2^53 − 1 with bad_id rather than rounding it to another case', async () => {
    const [above, far] = await unbilled((key) =>
      Promise.all([send({ target: '/v1/law/cases/9007199254740993' }, key), send({ target: '/v1/law/cases/99999999999999999999' }, key)]),
    );
    const { key } = await keyWith();
    const largest = await send({ target: '/v1/law/cases/9007199254740991' }, key);

    expect(error(above)).toEqual([400, 'bad_id', 'clusterId']);
    expect(above.json.error.message).toBe(
      "clusterId must be a positive integer no larger than 9,007,199,254,740,991 (got '9007199254740993').",
    );
    expect(error(far)).toEqual([400, 'bad_id', 'clusterId']);
    expect([largest.status, largest.json.error.code]).toEqual([404, 'not_found']);
    expect(largest.json.error.message).toContain('9007199254740991');
  });

  it('refuses a 1,000,000-character citation as malformed, quoting 60 characters of it, and bills nothing', async () => {
    const [lookup, item] = await unbilled((key) =>
      Promise.all([
        post('/v1/law/lookup', { jurisdiction: 'us', citation: 'x'.repeat(1_000_000) }, key),
        post('/v1/law/citations/lookup', { citations: ['9'.repeat(1_000_000)] }, key),
      ]),
    );

    expect(error(lookup)).toEqual([400, 'bad_parameter', 'citation']);
    expect(lookup.json.error.message).toBe(`citation must be at most 200 characters (got '${'x'.repeat(60)}…' (1,000,000 characters)).`);
    expect(error(item)).toEqual([400, 'bad_parameter', 'citations']);
    expect(item.json.error.message.length).toBeLessThan(200);
  });

  it('refuses a JSON limit above 2^53 − 1', async () => {
    const [limit] = await unbilled((key) =>
      Promise.all([send({ method: 'POST', target: '/v1/law/search', body: '{"q":"law","limit":1e300}' }, key)]),
    );

    expect(error(limit)).toEqual([400, 'bad_limit', 'limit']);
  });
});

describe('messages a person can read', () => {
  it('say what was expected and what was given', async () => {
    const { key } = await keyWith();
    const history = await send({ target: '/v1/law/quality?history=maybe' });
    const citations = await post('/v1/law/citations/lookup', { citations: 'x' }, key);
    const item = await post('/v1/law/citations/lookup', { citations: [123] }, key);

    expect(error(history)).toEqual([400, 'bad_parameter', 'history']);
    expect(history.json.error.message).toBe("history must be a boolean or one of 0, 1, true, false, yes, no (got 'maybe').");
    expect(citations.json.error.message).toBe("citations must be an array (got 'x').");
    expect(item.json.error.message).toBe('citations[0] must be a string or an object (got 123).');
  });

  it('name an empty optional parameter as empty, with its own code where it has one, never as missing', async () => {
    const [court, asOf, body] = await unbilled((key) =>
      Promise.all([
        send({ target: '/v1/law/format?jurisdiction=us&court=' }, key),
        send({ target: '/v1/law/lookup?jurisdiction=us&citation=1-1&asOf=' }, key),
        post('/v1/law/lookup', { jurisdiction: 'us', citation: '1-1', corpus: null }, key),
      ]),
    );

    expect(error(court)).toEqual([400, 'bad_parameter', 'court']);
    expect(court.json.error.message).toBe('court is empty: give a value, or leave the parameter out for its default.');
    expect(error(asOf)).toEqual([400, 'bad_as_of', 'asOf']);
    expect(error(body)).toEqual([400, 'bad_corpus', 'corpus']);
    expect(body.json.error.message).toMatch(/^corpus is null/);
  });

  it('refuse a parameter given twice, rather than pick one of its values', async () => {
    const [twice, both] = await unbilled((key) =>
      Promise.all([
        send({ target: '/v1/law/lookup?jurisdiction=us&citation=1-1&asOf=2019-01-01&asOf=2024-01-01' }, key),
        send({ method: 'POST', target: '/v1/law/lookup?citation=1-2', body: JSON.stringify({ jurisdiction: 'us', citation: '1-1' }) }, key),
      ]),
    );

    expect(error(twice)).toEqual([400, 'bad_as_of', 'asOf']);
    expect(twice.json.error.message).toBe('asOf is given 2 times in the query string: give it once.');
    expect(error(both)).toEqual([400, 'bad_parameter', 'citation']);
    expect(both.json.error.message).toBe('citation is given both in the query string and in the body: give it once.');
  });
});

describe('the transport’s own refusals', () => {
  const isEnvelope = (reply: RawReply, status: number, code: string) => {
    expect([reply.status, reply.json?.error?.code]).toEqual([status, code]);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-request-id']).toMatch(/^[\w-]{8,}$/);
    expect(reply.json.error.requestId).toBe(reply.headers['x-request-id']);
  };

  it('answer an over-long URL or header block 431 headers_too_large, in the envelope', async () => {
    isEnvelope(await send({ target: `/v1/law/search?q=${'a'.repeat(20_000)}` }), 431, 'headers_too_large');
    isEnvelope(await send({ target: '/v1/health', headers: { 'x-long': 'a'.repeat(20_000) } }), 431, 'headers_too_large');
  });

  it('answer what is not HTTP 400 bad_request, an unknown path 404 no_route, a body over 1 MiB 413 too_large', async () => {
    isEnvelope(await send({ target: '/v1/health', headers: { 'x-nul': 'a\u0000b' } }), 400, 'bad_request');
    isEnvelope(await send({ target: '/v1/law/cases/1 2' }), 400, 'bad_request');
    isEnvelope(await send({ target: '*' }), 400, 'bad_request');
    isEnvelope(await send({ target: '/v1/law/nowhere' }), 404, 'no_route');
    isEnvelope(await send({ method: 'DELETE', target: '/v1/health' }), 405, 'method_not_allowed');
    isEnvelope(await send({ method: 'POST', target: '/v1/law/lookup', body: 'x'.repeat(1024 * 1024 + 1) }), 413, 'too_large');
  });

  it('answer a request with no Host, two, or one that names no host 400 bad_request, pages included', async () => {
    const noHost = { host: null };
    const replies = await Promise.all([
      send({ target: '/v1/health', headers: noHost }),
      send({ target: '/law/us/statutes/1-1', headers: noHost }),
      send({ target: 'http://127.0.0.1/v1/health', headers: noHost }),
      send({ method: 'POST', target: '/v1/law/lookup', headers: noHost, body: '{"jurisdiction":"us","citation":"1-1"}' }),
      send({ target: '/v1/health', headers: { host: '127.0.0.1', Host: '127.0.0.2' } }),
      send({ target: '/v1/health', headers: { host: 'a b/c' } }),
    ]);

    for (const reply of replies) {
      isEnvelope(reply, 400, 'bad_request');
      expect(reply.headers.connection).toBe('close');
    }
    expect(replies[0]!.json.error.message).toBe('An HTTP/1.1 request needs a Host header: give the host and port it was sent to.');
    expect(replies[4]!.json.error.message).toBe('The Host header is given 2 times: give it once.');
    expect(replies[5]!.json.error.message).toBe("Host must be a host name or address, with an optional port (got 'a b/c').");
  });

  it('answer HTTP/1.0 with no Host (it needs none), and any Host that names a host and port', async () => {
    const replies = await Promise.all([
      send({ target: '/v1/health', version: 'HTTP/1.0', headers: { host: null } }),
      send({ target: '/v1/health', headers: { host: '' } }),
      send({ target: '/v1/health', headers: { host: '[::1]:8080' } }),
      send({ target: '/v1/health', headers: { host: 'asof.example' } }),
    ]);

    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('answer another protocol version, a CONNECT and a transfer coding other than chunked 400 bad_request', async () => {
    const chunkedGzip = { 'transfer-encoding': 'gzip, chunked', 'content-length': null };
    const [v2, v12, connect, gzip, gzipChunked] = await Promise.all([
      send({ target: '/v1/health', version: 'HTTP/2.0' }),
      send({ target: '/v1/health', version: 'HTTP/1.2' }),
      send({ method: 'CONNECT', target: '127.0.0.1:443' }),
      send({ method: 'POST', target: '/v1/law/lookup', headers: { 'transfer-encoding': 'gzip', 'content-length': null }, body: 'x' }),
      send({ method: 'POST', target: '/v1/law/lookup', headers: chunkedGzip, body: '0\r\n\r\n' }),
    ]);

    for (const reply of [v2, v12, connect, gzip, gzipChunked]) isEnvelope(reply, 400, 'bad_request');
    expect(v2.json.error.message).toBe('HTTP/2.0 is not spoken here: send HTTP/1.1.');
    expect(connect.json.error.message).toMatch(/^CONNECT is not supported/);
    expect(gzipChunked.json.error.message).toBe(
      "Transfer-Encoding 'gzip, chunked' is not supported: send the body with a Content-Length, or chunked alone.",
    );
  });

  it('answer Expect: 100-continue with 100 and then the answer, any other expectation 417 expectation_failed', async () => {
    const { key } = await keyWith();
    const body = JSON.stringify({ jurisdiction: 'us', citation: '1-1' });
    const [continued, other] = await Promise.all([
      send({ method: 'POST', target: '/v1/law/lookup', headers: { expect: '100-continue' }, body }, key),
      send({ method: 'POST', target: '/v1/law/lookup', headers: { expect: 'something-else' }, body }, key),
    ]);

    expect([continued.interim, continued.status]).toEqual([[100], 200]);
    isEnvelope(other, 417, 'expectation_failed');
    expect(other.interim).toEqual([]);
    expect(other.json.error.message).toBe('Expect something-else cannot be met: the only expectation understood is 100-continue.');
  });

  it('refuse a stream of them at once, while a second client keeps its cheap lookups', async () => {
    // Prepare: every kind of refusal above, eight clients sending them one after another
    const { key } = await keyWith();
    const kinds: RawRequest[] = [
      { target: '/v1/health', headers: { host: null } },
      { target: '/law/us/statutes/1-1', headers: { host: null } },
      { method: 'POST', target: '/v1/law/lookup', headers: { expect: 'something-else' }, body: '{"jurisdiction":"us"}' },
      { method: 'CONNECT', target: '127.0.0.1:443' },
      {
        method: 'POST',
        target: '/v1/law/lookup',
        headers: { 'transfer-encoding': 'gzip, chunked', 'content-length': null },
        body: '0\r\n\r\n',
      },
      { target: '/v1/health', version: 'HTTP/2.0' },
    ];
    const client = async (n: number) => {
      const codes: string[] = [];
      for (let i = 0; i < 24; i++) codes.push((await send(kinds[(n + i) % kinds.length]!)).json?.error?.code);
      return codes;
    };

    // Act
    const run = await besideLookups({ url: server.url, key }, () => Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(client)));

    // Assess
    expect(new Set(run.attack.flat())).toEqual(new Set(['bad_request', 'expectation_failed']));
    expect(run.statuses.every((s) => s === 200)).toBe(true);
    expect(run.p50).toBeLessThan(CHEAP_P50_MS);
    expect(run.max).toBeLessThan(CHEAP_MAX_MS);
  });

  it('answer a request not received in time 408 request_timeout, in the envelope', async () => {
    const slow: Server = createLocalServer({ services: server.services, routes: ROUTES, pages: PAGES, requestTimeoutMs: 300 });
    await new Promise<void>((done) => slow.listen(0, '127.0.0.1', () => done()));
    try {
      const port = (slow.address() as AddressInfo).port;
      const reply = await rawRequest(
        port,
        { method: 'POST', target: '/v1/law/coverage', headers: { 'content-length': '100' }, stall: true },
        30_000,
      );

      isEnvelope(reply, 408, 'request_timeout');
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((done) => slow.close(() => done()));
    }
  });
});

describe('headers on every answer', () => {
  it('nosniff on JSON, YAML and pages; frame-ancestors none on pages', async () => {
    const answers = await Promise.all([
      send({ target: '/v1/health' }),
      send({ target: '/v1/openapi.yaml' }),
      send({ target: '/v1/law/lookup?jurisdiction=us&citation=1-1' }),
      send({ target: '/law/us/statutes/1-1?asOf=2024-01-01' }),
      send({ target: '/law/us/statutes/1-1?asOf=2024-02-30' }),
    ]);

    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 200, 400]);
    for (const a of answers) expect(a.headers['x-content-type-options']).toBe('nosniff');
    for (const page of answers.slice(3)) {
      expect(page.headers['content-security-policy']).toBe(PAGE_HEADERS['content-security-policy']);
    }
  });

  it('Retry-After on every 503, pages included (the last test: it stops the stores)', async () => {
    await server.stores.stopStores();
    const answers = await Promise.all([send({ target: '/law/us/statutes/1-1' }), send({ target: '/v1/law/quality' })]);

    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    for (const a of answers) expect(a.headers['retry-after']).toMatch(/^\d+$/);
    expect(answers[0]!.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});
