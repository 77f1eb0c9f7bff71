/**
 * The document client of the serving process's own embedded DynamoDB: the item commands the adapters send (Get, Put,
 * Update, Delete, Query, Scan, BatchGet, BatchWrite) go straight over the MessagePort as DynamoDB JSON, marshalled
 * as lib-dynamodb marshals them (the command's own key nodes, util-dynamodb), without the SDK's middleware stack
 * (endpoint resolution, retry strategy, schema serde, which took about 40 % of the main thread in a served lookup:
 * bench, 2026-11-25). Any other command (tables, TTL) takes the SDK's whole way over the same port.
 *
 * Errors are the SDK's own exception classes, named by the answer's `__type`, as the SDK makes them; a call is tried
 * once (the SDK's one retry locally only ever met a closed port, which fails again at once).
 */
import * as dynamodb from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { createDynamoClient, type InProcessDynamoAccess } from './client.ts';
import { type DirectDynamo, sendWithin } from './direct-dynamo.ts';
import type { DirectAnswer } from './dynalite-server.ts';

/** lib-dynamodb's description of where attribute values sit in a command's input or output (see walk). */
type KeyNodes = { [key: string]: KeyNodes } | readonly unknown[] | null;

interface ItemCommand {
  input: object;
  inputKeyNodes: KeyNodes;
  outputKeyNodes: KeyNodes;
}

const OPERATIONS = new Map<abstract new (...args: never[]) => object, string>([
  [GetCommand, 'GetItem'],
  [PutCommand, 'PutItem'],
  [UpdateCommand, 'UpdateItem'],
  [DeleteCommand, 'DeleteItem'],
  [QueryCommand, 'Query'],
  [ScanCommand, 'Scan'],
  [BatchGetCommand, 'BatchGetItem'],
  [BatchWriteCommand, 'BatchWriteItem'],
]);

const operationOf = (command: unknown): string | undefined => {
  for (const [type, operation] of OPERATIONS) if (command instanceof type) return operation;
  return undefined;
};

/**
 * lib-dynamodb's key-node walk: `null`, the value is one attribute value; `{}` or `[]`, each member of the value is
 * one; `{ '*': nodes }`, each member by `nodes`; otherwise the named members by theirs, the rest copied as they are.
 */
function walk(value: unknown, nodes: KeyNodes, convert: (v: unknown) => unknown): unknown {
  if (value === undefined) return undefined;
  if (nodes === null) return convert(value);
  const named = Object.keys(nodes);
  const each = (by: KeyNodes) =>
    Array.isArray(value)
      ? value.map((v) => walk(v, by, convert))
      : Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, walk(v, by, convert)]));
  if (named.length === 0) return each(null);
  if (named.length === 1 && named[0] === '*') return each((nodes as Record<string, KeyNodes>)['*']!);
  const out: Record<string, unknown> = { ...(value as object) };
  for (const key of named) {
    const converted = walk(out[key], (nodes as Record<string, KeyNodes>)[key]!, convert);
    if (converted !== undefined) out[key] = converted;
  }
  return out;
}

const toAttribute = (v: unknown) => marshall(v, { removeUndefinedValues: true, convertTopLevelContainer: true });
const fromAttribute = (v: unknown) => unmarshall(v as Record<string, dynamodb.AttributeValue>, { convertWithoutMapWrapper: true });

/** Binary attribute values (`B`, `BS`) travel as base64, as the SDK sends them. */
function binaryAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') : value;
}
const fromBase64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
function binaryFromBase64(key: string, value: unknown): unknown {
  if (key === 'B' && typeof value === 'string') return fromBase64(value);
  if (key === 'BS' && Array.isArray(value)) return value.map((s) => (typeof s === 'string' ? fromBase64(s) : s));
  return value;
}
/** A binary value's member as it can only appear outside a string (where every quote is escaped). */
const BINARY_MEMBER = /"B":"|"BS":\[/;
const parseAnswer = (body: string): Record<string, unknown> =>
  body === '' ? {} : JSON.parse(body, BINARY_MEMBER.test(body) ? binaryFromBase64 : undefined);

type ExceptionClass = new (opts: { message: string; $metadata: object }) => Error;

/** The SDK's exception for a refusal: its class when the client has one of that name (as the SDK's own parser picks it). */
function refusal(answer: DirectAnswer): Error {
  let body: { __type?: string; message?: string; Message?: string } = {};
  try {
    body = parseAnswer(answer.body);
  } catch {
    // an unreadable body still makes an error below
  }
  const name = (body.__type ?? '').split('#').pop() || `Http${answer.status}`;
  const message = body.message ?? body.Message ?? name;
  const $metadata = { httpStatusCode: answer.status, requestId: answer.headers['x-amzn-requestid'], attempts: 1, totalRetryDelay: 0 };
  const known = (dynamodb as unknown as Record<string, unknown>)[name];
  if (typeof known === 'function' && known.prototype instanceof dynamodb.DynamoDBServiceException) {
    return new (known as ExceptionClass)({ ...body, message, $metadata });
  }
  return new dynamodb.DynamoDBServiceException({ name, $fault: answer.status >= 500 ? 'server' : 'client', message, $metadata });
}

export class DirectDocumentClient extends DynamoDBDocumentClient {
  constructor(
    client: dynamodb.DynamoDBClient,
    private readonly direct: DirectDynamo,
    private readonly requestTimeoutMs: number,
  ) {
    super(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  // biome-ignore lint/suspicious/noExplicitAny: the document client's send is overloaded; this keeps every overload
  override send(command: any, ...rest: any[]): any {
    const operation = rest.length === 0 ? operationOf(command) : undefined;
    if (!operation) return (super.send as (...args: unknown[]) => unknown)(command, ...rest);
    return this.sendDirect(operation, command as unknown as ItemCommand);
  }

  private async sendDirect(operation: string, command: ItemCommand): Promise<unknown> {
    const input = walk(command.input, command.inputKeyNodes, toAttribute);
    const body = JSON.stringify(input, binaryAsBase64);
    const answer = await sendWithin(this.direct, { target: `DynamoDB_20120810.${operation}`, body }, this.requestTimeoutMs);
    if (answer.status !== 200) throw refusal(answer);
    const output = walk(parseAnswer(answer.body), command.outputKeyNodes, fromAttribute) as Record<string, unknown>;
    return {
      ...output,
      $metadata: { httpStatusCode: 200, requestId: answer.headers['x-amzn-requestid'], attempts: 1, totalRetryDelay: 0 },
    };
  }
}

/** The document client of this process's embedded DynamoDB (its item commands over the port, the rest through the SDK). */
export function createDirectDocumentClient(access: InProcessDynamoAccess): DirectDocumentClient {
  const { client, requestTimeout } = createDynamoClient(access);
  return new DirectDocumentClient(client, access.direct, requestTimeout);
}
