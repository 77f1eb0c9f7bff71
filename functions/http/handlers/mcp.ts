import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpAnswer, McpEndpoint, McpRequest, Services } from '#app/services.ts';
import { type MessageError, readMessage } from '../mcp/message.ts';
import { inProcessRunner, type RunRoute } from '../mcp/run-route.ts';
import { createMcpServer } from '../mcp/server.ts';
import { MCP_TOOLS, type McpTool } from '../mcp/tools.ts';

/** Headers of the connection, not of the message: the transport is handed the body as it arrived, and its parse. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'host', 'keep-alive', 'expect']);

const runners = new WeakMap<Services, RunRoute>();
/** The tools' routes in this process, built once per Services; the /mcp request was already counted by the edge. */
const runnerOf = (services: Services): RunRoute => {
  const run = runners.get(services) ?? inProcessRunner(services, { edge: false });
  runners.set(services, run);
  return run;
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON-RPC error answered before the transport, shaped as the transport shapes its own. */
const errorAnswer = ({ status, id, code, message }: MessageError): McpAnswer => ({
  status,
  body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
  contentType: JSON_TYPE,
  headers: {},
});

/**
 * One Streamable HTTP request (stateless: no session, a JSON answer rather than an event stream, so that it is one
 * request and one response, as a Lambda function answers). The body is read as one JSON-RPC message within the
 * input limits first (mcp/message.ts); then a fresh server and transport, as the SDK's stateless mode has it; each
 * tool call runs its route on behalf of the request's bearer.
 */
export async function handleMcp(tools: readonly McpTool[], { body, headers, services }: McpRequest): Promise<McpAnswer> {
  const read = readMessage(body);
  if ('error' in read) return errorAnswer(read.error);
  const server = createMcpServer(tools, runnerOf(services), headers.authorization);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const request = new Request(`${services.site.baseUrl || 'http://localhost/v1'}/mcp`, {
      method: 'POST',
      headers: Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name)),
      body,
    });
    const response = await transport.handleRequest(request, { parsedBody: read.message });
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') answerHeaders[name] = value;
    });
    return {
      status: response.status,
      body: await response.text(),
      // Every JSON answer of the API names its charset; the SDK's says application/json alone.
      contentType: (response.headers.get('content-type') ?? 'application/json').replace(/^application\/json$/, JSON_TYPE),
      headers: answerHeaders,
    };
  } finally {
    await server.close();
  }
}

/** The endpoint as the processes that serve it bring it (Services.mcp): the tools of the table. */
export const mcpEndpoint: McpEndpoint = (request) => handleMcp(MCP_TOOLS, request);
