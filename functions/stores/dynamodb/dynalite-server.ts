/**
 * The embedded DynamoDB's server (dynalite) on 127.0.0.1, as its own thread runs it (dynalite-thread.mjs): in
 * memory, or LevelDB on disk when given a path. It serves only requests signed with the credentials it is given
 * (dynalite itself accepts any signature).
 */

import { EventEmitter } from 'node:events';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { crc32 as crc32Natively } from 'node:zlib';
import type { WriteCounters } from '#stores/cache/change-stamps.ts';
import { letDynaliteRememberItsConditions } from './dynalite-expressions.ts';
import { letDynaliteGetSynchronously } from './dynalite-gets.ts';
import { letDynalitePutWithoutReading } from './dynalite-puts.ts';
import { letDynaliteQueryWithoutStreams } from './dynalite-query.ts';
import { type LocalCredentials, type Refusal, signatureCheck } from './signature-check.ts';

interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

// dynalite ships no type declarations; this is the part of its API used here.
const requireHere = createRequire(import.meta.url);
letDynalitePutWithoutReading(); // before dynalite loads, see there
const dynalite = requireHere('dynalite') as (options: DynaliteOptions) => Server;

/*
 * dynalite 4.0.0 reads every Query and Scan through a stream over an abstract-level iterator, and its stream's
 * destroy() closes that iterator only `if (iterator.return)`. abstract-level 3 iterators have close() and no
 * return(), so no iterator was ever closed: each stayed attached to the database with its LevelDB snapshot, and a
 * server answering lookups grew by about 25 KB per query (measured: 1.5 GB after 50,000 queries). Giving the
 * iterators the return() dynalite expects closes them. Resolved from dynalite's own location, so it is the copy of
 * abstract-level that dynalite's stores use.
 */
function letDynaliteCloseItsIterators(): void {
  const levelOfDynalite = createRequire(requireHere.resolve('dynalite'))('abstract-level') as { AbstractIterator: { prototype: object } };
  const common = Object.getPrototypeOf(levelOfDynalite.AbstractIterator.prototype) as { return?: unknown; close(): Promise<void> };
  if (typeof common.return === 'function') return;
  Object.defineProperty(common, 'return', {
    configurable: true,
    writable: true,
    value(this: { close(): Promise<void> }) {
      return this.close().then(() => ({ done: true as const, value: undefined }));
    },
  });
}
letDynaliteCloseItsIterators();

type Callback = (err: Error | null, value?: unknown) => void;
interface TableDb {
  get(key: string, cb?: Callback): unknown;
  put(key: string, value: unknown, cb?: Callback): unknown;
  del(key: string, cb?: Callback): unknown;
}

/*
 * dynalite reads a table's description from LevelDB (a synchronous read and a JSON decode) at the start of every
 * request: in an ingest, that was a tenth of the main thread's time. The descriptions change only through writes
 * to the same sub-database (CreateTable, UpdateTable, DeleteTable and their status changes), so they are kept here,
 * as JSON (each read gets its own copy, which dynalite may change before writing it back), and forgotten on every
 * write of their key; a read that overlapped such a write is not kept.
 */
