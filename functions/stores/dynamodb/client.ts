/** The DynamoDB plumbing the adapters share: the client, a table's calls and pages, error mapping, batch retries, item size. */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '#shared/errors.ts';

/** DynamoDB's item limit, for the adapters here (the SQLite version store keeps it for histories too). */
export { assertItemFits, itemBytes } from '../item-size.ts';

export type DynamoStoreName = 'versions' | 'ops' | 'accounts';

/** A DynamoDB at an address of its own (dynalite in the contract tests and the upgrade): where, and how to sign. */
export interface LocalDynamoAccess {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export type DynamoClientOptions = {
  region?: string;
  /** Overrides the whole-request timeout (ms). */
  requestTimeoutMs?: number;
  /**
   * AWS: bound every call, retries included, well inside a request's function (`request-path`: 1 s to connect, 2.5 s
   * a request, 2 attempts, about 7 s at worst against the route functions' 10 s), so that a hung table answers 503
   * and not a function timeout; `job` (default): the SDK's 3 attempts and 10 s a request, for large batches.
   */
  bound?: 'request-path' | 'job';
  /** Instruments the client before it is wrapped (a deployed function's tracer). */
  capture?: (client: DynamoDBClient) => DynamoDBClient;
} & (
  | LocalDynamoAccess
  /** AWS, with the default region and credential chain. */
  | { endpoint?: undefined; credentials?: undefined }
);

/*
 * Locally a stopped store refuses connections and surfaces at once (2 attempts); a hung one within 2 × requestTimeout.
 * The request timeout must still let dynalite, single-threaded, answer parallel batches of large items
 * (one 25 × 390 KB BatchWriteItem takes ~0.4 s).
 */
const LOCAL_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 3_000 };
const AWS_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 10_000 };
const AWS_REQUEST_PATH = { timeouts: { connectionTimeout: 1_000, requestTimeout: 2_500 }, maxAttempts: 2 };

const LOCAL_UNUSED_MIDDLEWARE = ['getUserAgentMiddleware', 'recursionDetectionMiddleware'];

/** The document client of a DynamoDB: AWS's, or a local one (dynalite) at its endpoint. */
export function createDocumentClient(options: DynamoClientOptions = {}): DynamoDBDocumentClient {
  const { client } = createDynamoClient(options);
  return DynamoDBDocumentClient.from(options.capture ? options.capture(client) : client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** The low-level client under a document client, and its request timeout. */
export function createDynamoClient(options: DynamoClientOptions = {}): { client: DynamoDBClient; requestTimeout: number } {
  const requestPath = !options.endpoint && options.bound === 'request-path';
  const timeouts = options.endpoint ? LOCAL_TIMEOUTS : requestPath ? AWS_REQUEST_PATH.timeouts : AWS_TIMEOUTS;
  // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes.
  const requestHandler = {
    ...timeouts,
    ...(options.requestTimeoutMs && { requestTimeout: options.requestTimeoutMs }),
    throwOnRequestTimeout: true,
  };
  const config: DynamoDBClientConfig = options.endpoint
    ? {
        endpoint: options.endpoint,
        region: options.region ?? 'us-east-1',
        credentials: options.credentials,
        maxAttempts: 2,
        requestHandler,
      }
    : {
        ...(options.region && { region: options.region }),
        ...(requestPath && { maxAttempts: AWS_REQUEST_PATH.maxAttempts }),
        requestHandler,
      };
  const client = new DynamoDBClient(config);
  // The SDK's logger middleware passes every input and output, texts included, through its sensitive-data filter
  // (a deep copy) to hand them to a logger that discards them: 1.5 % of an ingest's main thread. Nothing reads it.
  client.middlewareStack.remove('loggerMiddleware');
  // A local DynamoDB reads neither the user agent the SDK builds for every request nor the Lambda trace id it copies
  // from the environment (AWS's telemetry and recursion detection).
  if (options.endpoint) for (const name of LOCAL_UNUSED_MIDDLEWARE) client.middlewareStack.remove(name);
  return { client, requestTimeout: requestHandler.requestTimeout };
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'UnknownEndpoint', 'NetworkingError', 'ServiceUnavailable']);

function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (CONNECTION_NAMES.has(err.name)) return true;
  if (/socket hang up/i.test(err.message)) return true;
  // Node reports a failed happy-eyeballs connect as an AggregateError of the per-address errors.
  if (err instanceof AggregateError) return err.errors.some(isConnectionFailure);
  return isConnectionFailure(err.cause);
}

/** Connection-level failures become StoreUnavailableError (a 503); every other error is returned unchanged. */
export function toStoreError(store: DynamoStoreName, err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isConnectionFailure(err)) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(store, `the ${store} store cannot be reached: ${detail}`, { cause: err });
}

/** A command of the document client, with the input and output types it carries. */
type DocumentCommand<I extends ServiceInputTypes, O extends ServiceOutputTypes> = Parameters<
  typeof DynamoDBDocumentClient.prototype.send<I, O>
>[0];

/** An item as the document client returns it. */
type Item = NonNullable<QueryCommandOutput['Items']>[number];

/**
 * One table as every adapter uses it: each command sent with connection failures mapped (toStoreError), and Query
 * and Scan read page after page (LastEvaluatedKey) as one stream of items.
 */
export class DynamoTable {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly name: string,
    private readonly store: DynamoStoreName,
  ) {}

  async send<I extends ServiceInputTypes, O extends ServiceOutputTypes>(command: DocumentCommand<I, O>): Promise<O> {
    try {
      return await this.doc.send(command);
    } catch (err) {
      throw toStoreError(this.store, err);
    }
  }

  /** Every item the query selects, in order; `pageLimit` (when above 0) caps each page, for reads that stop early. */
  async *query(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>, pageLimit?: () => number): AsyncIterable<Item> {
    let start: Record<string, unknown> | undefined;
    do {
      const limit = pageLimit?.();
      const page = await this.send(
        new QueryCommand({ ...input, TableName: this.name, ...(start && { ExclusiveStartKey: start }), ...(limit && { Limit: limit }) }),
      );
      yield* page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }

  /** Every item the scan selects. */
  async *scan(input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncIterable<Item> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.send(new ScanCommand({ ...input, TableName: this.name, ...(start && { ExclusiveStartKey: start }) }));
      yield* page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }
}

export const isConditionFailure = (err: unknown): boolean => err instanceof Error && err.name === 'ConditionalCheckFailedException';

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const MAX_IDLE_ROUNDS = 8;

/**
 * Repeats a batch call on what it left unprocessed. A round that made progress (DynamoDB also leaves items over for
 * response size, not only throttling) goes again at once; rounds without progress back off exponentially, with jitter.
 */
export async function untilProcessed<T>(what: string, initial: T[], round: (pending: T[]) => Promise<T[]>): Promise<void> {
  let pending = initial;
  let idle = 0;
  while (pending.length) {
    const left = await round(pending);
    if (left.length < pending.length) idle = 0;
    else if (++idle > MAX_IDLE_ROUNDS)
      throw new Error(`${what}: ${left.length} item(s) stayed unprocessed after ${MAX_IDLE_ROUNDS} retries`);
    if (idle) await sleep(Math.min(2_000, 25 * 2 ** idle) * (0.5 + Math.random() / 2));
    pending = left;
  }
}
