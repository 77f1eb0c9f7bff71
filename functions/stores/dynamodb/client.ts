/** The DynamoDB plumbing the adapters share: the client, error mapping, batch retries, bounded concurrency, item size. */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '#shared/errors.ts';

export type DynamoStoreName = 'versions' | 'ops' | 'accounts';

export interface DynamoClientOptions {
  /** A local endpoint (dynalite, DynamoDB Local); omitted = AWS, with the default region and credential chain. */
  endpoint?: string;
  region?: string;
  /** Overrides the whole-request timeout (ms). */
  requestTimeoutMs?: number;
  /** Instruments the client before it is wrapped (a deployed function's tracer). */
  capture?: (client: DynamoDBClient) => DynamoDBClient;
}

/*
 * Locally a stopped store refuses connections and surfaces at once (2 attempts); a hung one within 2 × requestTimeout.
 * The request timeout must still let dynalite, single-threaded, answer parallel batches of large items
 * (one 25 × 390 KB BatchWriteItem takes ~0.4 s).
 */
const LOCAL_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 3_000 };
const AWS_TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 10_000 };

export function createDocumentClient(options: DynamoClientOptions = {}): DynamoDBDocumentClient {
  const timeouts = options.endpoint ? LOCAL_TIMEOUTS : AWS_TIMEOUTS;
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
        // Local stores accept any signature; fixed credentials keep the developer's AWS profile out of it.
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 2,
        requestHandler,
      }
    : { ...(options.region && { region: options.region }), requestHandler };
  const client = new DynamoDBClient(config);
  return DynamoDBDocumentClient.from(options.capture ? options.capture(client) : client, {
    marshallOptions: { removeUndefinedValues: true },
  });
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

/** Runs one store call, mapping connection failures. */
export async function guarded<T>(store: DynamoStoreName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toStoreError(store, err);
  }
}

export const isConditionFailure = (err: unknown): boolean => err instanceof Error && err.name === 'ConditionalCheckFailedException';

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `task` over `items` with at most `limit` in flight; rejects with the first failure. */
export async function forEachBounded<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
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

/** DynamoDB's item limit: attribute names plus values, strings counted in UTF-8 bytes. */
export const MAX_ITEM_BYTES = 400 * 1024;

function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/^-|\.|e.*$/gi, '')
      .replace(/^0+|0+$/g, '').length;
    return 1 + Math.ceil(Math.max(1, digits) / 2);
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueBytes(v), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  return 3 + attributesBytes(value as Record<string, unknown>, true);
}

function attributesBytes(item: Record<string, unknown>, nested: boolean): number {
  let sum = 0;
  for (const [name, v] of Object.entries(item)) {
    if (v === undefined) continue;
    sum += Buffer.byteLength(name, 'utf8') + valueBytes(v) + (nested ? 1 : 0);
  }
  return sum;
}

/** An upper estimate of an item's stored size, as DynamoDB counts it. */
export const itemBytes = (item: Record<string, unknown>): number => attributesBytes(item, false);

/** Fails loudly, naming the item, rather than letting DynamoDB reject a batch anonymously (or anything truncate). */
export function assertItemFits(item: Record<string, unknown>, what: string): void {
  const bytes = itemBytes(item);
  if (bytes > MAX_ITEM_BYTES) {
    throw new Error(`${what} is ${bytes} bytes stored, over DynamoDB's 400 KB (${MAX_ITEM_BYTES}-byte) item limit; it was not written`);
  }
}
