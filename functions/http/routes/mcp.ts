/** The MCP endpoint: the tools for LLM agents (functions/mcp/tools.ts) over the Streamable HTTP transport. */
import * as z from 'zod';
import { AppError } from '#shared/errors.ts';
import { MCP_TOOLS } from '../mcp/tools.ts';
import { defineRoute, type RouteStore } from '../route.ts';
import { lookupScope } from './access.ts';

const toolRoutes = MCP_TOOLS.map((tool) => tool.route);

export const mcp = defineRoute({
  id: 'mcp',
  methods: ['POST'],
  path: '/mcp',
  // A tool call runs its route in this function: it needs what every tool's route needs.
  stores: [...new Set<RouteStore>(toolRoutes.flatMap((r) => r.stores))],
  assets: [...new Set(toolRoutes.flatMap((r) => r.assets ?? []))],
  auth: lookupScope,
  // The request itself bills nothing: each tool call bills as its route does (one unit; one per citation).
  units: 0,
  // One JSON-RPC message, read by the endpoint itself (a malformed one is answered with a JSON-RPC error, never the
  // API's envelope); nothing is read from the query string.
  body: 'own',
  input: z.looseObject({}).meta({ description: 'one JSON-RPC 2.0 message of the Model Context Protocol' }),
  tag: 'mcp',
  summary: 'Model Context Protocol (Streamable HTTP, stateless): the tools for LLM agents',
  description:
    'POST one JSON-RPC message (`initialize`, `tools/list`, `tools/call`, …) with `Accept: application/json, text/event-stream`; ' +
    'the answer is JSON. Tools: ' +
    MCP_TOOLS.map((t) => `\`${t.name}\` (${t.route.path})`).join(', ') +
    '. A tool call is authenticated, validated and billed exactly as its REST route (one unit; one per citation for ' +
    '`resolve_citations`), its errors are tool errors carrying the route’s error envelope; listing and initializing bill nothing. ' +
    'GET (an event stream) is not offered: 405.',
  responses: {
    200: { description: 'the JSON-RPC response (a notification is answered 202 with no body)', schema: 'McpResponse' },
    400: {
      description:
        'a JSON-RPC error: the body is not JSON (-32700), or too deep or too wide, not one JSON object or not a JSON-RPC message (-32600)',
      schema: 'McpResponse',
    },
    406: {
      description: 'a JSON-RPC error from the transport: the request does not accept both application/json and text/event-stream',
      schema: 'McpResponse',
    },
    415: { description: 'a JSON-RPC error from the transport: the body is not sent as application/json', schema: 'McpResponse' },
  },
  errors: [],
  // The protocol server is the serving process's to bring (Services.mcp): the OpenAPI functions read this table too.
  handle: async (_input, { services, headers, body }) => {
    if (!services.mcp) throw new AppError('internal_error', 'The MCP endpoint is not served by this deployment.');
    const answer = await services.mcp({ body, headers, services });
    return { status: answer.status, body: answer.body, contentType: answer.contentType, headers: answer.headers };
  },
});
