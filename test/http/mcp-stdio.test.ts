/**
 * `asof mcp` over stdio, as an agent host runs it: a child process spoken to by the SDK's own client. Against the
 * data dir of the running local server, against a base URL, and on a data dir no server runs on (served in process).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from './client.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ASOF = join(ROOT, 'bin/asof.js');

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** `asof mcp ARGS` as a child process, with the SDK's stdio client connected to it; its stderr kept. */
async function startMcp(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ASOF, 'mcp', ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ASOF_API_KEY: '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'asof-stdio-tests', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A tool's result, with `answer`: the route's JSON body, which the result carries once, as its text content. */
const callTool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult & { _meta: Record<string, unknown> };
  expect(result).not.toHaveProperty('structuredContent');
  return { ...result, answer: JSON.parse((result.content[0] as { text: string }).text) as any };
};

describe('asof mcp on the data dir of a running server', () => {
  it('answers through that server: tools listed, a section as of a date, and no_edition_on_file as a tool error', async () => {
    const { dataDir, keys } = fixture();
    const { client, stderr } = await startMcp(['--data-dir', dataDir, '--key', keys.pool[3]!]);

    expect((await client.listTools()).tools.map((t) => t.name)).toContain('lookup_section');
    const found = await callTool(client, 'lookup_section', { jurisdiction: 'us', citation: '1 U.S.C. § 112b', asOf: '2019-03-01' });
    const missing = await callTool(client, 'lookup_section', { jurisdiction: 'dc', citation: 'D.C. Code § 22-404.05', asOf: '2024-07-01' });

    expect(found.isError).toBe(false);
    expect(found.answer.result).toMatchObject({ citation: { key: '1-112b' }, provenance: { contentHash: expect.any(String) } });
    expect(missing.isError).toBe(true);
    expect(missing.answer.error).toMatchObject({ code: 'no_edition_on_file', didYouMean: expect.any(Array) });
    expect(stderr()).toContain(`tools answered by the server running on ${dataDir}`);
  });

  it('writes nothing but JSON-RPC on stdout', async () => {
    const { dataDir, keys } = fixture();
    const child = spawn(process.execPath, [ASOF, 'mcp', '--data-dir', dataDir, '--key', keys.pool[4]!], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'section_text', arguments: { jurisdiction: 'us', citation: '1-112b' } },
    });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'section_text', arguments: { jurisdiction: 'us', citation: '1-112b', asOf: 'soon' } },
    });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'section_text', arguments: ['us', '1-112b'] } });
    await new Promise<void>((done) => {
      const check = () => (stdout.split('\n').filter(Boolean).length >= 4 ? done() : setTimeout(check, 50));
      check();
    });
    child.stdin.end();
    const code = await new Promise((done) => child.on('close', done));

    const lines = stdout.split('\n').filter(Boolean);
    // JSON-RPC answers each request by its id, not in order: the refusal of id 4 needs no server and may come first.
    const messages = lines.map((line) => JSON.parse(line)).sort((a, b) => a.id - b.id);
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
      ['2.0', 3],
      ['2.0', 4],
    ]);
    expect(messages[2].result).toMatchObject({ isError: true, content: [{ type: 'text' }] });
    expect(JSON.parse(messages[2].result.content[0].text).error.code).toBe('bad_as_of');
    // Arguments of the wrong type: invalid params, as the HTTP transport answers them, saying what is wrong.
    expect(messages[3].error).toEqual({
      code: -32602,
      message: "Invalid params: params.arguments must be an object of the tool's parameters (got an array).",
    });
    expect(stderr).toContain('asof mcp:');
    expect(code).toBe(0);
  });
});

describe('asof mcp --base-url', () => {
  it('answers from a remote asof with the key given, billed there', async () => {
    const { url, keys } = fixture();
    const { client } = await startMcp(['--base-url', url], { ASOF_API_KEY: keys.pool[5]! });
    const first = await callTool(client, 'search_law', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01' });
    const second = await callTool(client, 'filing_format', { jurisdiction: 'us', court: 'ca9' });

    expect(first.isError).toBe(false);
    expect(first.answer.results.length).toBeGreaterThan(0);
    expect(second.answer.result[0]).toMatchObject({ court: 'ca9' });
    const dayLeft = (t: { _meta: Record<string, unknown> }) => Number(/"day";r=(\d+)/.exec(String(t._meta['asof/rateLimit']))?.[1]);
    expect(dayLeft(first) - dayLeft(second)).toBe(1);
  });

  it('without a key answers every tool call missing_bearer; a service out of reach service_unreachable', async () => {
    const noKey = await startMcp(['--base-url', fixture().url]);
    const refused = await callTool(noKey.client, 'lookup_section', { jurisdiction: 'us', citation: '1-112b' });
    expect(refused.isError).toBe(true);
    expect(refused.answer.error.code).toBe('missing_bearer');
    expect(noKey.stderr()).toMatch(/no key/);

    const away = await startMcp(['--base-url', 'http://127.0.0.1:9/v1', '--key', fixture().keys.pool[5]!]);
    const unreachable = await callTool(away.client, 'lookup_section', { jurisdiction: 'us', citation: '1-112b' });
    expect(unreachable.isError).toBe(true);
    expect(unreachable.answer.error.code).toBe('service_unreachable');
  });

  it('refuses a base URL that is not an http address', async () => {
    const child = spawn(process.execPath, [ASOF, 'mcp', '--base-url', 'ftp://example'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((done) => child.on('close', done));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--base-url must be an http\(s\) address/);
  });
});

describe('asof mcp on a data dir no server runs on', () => {
  it('serves the data dir in its own process, with keys of that data dir', { timeout: 240_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'asof-mcp-'));
    try {
      const created = await new Promise<string>((done, fail) => {
        const child = spawn(process.execPath, [ASOF, 'keys', 'create', '--name', 'agent', '--json', '--data-dir', dataDir], { cwd: ROOT });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`keys create exited ${code}`))));
      });
      const { key } = JSON.parse(created) as { key: string };
      const { client, stderr } = await startMcp(['--data-dir', dataDir], { ASOF_API_KEY: key });

      // The protocol is served at once; the first call waits for the data dir (its sample corpus loads on a first start).
      expect((await client.listTools()).tools).toHaveLength(7);
      const found = (await client.callTool(
        { name: 'lookup_section', arguments: { jurisdiction: 'us', citation: '1-112b', asOf: '2019-03-01' } },
        undefined,
        { timeout: 200_000 },
      )) as CallToolResult;
      const text = (found.content[0] as { text: string }).text;
      expect(found.isError, text).toBe(false);
      expect(JSON.parse(text).result.citation.key).toBe('1-112b');
      expect(stderr()).toContain(`serving ${dataDir} in this process`);
      await client.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