function letDynaliteRememberItsTables(): void {
  const db = createRequire(requireHere.resolve('dynalite'))('./db') as { create(options: unknown): { tableDb: TableDb }; remembers?: true };
  if (db.remembers) return;
  const create = db.create;
  db.remembers = true;
  db.create = (options: unknown) => {
    const store = create(options);
    const tableDb = store.tableDb;
    const { get, put, del } = tableDb;
    const known = new Map<string, string>();
    const generation = new Map<string, number>();
    const bump = (key: string) => {
      known.delete(key);
      generation.set(key, (generation.get(key) ?? 0) + 1);
    };
    tableDb.get = (key, cb) => {
      if (typeof cb !== 'function') return get.call(tableDb, key);
      const hit = known.get(key);
      if (hit !== undefined) {
        process.nextTick(cb, null, JSON.parse(hit));
        return undefined;
      }
      const at = generation.get(key) ?? 0;
      return get.call(tableDb, key, (err, value) => {
        if (!err && value && typeof value === 'object' && (generation.get(key) ?? 0) === at) known.set(key, JSON.stringify(value));
        cb(err, value);
      });
    };
    const writing =
      (write: (this: TableDb, ...args: never[]) => unknown) =>
      (key: string, ...rest: unknown[]) => {
        bump(key);
        const cb = rest.at(-1);
        if (typeof cb !== 'function') return (write as (...a: unknown[]) => unknown).call(tableDb, key, ...rest);
        return (write as (...a: unknown[]) => unknown).call(tableDb, key, ...rest.slice(0, -1), (err: Error | null, value?: unknown) => {
          bump(key);
          (cb as Callback)(err, value);
        });
      };
    tableDb.put = writing(put) as TableDb['put'];
    tableDb.del = writing(del) as TableDb['del'];
    return store;
  };
}
/**
 * dynalite sets an `x-amz-crc32` header on every answer, computed by buffer-crc32 in JavaScript over the whole body:
 * a tenth of its thread's CPU in a served lookup (whose answer carries the section's texts). Node's zlib computes the
 * same CRC-32 natively (zlib.crc32, Node ≥ 20.15; the value is the same for a string, read as UTF-8, or bytes).
 */
function letDynaliteChecksumNatively(): void {
  const crc32 = createRequire(requireHere.resolve('dynalite'))('buffer-crc32') as { unsigned(data: string | Buffer): number };
  crc32.unsigned = (data) => crc32Natively(data);
}

letDynaliteRememberItsTables();
letDynaliteGetSynchronously();
letDynaliteRememberItsConditions();
letDynaliteQueryWithoutStreams();
letDynaliteChecksumNatively();

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'CreateTable', 'DeleteTable', 'UpdateTable']);

/**
 * The tables a write request names. In DynamoDB JSON `"TableName":"` can only be the top-level member (inside a
 * string the quotes would be escaped, and an item attribute's value is an object), so the first match is the target;
 * a batch names its tables as the keys of RequestItems.
 */
export function writtenTables(operation: string, body: string): string[] {
  if (operation === 'BatchWriteItem') {
    try {
      return Object.keys((JSON.parse(body) as { RequestItems?: object }).RequestItems ?? {});
    } catch {
      return []; // dynalite answers a SerializationException and writes nothing
    }
  }
  const m = /"TableName"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(body);
  return m ? [JSON.parse(`"${m[1]}"`) as string] : [];
}

/** dynalite's own cap on a request body. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** The whole body, or null once it passes `max` bytes (the rest is then discarded). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.once('end', () => resolve(size <= max ? Buffer.concat(chunks) : null));
    req.once('error', reject);
  });
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  const body = JSON.stringify({ __type: `com.amazon.coral.service#${refusal.type}`, message: refusal.message });
  res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The request as dynalite reads it (headers, method, url and a body stream), with the body already read. */
const replayed = (req: IncomingMessage, body: Buffer): IncomingMessage =>
  Object.assign(Readable.from(body.length ? [body] : []), {
    headers: req.headers,
    method: req.method,
    url: req.url,
  }) as unknown as IncomingMessage;

/**
 * Counts a write that was admitted in `counters` (from any client: the serving process's adapters or an `asof`
 * command in another terminal): begun before dynalite sees it; the returned function ends it, once, when dynalite
 * answers (before the answer is sent) or when the exchange is cut off. A read returns null.
 */
function countWrite(counters: WriteCounters, operation: string, body: string): (() => void) | null {
  if (!WRITE_OPERATIONS.has(operation)) return null;
  const written = writtenTables(operation, body);
  for (const table of written) counters.begin(table);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    for (const table of written) counters.end(table);
  };
}

/**
 * Puts a door in front of dynalite: each request's body is read, its signature checked against `credentials`, and
 * only then is it handed to dynalite. A write that passes is counted (countWrite).
 */
