/**
 * One POST's body read as one JSON-RPC message, before the protocol's transport sees it, so that every malformed one
 * is answered with JSON-RPC's own error and a message that says what is wrong (the SDK would answer a message it
 * cannot read `-32700`, and tool arguments of the wrong type `-32603` with its validator's dump): not JSON `-32700`;
 * too deep or too wide (json-reader.ts), not one object, or not a JSON-RPC message `-32600`; a tools/call whose name
 * or arguments are of the wrong type `-32602`.
 */
import { CallToolRequestSchema, ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { JsonLimitError, readJson } from '../json-reader.ts';

/** A JSON-RPC error to answer instead, with the HTTP status it goes with. */
export interface MessageError {
  status: number;
  id: string | number | null;
  code: number;
  message: string;
}

export type ReadMessage = { message: JSONRPCMessage } | { error: MessageError };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a value is, in words: `an array`, `a string`, `null`. */
const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

const isId = (value: unknown): value is string | number => typeof value === 'string' || Number.isSafeInteger(value);

const MEMBERS: Record<'request' | 'notification' | 'result' | 'error', readonly string[]> = {
  request: ['jsonrpc', 'id', 'method', 'params'],
  notification: ['jsonrpc', 'method', 'params'],
  result: ['jsonrpc', 'id', 'result'],
  error: ['jsonrpc', 'id', 'error'],
};

/** Why an object is not a JSON-RPC 2.0 message, in a phrase (the SDK's schema decides whether it is one). */
function whyNotJsonRpc(m: Record<string, unknown>): string {
  if (m.jsonrpc !== '2.0') return `jsonrpc must be "2.0" (got ${m.jsonrpc === undefined ? 'nothing' : kindOf(m.jsonrpc)})`;
  const kind = 'method' in m ? ('id' in m ? 'request' : 'notification') : 'result' in m ? 'result' : 'error' in m ? 'error' : null;
  if (!kind) return 'it has no method (a request or a notification) and no result or error (a response)';
  const extra = Object.keys(m).filter((name) => !MEMBERS[kind].includes(name));
  if (extra.length) return `it has members JSON-RPC does not define: ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''}`;
  if ('method' in m && typeof m.method !== 'string') return `method must be a string (got ${kindOf(m.method)})`;
  if ('id' in m && !isId(m.id)) return `id must be a string or an integer (got ${kindOf(m.id)})`;
  if ('params' in m && !isObject(m.params)) return `params must be an object (got ${kindOf(m.params)})`;
  return `it is not a ${kind === 'result' || kind === 'error' ? 'response' : kind} as JSON-RPC 2.0 defines one`;
}

/** Why a tools/call's params cannot be a call, or null when they can. */
function whyNotToolCall(m: Record<string, unknown>): string | null {
  const { params } = m;
  if (!isObject(params)) return `tools/call needs params, an object with the tool's name and its arguments (got ${kindOf(params)})`;
  if (typeof params.name !== 'string') return `params.name must be the name of a tool, a string (got ${kindOf(params.name)})`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `params.arguments must be an object of the tool's parameters (got ${kindOf(params.arguments)})`;
  }
  const parsed = CallToolRequestSchema.safeParse(m);
  if (parsed.success) return null;
  const path = parsed.error.issues[0]?.path.join('.') || 'params';
  return `${path} is not what tools/call takes`;
}

/**
 * The message of a body, or the error to answer. HTTP 400 for what the transport itself would refuse (not JSON, not
 * a message), as the Streamable HTTP transport answers; a tools/call with bad params is a request, answered (200)
 * with its id as the protocol answers any request it cannot carry out.
 */
export function readMessage(body: string): ReadMessage {
  let value: unknown;
  try {
    value = readJson(body);
  } catch (err) {
    if (err instanceof JsonLimitError) {
      return {
        error: { status: 400, id: null, code: ErrorCode.InvalidRequest, message: `Invalid Request: the body holds ${err.message}.` },
      };
    }
    return { error: { status: 400, id: null, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid JSON.' } };
  }
  if (!isObject(value)) {
    const message = `Invalid Request: the body must be one JSON-RPC message, a JSON object (got ${kindOf(value)}).`;
    return { error: { status: 400, id: null, code: ErrorCode.InvalidRequest, message } };
  }
  const id = isId(value.id) ? value.id : null;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    return { error: { status: 400, id, code: ErrorCode.InvalidRequest, message: `Invalid Request: ${whyNotJsonRpc(value)}.` } };
  }
  const refused = refuseToolCall(value as JSONRPCMessage);
  if (refused) return { error: { status: 200, ...refused.error } };
  return { message: value as JSONRPCMessage };
}

/**
 * A message the transport has read (stdio reads its own lines) that is a tools/call with params of the wrong type: the
 * JSON-RPC error to answer it with (`-32602`, saying what is wrong), or null for any other message.
 */
export function refuseToolCall(message: JSONRPCMessage): { error: Omit<MessageError, 'status'> } | null {
  const value = message as unknown as Record<string, unknown>;
  if (value.method !== 'tools/call' || !isId(value.id)) return null;
  const why = whyNotToolCall(value);
  return why ? { error: { id: value.id, code: ErrorCode.InvalidParams, message: `Invalid params: ${why}.` } } : null;
}
