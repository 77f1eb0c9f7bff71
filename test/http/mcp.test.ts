/**
 * The MCP endpoint (POST /v1/mcp, Streamable HTTP, stateless) end to end over real sockets against the local server,
 * with the SDK's own client: the tools listed, each tool on bundled data, the same answers as the REST routes, errors
 * as tool errors with the spec's codes, authentication, and metering per tool call and per citation.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, get, post } from './client.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CITING = 'See Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996); but see Roe v. Wade, 410 U. S. 113 (1973).';

/** `asof …` in a child process, against the fixture's data dir (through its running server). */
function asof(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), ...args, '--data-dir', fixture().dataDir], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: 'asof-tests', version: '1.0.0' });
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${fixture().url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A tool's result, with `answer`: the route's JSON body, which the result carries once, as its text content. */
const callTool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult & { _meta: Record<string, unknown> };
  expect(result).not.toHaveProperty('structuredContent');
  return { ...result, answer: JSON.parse((result.content[0] as { text: string }).text) as any };
};

let client: Client;
beforeAll(async () => {
  client = await connect(fixture().keys.pool[0]!);
});
afterAll(() => client?.close());

describe('POST /v1/mcp with the SDK client', () => {
  it('initializes as asof and lists the seven tools, each with an object schema and a description of what asof guarantees', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'asof' });
    expect(client.getInstructions()).toMatch(/never guesses/);
    const { tools } = await client.listTools();

    expect(tools.map((t) => t.name)).toEqual([
      'lookup_section',
      'section_text',
      'list_versions',
      'diff_versions',
      'search_law',
      'filing_format',
      'resolve_citations',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.lookup_section!.inputSchema).toMatchObject({
      type: 'object',
      required: ['jurisdiction', 'citation'],
      properties: { asOf: { type: 'string' }, corpus: { enum: expect.arrayContaining(['statutes', 'rules']) } },
    });
    expect(byName.lookup_section!.description).toMatch(/never with the nearest one/);
    expect(byName.lookup_section!.description).toMatch(/no_edition_on_file.*didYouMean.*not_carried/s);
    expect(byName.lookup_section!.description).toMatch(/provenance/);
    expect(byName.search_law!.description).toMatch(/lexical.*keywords.*never a question/s);
    expect(byName.resolve_citations!.description).toMatch(/1 unit per citation/);
    expect(byName.resolve_citations!.inputSchema.properties).toHaveProperty('text');
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('lookup_section answers 1 U.S.C. § 112b as of 2019-03-01 exactly as GET /law/lookup does, with provenance', async () => {
    const args = { jurisdiction: 'us', citation: '1 U.S.C. § 112b', asOf: '2019-03-01' };
    const [tool, rest] = await Promise.all([callTool(client, 'lookup_section', args), get('/law/lookup', args)]);

    expect(tool.isError).toBe(false);
    expect(rest.status).toBe(200);
    expect(tool.content).toHaveLength(1);
    expect(tool.answer).toEqual(rest.body);
    const { result } = tool.answer;
    expect(result.citation).toMatchObject({ jurisdiction: 'us', key: '1-112b', display: '1 U.S.C. § 112b' });
    expect(result.provenance).toMatchObject({
      sourceUrl: expect.stringMatching(/^https:\/\//),
      contentHash: expect.stringMatching(/^sha256:/),
    });
    expect(result.validFrom <= '2019-03-01' && result.validTo > '2019-03-01').toBe(true);
    expect(tool._meta).toMatchObject({
      'asof/status': 200,
      'asof/requestId': expect.any(String),
      'asof/rateLimit': expect.stringMatching(/"day";r=\d+/),
    });
  });

  it('lookup_section on D.C. Code § 22-404.05 on 2024-07-01 is a tool error no_edition_on_file with didYouMean, never a guess', async () => {
    const tool = await callTool(client, 'lookup_section', { jurisdiction: 'dc', citation: '22-404.05', asOf: '2024-07-01' });

    expect(tool.isError).toBe(true);
    expect(tool._meta['asof/status']).toBe(404);
    expect(tool.answer.error).toMatchObject({ code: 'no_edition_on_file', message: expect.stringContaining('22-404.05') });
    expect(tool.answer.error.didYouMean[0]).toMatchObject({
      citation: expect.stringContaining('22-404.05'),
      reason: 'latest-version',
    });
    expect(tool.answer).not.toHaveProperty('result');
  });

  it('lookup_section in a jurisdiction with nothing of the corpus is not_carried', async () => {
    const tool = await callTool(client, 'lookup_section', { jurisdiction: 'wy', citation: '1-1-101' });
    expect(tool.isError).toBe(true);
    expect(tool.answer.error.code).toBe('not_carried');
  });

  it('section_text gives the quotable parts only', async () => {
    const tool = await callTool(client, 'section_text', { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' });
    expect(tool.isError).toBe(false);
    expect(tool.answer.result).toMatchObject({
      citation: { key: '1-112b' },
      bodyText: expect.any(String),
      versionLabel: expect.any(String),
    });
    expect(tool.answer.result).not.toHaveProperty('provenance');
    expect(tool.answer.result).not.toHaveProperty('validFrom');
  });

  it('list_versions gives the timeline of D.C. Code § 22-404.05 as GET /law/versions does, ended on 2024-06-22', async () => {
    const args = { jurisdiction: 'dc', citation: '22-404.05' };
    const [tool, rest] = await Promise.all([callTool(client, 'list_versions', args), get('/law/versions', args)]);
    expect(tool.isError).toBe(false);
    expect(rest.status).toBe(200);
    expect(tool.answer).toEqual(rest.body);
    expect(tool.answer.result.endedAt).toMatch(/^2024-06-22/);
  });

  it('diff_versions compares two dates as GET /law/diff does, and names the date on which nothing was in force', async () => {
    const args = { jurisdiction: 'us', corpus: 'rules', citation: 'frap-32', from: '2010-06-01', to: '2025-01-01' };
    const [tool, rest] = await Promise.all([callTool(client, 'diff_versions', args), get('/law/diff', args)]);
    expect(tool.isError).toBe(false);
    expect(tool.answer).toEqual(rest.body);
    expect(tool.answer.result.identical).toBe(false);

    const gap = await callTool(client, 'diff_versions', { ...args, to: '2015-01-01' });
    expect(gap.isError).toBe(true);
    expect(gap._meta['asof/status']).toBe(404);
    expect(gap.answer.error).toMatchObject({ code: 'no_edition_on_file', message: expect.stringContaining('to=2015-01-01') });
  });

  it('search_law finds D.C. Code § 22-404.05 for "strangulation" in force on 2024-04-01, and not on 2024-07-01', async () => {
    const before = await callTool(client, 'search_law', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01' });
    const after = await callTool(client, 'search_law', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-07-01' });

    expect(before.isError).toBe(false);
    const hit = before.answer.results.find((h: any) => h.citation.key === '22-404.05');
    expect(hit).toMatchObject({ snippet: expect.stringContaining('<b>'), provenance: { contentHash: expect.stringMatching(/^sha256:/) } });
    expect(after.answer.results.map((h: any) => h.citation.key)).not.toContain('22-404.05');
  });

  it('filing_format answers the Ninth Circuit as of 2010-06-01 as GET /law/format does', async () => {
    const args = { jurisdiction: 'us', court: 'ca9', asOf: '2010-06-01' };
    const [tool, rest] = await Promise.all([callTool(client, 'filing_format', args), get('/law/format', args)]);
    expect(tool.isError).toBe(false);
    expect(tool.answer).toEqual(rest.body);
    expect(tool.answer.result[0]).toMatchObject({ court: 'ca9', id: 'ca9-2010-02-01' });
  });

  it('resolve_citations finds and resolves the citations of a text as POST /law/citations/lookup does', async () => {
    const [tool, rest] = await Promise.all([
      callTool(client, 'resolve_citations', { text: CITING }),
      post('/law/citations/lookup', { text: CITING }),
    ]);
    expect(tool.isError).toBe(false);
    expect(tool.answer).toEqual(rest.body);
    expect(tool.answer.results.map((r: any) => [r.citation, r.status])).toEqual([
      ['267 Ga. 9', 200],
      ['471 S.E.2d 836', 200],
      ['410 U. S. 113', 404],
    ]);
  });

  it('refuses bad input with the route’s own codes and messages, as tool errors', async () => {
    const badDate = await callTool(client, 'lookup_section', { jurisdiction: 'us', citation: '1-112b', asOf: '2019-02-30' });
    const noCitation = await callTool(client, 'section_text', { jurisdiction: 'us' });
    const badLevel = await callTool(client, 'filing_format', { jurisdiction: 'us', level: 'supreme' });
    const both = await callTool(client, 'resolve_citations', {});
    const rest = await get('/law/lookup', { jurisdiction: 'us', citation: '1-112b', asOf: '2019-02-30' });

    expect([badDate, noCitation, badLevel, both].map((t) => [t.isError, t.answer.error.code, t._meta['asof/status']])).toEqual([
      [true, 'bad_as_of', 400],
      [true, 'missing_fields', 400],
      [true, 'bad_level', 400],
      [true, 'missing_fields', 400],
    ]);
    expect(badDate.answer.error.message).toBe(rest.body.error.message);
  });

  it('answers an unknown tool with a JSON-RPC error naming the tools', async () => {
    await expect(client.callTool({ name: 'guess_section', arguments: {} })).rejects.toThrow(
      /No tool named 'guess_section'.*lookup_section/,
    );
  });
});

describe('authentication of /v1/mcp', () => {
  const initialize = (key: string | null) =>
    fetch(`${fixture().url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(key !== null && { authorization: `Bearer ${key}` }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      }),
    });

  it('answers 401 missing_bearer without a key, 401 invalid_key for a revoked one, 403 missing_scope without lookup', async () => {
    const { keys } = fixture();
    const answers = await Promise.all([initialize(null), initialize(keys.revoked), initialize(keys.noScope)]);
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<any>));

    expect(answers.map((a) => a.status)).toEqual([401, 401, 403]);
    expect(bodies.map((b) => b.error.code)).toEqual(['missing_bearer', 'invalid_key', 'missing_scope']);
    expect(bodies[2].error.requiredScope).toBe('lookup');
    // The SDK's client fails to connect with the status and the envelope.
    await expect(connect(null)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('missing_bearer') });
  });

  it('answers a JSON initialize with the server’s capabilities, and GET with 405', async () => {
    const ok = await initialize(fixture().keys.pool[1]!);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/application\/json/);
    expect(await ok.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'asof' }, capabilities: { tools: {} } } });

    const streamed = await fetch(`${fixture().url}/mcp`, { headers: { authorization: `Bearer ${fixture().keys.pool[1]}` } });
    expect(streamed.status).toBe(405);
    expect(streamed.headers.get('allow')).toBe('POST');
  });

  it('answers a body that is not a JSON-RPC message with -32600, and not JSON at all with -32700, each HTTP 400', async () => {
    const key = fixture().keys.pool[2]!;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` };
    const notRpc = await fetch(`${fixture().url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ hello: 'world' }) });
    const notJson = await fetch(`${fixture().url}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });

    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).error).toEqual({
      code: -32600,
      message: 'Invalid Request: jsonrpc must be "2.0" (got nothing).',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON.' },
    });
  });
});

