/**
 * Bodies a hostile client sends (issue 29, rows 1, 2, 3, 5, 9, 10), each while a second client keeps asking cheap
 * lookups that must stay answered within a bound: JSON nested thousands deep in a field a route reads and in an MCP
 * body's field nothing reads, a citations array of 200,000 items, 60,000 keys nothing reads, MCP tool arguments of
 * the wrong type and a query string beside an MCP body, and twenty concurrent 250-citation tool calls. Each refusal
 * is the exact status and code (the API's envelope, or JSON-RPC's error over MCP) and bills nothing. A server of its
 * own, so the shared server's other tests do not disturb the timing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { PlanBook } from '#accounts/plans.ts';
import { usageReport } from '#accounts/usage-report.ts';
import { MAX_JSON_DEPTH, MAX_JSON_OBJECT_KEYS } from '#http/input-limits.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type LocalServer, loadCaseLawSampleIfNeeded, serveLocal } from '#local/local-runtime.ts';
import { type BesideLookups, besideLookups, CHEAP_MAX_MS, CHEAP_P50_MS } from '../support/beside-lookups.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
/** As deep as the probe sent: the old NUL check overflowed the stack on it. */
const DEEP = 6_000;

let server: LocalServer;
let dataDir: string;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function send(path: string, key: string, body: string, extra: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra },
    body,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const rpc = (method: string, params: unknown, id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

async function attackKey(name: string): Promise<{ key: string; id: string }> {
  const issued = await issueKey(
    server.stores.accounts,
    { name, limits: { perMinute: 120, daily: 1_000_000, monthly: 10_000_000 } },
    new Date(),
  );
  return { key: issued.key, id: issued.id };
}

/** What a key was billed today, and its calls by route and status (usage records are written behind the answers). */
async function billed(id: string) {
  await new Promise((done) => setTimeout(done, 600));
  const record = await server.stores.accounts.getById(id);
  const report = await usageReport(server.stores.meters, new PlanBook(), record!, new Date());
  return { units: report.today.units, byRoute: Object.fromEntries(report.today.byRoute.map((r) => [r.routeId, r])) };
}

/** `n` clients, each sending `times` requests one after another. */
const clients = <T>(n: number, times: number, request: () => Promise<T>): Promise<T[]> =>
  Promise.all(
    Array.from({ length: n }, async () => {
      const answers: T[] = [];
      for (let i = 0; i < times; i++) answers.push(await request());
      return answers;
    }),
  ).then((all) => all.flat());

/**
 * The cheap lookups, on a key of their own for each attack (each lookup bills a unit, and a key's edge limit and
 * per-minute ceiling are 120 a minute); each attack has its own key too, so that what it billed is read alone.
 */
const beside = async <T>(attack: () => Promise<T>, everyMs = 50) =>
  besideLookups({ url: server.url, key: (await attackKey('cheap lookups')).key }, attack, { everyMs });

function expectCheapAnswered(run: BesideLookups<unknown>): void {
  const seen = `cheap lookups: ${run.latencies.length}, p50 ${run.p50.toFixed(0)} ms, max ${run.max.toFixed(0)} ms`;
  expect(
    run.statuses.every((s) => s === 200),
    seen,
  ).toBe(true);
  expect(run.p50, seen).toBeLessThan(CHEAP_P50_MS);
  expect(run.max, seen).toBeLessThan(CHEAP_MAX_MS);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asof-hostile-'));
  server = await serveLocal({
    dataDir,
    port: 0,
    sample: false,
    schedules: false,
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  await runIngest(server.stores, { kind: 'uslm', files: [USLM] });
  await loadCaseLawSampleIfNeeded(server.stores, () => undefined);
  // The MCP SDK loads with the first /mcp request, and a first lookup warms its path: both before any timing.
  const warm = (await attackKey('warm-up')).key;
  await send('/mcp', warm, rpc('tools/list', {}), MCP_HEADERS);
  await fetch(`${server.url}/law/lookup?jurisdiction=us&citation=1-1`, { headers: { authorization: `Bearer ${warm}` } });
});
afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a body nested thousands deep', () => {
  it('in a field a route reads: 400 bad_json naming the limit and the field, at once, unbilled (8 clients x 3)', async () => {
    const { key, id } = await attackKey('deep');
    const body = `{"jurisdiction":"us","citation":${'['.repeat(DEEP)}"x"${']'.repeat(DEEP)}}`;

    const run = await beside(() => clients(8, 3, () => send('/law/lookup', key, body)));

    expect(run.attack.map((a) => a.status)).toEqual(Array(24).fill(400));
    expect(run.attack[0]!.body.error).toMatchObject({
      code: 'bad_json',
      field: 'citation',
      message: `The request body holds arrays and objects nested more than ${MAX_JSON_DEPTH} levels deep (in citation); at most ${MAX_JSON_DEPTH} levels are read.`,
      requestId: expect.any(String),
    });
    expectCheapAnswered(run);
    const usage = await billed(id);
    expect(usage.units).toBe(0);
    expect(usage.byRoute['law-lookup']).toMatchObject({ calls: 24, units: 0, statuses: { 400: 24 } });
  });

  it('in an MCP body, in a field nothing reads and in tool arguments: JSON-RPC -32600 with HTTP 400, unbilled', async () => {
    const { key, id } = await attackKey('deep mcp');
    const deep = `${'['.repeat(DEEP)}1${']'.repeat(DEEP)}`;
    const unread = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"x":${deep}}}}`;
    const inArgs = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"lookup_section","arguments":{"jurisdiction":"us","citation":${deep}}}}`;

    const run = await beside(() =>
      clients(8, 3, () => Promise.all([send('/mcp', key, unread, MCP_HEADERS), send('/mcp', key, inArgs, MCP_HEADERS)])),
    );

    for (const answer of run.attack.flat()) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(answer.body.error.message).toMatch(/^Invalid Request: the body holds arrays and objects nested more than 64 levels deep/);
    }
    expect(run.attack[0]![1].body.error.message).toMatch(/\(in params\)/);
    expectCheapAnswered(run);
    const usage = await billed(id);
    expect(usage.units).toBe(0);
    expect(Object.keys(usage.byRoute)).toEqual(['mcp']);
  });
});

