import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpAnswer, McpEndpoint, McpRequest, Services } from '#app/services.ts';
import { inProcessRunner, type RunRoute } from '../mcp/run-route.ts';
import { createMcpServer } from '../mcp/server.ts';
import { MCP_TOOLS, type McpTool } from '../mcp/tools.ts';

/** Headers that describe the body as it arrived: the transport is handed the parsed body, re-serialized. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'host', 'keep-alive', 'expect']);

const runners = new WeakMap<Services, RunRoute>();
/** The tools' routes in this process, built once per Services; the /mcp request was already counted by the edge. */
const runnerOf = (services: Services): RunRoute => {
  const run = runners.get(services) ?? inProcessRunner(services, { edge: false });
  runners.set(services, run);
  return run;
};

/**
 * One Streamable HTTP request (stateless: no session, a JSON answer rather than an event stream, so that it is one
 * request and one response, as a Lambda function answers). A fresh server and transport per request, as the SDK's
 * stateless mode has it; each tool call runs its route on behalf of the request's bearer.
 */
export async function handleMcp(tools: readonly McpTool[], { body, headers, services }: McpRequest): Promise<McpAnswer> {
  const server = createMcpServer(tools, runnerOf(services), headers.authorization);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const request = new Request(`${services.site.baseUrl || 'http://localhost/v1'}/mcp`, {
      method: 'POST',
      headers: Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name)),
      body: JSON.stringify(body),
    });
    const response = await transport.handleRequest(request, { parsedBody: body });
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') answerHeaders[name] = value;
    });
    return {
      status: response.status,
      body: await response.text(),
      // Every JSON answer of the API names its charset; the SDK's says application/json alone.
      contentType: (response.headers.get('content-type') ?? 'application/json').replace(
        /^application\/json$/,
        'application/json; charset=utf-8',
      ),
      headers: answerHeaders,
    };
  } finally {
    await server.close();
  }
}

/** The endpoint as the processes that serve it bring it (Services.mcp): the tools of the table. */
export const mcpEndpoint: McpEndpoint = (request) => handleMcp(MCP_TOOLS, request);
