/** An embedded DynamoDB (dynalite) on 127.0.0.1: in memory, or LevelDB on disk when given a path. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { WriteTracker } from '#stores/cache/change-stamps.ts';

interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

// dynalite ships no type declarations; this is the part of its API used here.
const requireHere = createRequire(import.meta.url);
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

export interface RunningDynalite {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** Stops the listener, drops open connections and closes LevelDB (releasing its lock). */
  close(): Promise<void>;
}

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

/**
 * Reports every write request the server receives, from any client (this process's adapters, or an `asof` command in
 * another terminal), to the tracker: begun once its body has arrived, before dynalite applies it (dynalite acts on
 * the 'end' of the body, and this listener is registered first); ended when the response is done.
 */
function observeWrites(server: Server, tracker: WriteTracker): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    if (!WRITE_OPERATIONS.has(operation)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const written = writtenTables(operation, Buffer.concat(chunks).toString('utf8'));
      for (const table of written) tracker.begin(table);
      res.once('close', () => {
        for (const table of written) tracker.end(table);
      });
    });
  });
}

/** `tracker`: told of every write the server receives (the embedded stores' caches rely on it). */
export async function startDynalite(options: { path?: string; port?: number; tracker?: WriteTracker } = {}): Promise<RunningDynalite> {
  const server = dynalite({
    ...(options.path && { path: options.path }),
    createTableMs: 5,
    deleteTableMs: 5,
    updateTableMs: 5,
  });
  if (options.tracker) observeWrites(server, options.tracker);
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
    // From now on no cache may answer for this store: a read must fail as the store does.
    options.tracker?.closeAll();
    closing ??= new Promise<void>((resolve, reject) => {
      // dynalite's close waits for the HTTP server, which waits for every keep-alive socket: drop them.
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };
  return { endpoint: `http://127.0.0.1:${port}`, close };
}