describe('wide bodies', () => {
  it('a citations array of 200,000 items: 400 too_many before any item is read, unbilled (4 clients x 2)', async () => {
    const { key, id } = await attackKey('wide citations');
    const huge = JSON.stringify({ citations: Array.from({ length: 200_000 }, () => 'x') });
    const over = JSON.stringify({ citations: Array.from({ length: 251 }, () => ({ volume: 'x', reporter: '', page: null })) });
    expect(Buffer.byteLength(huge)).toBeLessThan(1024 * 1024);

    const run = await beside(() => clients(4, 2, () => send('/law/citations/lookup', key, huge)));
    const just = await send('/law/citations/lookup', key, over);

    expect(run.attack.map((a) => [a.status, a.body.error.code])).toEqual(Array(8).fill([400, 'too_many']));
    expect(run.attack[0]!.body.error).toMatchObject({
      field: 'citations',
      message: 'citations must be at most 250 items (got more than 10,000 items).',
    });
    // 251 items none of which is a valid citation: the length is what is refused, before any item.
    expect([just.status, just.body.error]).toEqual([
      400,
      {
        code: 'too_many',
        message: 'citations must be at most 250 items (got 251 items).',
        field: 'citations',
        citations: 251,
        limit: 250,
        requestId: expect.any(String),
      },
    ]);
    expectCheapAnswered(run);
    const usage = await billed(id);
    expect(usage.units).toBe(0);
    expect(usage.byRoute['caselaw-citations']).toMatchObject({ calls: 9, units: 0, statuses: { 400: 9 } });
  });

  it('60,000 keys nothing reads: 400 bad_json naming the per-object limit, at once, unbilled', async () => {
    const { key, id } = await attackKey('wide keys');
    const unused = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]));
    const body = JSON.stringify({ jurisdiction: 'us', citation: '1-1', ...unused });

    const run = await beside(() => clients(4, 2, () => send('/law/lookup', key, body)));

    expect(run.attack.map((a) => a.status)).toEqual(Array(8).fill(400));
    expect(run.attack[0]!.body.error).toMatchObject({
      code: 'bad_json',
      message: `The request body holds an object of more than ${MAX_JSON_OBJECT_KEYS.toLocaleString('en-US')} members; at most 1,000 members of an object are read.`,
    });
    expect(run.attack[0]!.body.error).not.toHaveProperty('field');
    expectCheapAnswered(run);
    const usage = await billed(id);
    expect(usage.units).toBe(0);
    expect(usage.byRoute['law-lookup']).toMatchObject({ calls: 8, units: 0, statuses: { 400: 8 } });
  });
});

