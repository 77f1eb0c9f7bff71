/**
 * The serving process's own way to the embedded DynamoDB: each call crosses to dynalite's thread over a MessagePort
 * and is answered by dynalite's request listener there without a socket (dynalite-server.ts, directDoor). The item
 * commands skip the AWS SDK's pipeline too (direct-document-client.ts); any other command keeps it, and only its last
 * hop changes: DirectRequestHandler takes the place of the SDK's HTTP handler. Nothing is signed (the port is the
 * credential; other processes still come over HTTP, signed). At 32 connections the port took a lookup's server CPU
 * from 4.5–6.1 to 2.6–3.0 ms on a loaded machine, all threads counted, and skipping the pipeline to 1.0–1.1 ms
 * (docs/DECISIONS.md, "Local runtime").
 */
import type { MessagePort } from 'node:worker_threads';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DirectAnswer, DirectRequest } from './dynalite-server.ts';

type Reply = ({ id: number } & DirectAnswer) | { id: number; error: string };

interface Pending {
  resolve(answer: DirectAnswer): void;
  reject(err: Error): void;
}

/** As a closed socket fails: a connection error, which toStoreError makes a 503. */
const refused = (why: string) => Object.assign(new Error(`the embedded DynamoDB ${why}`), { code: 'ECONNREFUSED' });

/** The main thread's end of the port: requests with ids, answers matched back to them. */
export class DirectDynamo {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private gone: Error | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply);
    });
    port.on('close', () => this.close());
    // Waiting answers do not keep a process alive (the thread itself does, until it is closed).
    port.unref();
  }

  send(request: DirectRequest): Promise<DirectAnswer> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, ...request });
    });
  }

  /** Fails what waits and every later call, as a stopped store's closed port would. */
  close(): void {
    if (this.gone) return;
    this.gone = refused('is closed');
    for (const waiting of this.pending.values()) waiting.reject(this.gone);
    this.pending.clear();
    this.port.close();
  }
}

interface SdkRequest {
  headers: Record<string, string>;
  body?: unknown;
}

/** The JSON the SDK serialized: a string, or its bytes (read through a plain view: its adapter class warns on string use). */
function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return '';
}

const timeoutError = (ms: number) =>
  Object.assign(new Error(`the embedded DynamoDB did not answer within ${ms} ms`), { name: 'TimeoutError' });

/** One call over `direct`, failed with a TimeoutError (a 503, as the SDK's request timeout is) after `timeoutMs`. */
export async function sendWithin(direct: DirectDynamo, request: DirectRequest, timeoutMs: number): Promise<DirectAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([direct.send(request), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SDK's request handler over a DirectDynamo: the request's target and JSON body go over the port; the answer comes
 * back as the SDK's HTTP response (status, headers, body bytes). `requestTimeoutMs` bounds each attempt, as the HTTP
 * handler's requestTimeout does.
 */
export class DirectRequestHandler {
  readonly metadata = { handlerProtocol: 'in-process' };

  constructor(
    private readonly direct: DirectDynamo,
    private readonly requestTimeoutMs: number,
  ) {}

  async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}) {
    options.abortSignal?.throwIfAborted();
    const target = request.headers['x-amz-target'] ?? '';
    const answer = await sendWithin(this.direct, { target, body: bodyText(request.body) }, this.requestTimeoutMs);
    return {
      response: { statusCode: answer.status, reason: undefined, headers: answer.headers, body: Buffer.from(answer.body, 'utf8') },
    };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}
}

export const directRequestHandler = (direct: DirectDynamo, requestTimeoutMs: number) =>
  new DirectRequestHandler(direct, requestTimeoutMs) as unknown as NonNullable<DynamoDBClientConfig['requestHandler']>;
