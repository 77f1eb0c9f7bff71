import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { RouteAnswer, RunRoute } from './run-route.ts';
import { type McpTool, toolNamed } from './tools.ts';

export const MCP_SERVER_INFO = { name: 'asof', title: 'asof: US law as of a date', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'asof answers what US statutes and court rules said on a date, with provenance. It never guesses: a section not in ' +
  'force on the date is an error (`no_edition_on_file`, with `didYouMean` listing the versions that exist), never the ' +
  'nearest version; `not_carried` means the collection is not held at all. Search is lexical (AND of keywords): turn a ' +
  'question into a few keywords. Tool errors carry `error.code` and `error.message`; switch on the code.';

/**
 * The JSON Schema an agent is shown for a tool's arguments: the route's own input schema (what REST validates), as
 * its input. Unknown properties are dropped by the route, as REST drops unknown parameters.
 */
export function inputSchemaOf(tool: McpTool): Tool['inputSchema'] {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.route.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

/**
 * A route's answer as a tool result: the body's JSON text as the route serialized it, once (no structuredContent,
 * which without an outputSchema is optional and would carry the same answer a second time), `isError` unless it is a
 * 2xx, so an error is the envelope `{error: {code, message, …}}` the REST route answers. The HTTP status, request id
 * and the key's rate-limit state go in `_meta`.
 */
export function toolResult(answer: RouteAnswer): CallToolResult {
  const { status, text, headers } = answer;
  const meta: Record<string, unknown> = { 'asof/status': status };
  if (headers['x-request-id']) meta['asof/requestId'] = headers['x-request-id'];
  if (headers.ratelimit) meta['asof/rateLimit'] = headers.ratelimit;
  if (headers['ratelimit-policy']) meta['asof/rateLimitPolicy'] = headers['ratelimit-policy'];
  if (headers['retry-after']) meta['asof/retryAfter'] = Number(headers['retry-after']);
  return { content: [{ type: 'text', text }], isError: status < 200 || status >= 300, _meta: meta };
}

/**
 * An MCP server of `tools`, each call run by `run` on behalf of `authorization`. The SDK's low-level Server, not
 * McpServer.registerTool: registerTool validates arguments with its own messages before the tool runs, and the
 * route's validation must answer instead (the spec's codes, a refused call not billed, as over REST).
 */
export function createMcpServer(tools: readonly McpTool[], run: RunRoute, authorization: string | undefined): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const listed: Tool[] = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool),
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = toolNamed(tools, request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `No tool named '${request.params.name}'; the tools are ${tools.map((t) => t.name).join(', ')}.`,
      );
    }
    return toolResult(await run(tool.route, request.params.arguments ?? {}, authorization));
  });
  return server;
}