describe('MCP messages of the wrong shape', () => {
  it('tool arguments that are an array, a string or null: -32602 Invalid params saying so, no validation dump, unbilled', async () => {
    const { key, id } = await attackKey('mcp args');
    const bodies = [[], 'citation', null].map((args, i) => rpc('tools/call', { name: 'lookup_section', arguments: args }, `call-${i}`));

    const run = await beside(() => clients(4, 5, () => Promise.all(bodies.map((b) => send('/mcp', key, b, MCP_HEADERS)))));

    const kinds = ['an array', 'a string', 'null'];
    for (const [i, answer] of run.attack[0]!.entries()) {
      const kind = kinds[i];
      // A request the server answers with an error, as the SDK answers an unknown tool: HTTP 200, the error by id.
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        id: `call-${i}`,
        error: { code: -32602, message: `Invalid params: params.arguments must be an object of the tool's parameters (got ${kind}).` },
      });
    }
    expect(run.attack.flat().every((a) => a.body.error?.code === -32602)).toBe(true);
    expectCheapAnswered(run);
    const usage = await billed(id);
    expect(usage.units).toBe(0);
    expect(Object.keys(usage.byRoute)).toEqual(['mcp']);
  });

  it('a query string beside a valid body is not read: tools/list and a tool call answer as without it', async () => {
    const { key } = await attackKey('mcp query');
    const listed = await send('/mcp?jurisdiction=dc', key, rpc('tools/list', {}), MCP_HEADERS);
    const called = await send(
      '/mcp?jurisdiction=dc&citation=nothing',
      key,
      rpc('tools/call', { name: 'lookup_section', arguments: { jurisdiction: 'us', citation: '1-1' } }),
      MCP_HEADERS,
    );

    expect(listed.status).toBe(200);
    expect(listed.body.result.tools).toHaveLength(7);
    expect(called.status).toBe(200);
    expect(called.body.result.isError).toBe(false);
    expect(JSON.parse(called.body.result.content[0].text).result.citation).toMatchObject({ key: '1-1' });
  });

  it('a body that is not JSON is -32700, not one object or not JSON-RPC -32600, each with a message saying why', async () => {
    const { key } = await attackKey('mcp malformed');
    const cases: Array<[string, number, string]> = [
      ['{"jsonrpc":', -32700, 'Parse error: the body is not valid JSON.'],
      [
        '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        -32600,
        'Invalid Request: the body must be one JSON-RPC message, a JSON object (got an array).',
      ],
      ['{"hello":"world"}', -32600, 'Invalid Request: jsonrpc must be "2.0" (got nothing).'],
      [
        '{"jsonrpc":"2.0","id":1,"method":"ping","jurisdiction":"dc"}',
        -32600,
        'Invalid Request: it has members JSON-RPC does not define: jurisdiction.',
      ],
    ];
    for (const [body, code, message] of cases) {
      const answer = await send('/mcp', key, body, MCP_HEADERS);
      expect([answer.status, answer.body.error]).toEqual([400, { code, message }]);
    }
  });
});

describe('twenty concurrent 250-citation tool calls', () => {
  it('are answered, each result serialized once, while cheap lookups keep answering', async () => {
    const { key } = await attackKey('mcp citations');
    const known = ['410 U.S. 113', '267 Ga. 9', '471 S.E.2d 836', '539 U.S. 306', '570 U.S. 297'];
    const citations = Array.from({ length: 250 }, (_, i) => (i % 2 ? known[i % known.length]! : `${100 + i} U.S. ${i + 1}`));
    const body = rpc('tools/call', { name: 'resolve_citations', arguments: { citations } });

    const run = await beside(() => Promise.all(Array.from({ length: 20 }, () => send('/mcp', key, body, MCP_HEADERS))), 100);

    for (const answer of run.attack) {
      expect(answer.status).toBe(200);
      expect(answer.body.result).not.toHaveProperty('structuredContent');
      expect(answer.body.result.isError).toBe(false);
      expect(JSON.parse(answer.body.result.content[0].text).results).toHaveLength(250);
    }
    expectCheapAnswered(run);
  }, 120_000);
});
