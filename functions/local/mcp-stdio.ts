/**
 * `asof mcp`: the tools for LLM agents over stdio, for an agent host that starts the server as a child process.
 * Against a remote asof (`--base-url`), the running server of the data dir, or, when none runs, the data dir served
 * by this process (as `asof serve` would, on a port of its own). stdout carries the protocol and nothing else.
 */
import { Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { FallbackConfig } from '#caselaw/fallback.ts';
import { refuseToolCall } from '#http/mcp/message.ts';
import { inProcessRunner, type RunRoute, remoteRunner } from '#http/mcp/run-route.ts';
import { createMcpServer } from '#http/mcp/server.ts';
import { MCP_TOOLS } from '#http/mcp/tools.ts';
import { findRunningServer } from './data-dir.ts';
import { localLogger } from './local-logger.ts';

export interface McpStdioOptions {
  dataDir: string;
  /** A remote asof's address with its `/v1`; the data dir is then not read. */
  baseUrl?: string;
  /** The key every tool call carries (as `Authorization: Bearer`). Without one, each call fails `missing_bearer`. */
  key?: string;
  /** Where this process serves the data dir when no server runs on it (0: a free port). */
  port: number;
  fallback: FallbackConfig;
  /** Diagnostics: stderr. */
  err(line: string): void;
}

/**
 * The protocol's own channel: the process's stdout as it is now. Every other write to stdout from then on (a log line,
 * a library's console.log) goes to stderr, so that nothing but JSON-RPC ever reaches the client.
 */
function claimStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, encoding: BufferEncoding, done: () => void) => boolean;
  const protocol = new Writable({
    write(chunk, encoding, done) {
      write(chunk, encoding, () => done());
    },
  });
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return protocol;
}

/**
 * What answers the tool calls: a remote asof, the running server of the data dir, or the data dir served here. The
 * last may take a while (a first start loads the sample corpus), so the protocol is served at once and tool calls
 * wait for it: an agent host's start-up timeout is not spent on loading.
 */
async function startRunner(opts: McpStdioOptions): Promise<{ run: RunRoute; close: () => Promise<void> }> {
  const { err } = opts;
  if (opts.baseUrl) {
    err(`asof mcp: tools answered by ${opts.baseUrl}`);
    return { run: remoteRunner(opts.baseUrl), close: async () => undefined };
  }
  const running = await findRunningServer(opts.dataDir);
  if (running) {
    err(`asof mcp: tools answered by the server running on ${opts.dataDir} (${running.apiUrl})`);
    return { run: remoteRunner(running.apiUrl), close: async () => undefined };
  }
  const { serveLocal } = await import('./local-runtime.ts');
  const local = await serveLocal({ dataDir: opts.dataDir, port: opts.port, log: err, fallback: opts.fallback, logger: localLogger() });
  err(`asof mcp: serving ${opts.dataDir} in this process; permalinks open at ${local.services.site.siteUrl}`);
  return { run: inProcessRunner(local.services, { edge: true }), close: () => local.close() };
}

/** Serves until stdin ends (the client went away) or SIGINT/SIGTERM; returns the exit code. */
export async function serveMcpStdio(opts: McpStdioOptions): Promise<number> {
  const protocol = claimStdout();
  const { err } = opts;
  const started = startRunner(opts);
  started.catch((error: unknown) =>
    err(`asof mcp: the tools cannot be answered: ${error instanceof Error ? error.message : String(error)}`),
  );
  const run: RunRoute = async (route, args, authorization) => {
    try {
      return (await started).run(route, args, authorization);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        status: 503,
        text: JSON.stringify({ error: { code: 'statutes_unavailable', message: `asof could not serve ${opts.dataDir}: ${reason}` } }),
        headers: {},
      };
    }
  };
  if (!opts.key)
    err(
      'asof mcp: no key (--key or ASOF_API_KEY): every tool call will fail missing_bearer. Create one: npx asof keys create --name agent',
    );

  const server = createMcpServer(MCP_TOOLS, run, opts.key ? `Bearer ${opts.key}` : undefined);
  const transport = new StdioServerTransport(process.stdin, protocol);
  const ended = new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    transport.onclose = done;
  });
  await server.connect(transport);
  // The lines stdio reads reach the server only through this check, as an HTTP body does through readMessage: a
  // tools/call whose params are of the wrong type is answered -32602 with what is wrong, not -32603 with a dump.
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    const refused = refuseToolCall(message);
    if (!refused) return deliver?.(message);
    const { id, code, message: text } = refused.error;
    transport.send({ jsonrpc: '2.0', id: id ?? 0, error: { code, message: text } }).catch(() => undefined);
  };
  await ended;
  await server.close().catch(() => undefined);
  const runner = await started.catch(() => null);
  await runner?.close();
  return runner ? 0 : 1;
}