function admitSignedOnly(server: Server, serve: RequestListener, credentials: LocalCredentials, counters: WriteCounters): void {
  const checkSignature = signatureCheck(credentials);
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const admit = async (): Promise<void> => {
      const body = await readBody(req, MAX_REQUEST_BYTES);
      if (body === null) {
        res.writeHead(413).end();
        return;
      }
      const refusal = await checkSignature(req, body);
      if (refusal) {
        refuse(res, refusal);
        return;
      }
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const endWrite = countWrite(counters, operation, body.toString('utf8'));
      if (endWrite) {
        // Ended before the answer leaves, so that no reader in another thread has the answer while the write still counts.
        const answer = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
        res.end = ((...args: unknown[]) => {
          endWrite();
          return answer(...args);
        }) as ServerResponse['end'];
        res.once('close', endWrite);
      }
      serve(replayed(req, body), res);
    };
    admit().catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  });
}

/** A DynamoDB call as it crosses between threads: the `X-Amz-Target` header and the JSON body; the answer likewise. */
export interface DirectRequest {
  target: string;
  body: string;
}
export interface DirectAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/*
 * dynalite insists on a well-formed SigV4 authorization header (and a date) before it looks at a request, though it
 * checks no signature: what a request handed over in-process carries in place of one.
 */
const UNSIGNED_HEADERS = {
  authorization: 'AWS4-HMAC-SHA256 Credential=local/19700101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  'x-amz-date': '19700101T000000Z',
  'content-type': 'application/x-amz-json-1.0',
};

/** The request as dynalite's listener reads it: headers, method, url, and the body as one `data` event. */
class DirectRequestMessage extends EventEmitter {
  readonly method = 'POST';
  readonly url = '/';
  constructor(readonly headers: Record<string, string>) {
    super();
  }
}

/** The answer as dynalite's listener writes it (it only sets headers and a status, then ends with the body). */
class DirectResponse {
  statusCode = 200;
  contentType: string | undefined;
  readonly headers: Record<string, string> = {};
  constructor(private readonly done: (answer: DirectAnswer) => void) {}
  setHeader(name: string, value: unknown): void {
    this.headers[name.toLowerCase()] = String(value);
  }
  end(body?: string | Buffer): void {
    this.done({ status: this.statusCode, headers: this.headers, body: body === undefined ? '' : String(body) });
  }
}

/**
 * dynalite's own listener called in its thread without a socket, for requests that come over a MessagePort from the
 * process that started the thread (only it holds the port, so nothing is signed or checked: the port is the
 * credential). Writes are counted as over HTTP.
 */
function directDoor(serve: RequestListener, counters: WriteCounters): (request: DirectRequest) => Promise<DirectAnswer> {
  const headers = { ...UNSIGNED_HEADERS };
  return (request) =>
    new Promise((resolve) => {
      const operation = request.target.split('.')[1] ?? '';
      const endWrite = countWrite(counters, operation, request.body);
      const req = new DirectRequestMessage({ ...headers, 'x-amz-target': request.target });
      const res = new DirectResponse((answer) => {
        endWrite?.();
        resolve(answer);
      });
      serve(req as unknown as IncomingMessage, res as unknown as ServerResponse);
      req.emit('data', Buffer.from(request.body, 'utf8'));
      req.emit('end');
    });
}

export interface DynaliteServing {
  port: number;
  /** Answers a request in this thread, without a socket or a signature (directDoor). */
  direct(request: DirectRequest): Promise<DirectAnswer>;
  /** Stops the listener, drops open connections and closes LevelDB (releasing its lock). */
  close(): Promise<void>;
}

/** Serves dynalite on 127.0.0.1:`port` (0: any free port) to requests signed with `credentials` only. */
export async function serveDynalite(options: {
  path?: string;
  port?: number;
  credentials: LocalCredentials;
  counters: WriteCounters;
}): Promise<DynaliteServing> {
  const server = dynalite({
    ...(options.path && { path: options.path }),
    createTableMs: 5,
    deleteTableMs: 5,
    updateTableMs: 5,
  });
  const serve = server.listeners('request')[0] as RequestListener;
  admitSignedOnly(server, serve, options.credentials, options.counters);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      // dynalite's close waits for the HTTP server, which waits for every keep-alive socket: drop them.
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };
  return { port, close, direct: directDoor(serve, options.counters) };
}
