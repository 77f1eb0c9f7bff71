/** An embedded DynamoDB (dynalite) on 127.0.0.1: in memory, or LevelDB on disk when given a path. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

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

export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<RunningDynalite> {
  const server = dynalite({
    ...(options.path && { path: options.path }),
    createTableMs: 5,
    deleteTableMs: 5,
    updateTableMs: 5,
  });
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
  return { endpoint: `http://127.0.0.1:${port}`, close };
}