describe('metering of /v1/mcp', () => {
  it('bills one unit per tool call and one per citation; listing nothing; a refused input nothing; a 404 answer one', async () => {
    const created = await asof(['keys', 'create', '--name', 'mcp metering', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const issued = JSON.parse(created.stdout) as { id: string; key: string };
    const agent = await connect(issued.key);
    try {
      await agent.listTools();
      await agent.listTools();
      const statuses = [
        await callTool(agent, 'lookup_section', { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' }), // 1
        await callTool(agent, 'lookup_section', { jurisdiction: 'dc', citation: '22-404.05', asOf: '2024-07-01' }), // 1 (404 answers)
        await callTool(agent, 'lookup_section', { jurisdiction: 'us', citation: '1-112b', asOf: 'yesterday' }), // 0 (400)
        await callTool(agent, 'search_law', { q: 'strangulation', jurisdiction: 'dc' }), // 1
        await callTool(agent, 'resolve_citations', { text: CITING }), // 3 citations
        await callTool(agent, 'resolve_citations', { text: 'no citation here' }), // 0
      ].map((t) => t._meta['asof/status']);
      expect(statuses).toEqual([200, 404, 400, 200, 200, 200]);
    } finally {
      await agent.close();
    }
    await new Promise((done) => setTimeout(done, 600)); // usage records are written behind the responses, within 250 ms

    const usage = await asof(['keys', 'usage', issued.id, '--json']);
    expect(usage.code, usage.stderr).toBe(0);
    const report = JSON.parse(usage.stdout);
    expect(report.today.units).toBe(6);
    const byRoute = Object.fromEntries(report.today.byRoute.map((r: any) => [r.routeId, r]));
    expect(byRoute['law-lookup']).toMatchObject({ calls: 3, units: 2, statuses: { 200: 1, 404: 1, 400: 1 } });
    expect(byRoute['law-search']).toMatchObject({ calls: 1, units: 1 });
    expect(byRoute['caselaw-citations']).toMatchObject({ calls: 2, units: 3 });
    // The protocol's own requests (initialize, notifications, list, and the envelope of each call) bill nothing.
    expect(byRoute.mcp.units).toBe(0);
    expect(byRoute.mcp.calls).toBeGreaterThanOrEqual(9);
  });

  it('refuses a tool call over the key’s daily cap as a tool error daily_limit_exceeded, with Retry-After, billing nothing', async () => {
    const created = await asof(['keys', 'create', '--name', 'mcp cap', '--daily', '1', '--json']);
    const issued = JSON.parse(created.stdout) as { id: string; key: string };
    const agent = await connect(issued.key);
    try {
      const args = { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' };
      const first = await callTool(agent, 'section_text', args);
      const second = await callTool(agent, 'section_text', args);
      const batch = await callTool(agent, 'resolve_citations', { text: CITING });

      expect(first.isError).toBe(false);
      expect([second, batch].map((t) => [t.isError, t._meta['asof/status'], t.answer.error.code])).toEqual([
        [true, 429, 'daily_limit_exceeded'],
        [true, 429, 'daily_limit_exceeded'],
      ]);
      expect(second._meta['asof/retryAfter']).toBeGreaterThan(0);
      expect(batch.answer.error.message).toMatch(/this call needs 3 units/);
    } finally {
      await agent.close();
    }
    await new Promise((done) => setTimeout(done, 600));
    const report = JSON.parse((await asof(['keys', 'usage', issued.id, '--json'])).stdout);
    expect(report.today.units).toBe(1);
  });
});
