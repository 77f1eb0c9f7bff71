/** An embedded DynamoDB (dynalite) on 127.0.0.1: in memory, or LevelDB on disk when given a path. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { WriteTracker } from '#stores/cache/change-stamps.ts';

interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

// dynalite ships no type declarations; this is the part of its API used here.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

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
