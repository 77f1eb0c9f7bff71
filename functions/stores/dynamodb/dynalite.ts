/**
 * dynalite (DynamoDB on LevelDB) as it ships, in this process on 127.0.0.1: in memory, or on a LevelDB directory. It
 * runs in two places only: the DynamoDB adapters' contract tests (the AWS adapter tested against an emulator, not a
 * mock), and the upgrade of a data dir made before the embedded stores moved to SQLite (it reads the old LevelDB
 * once: functions/local/upgrade-data-dir.ts). Nothing serves the API on it.
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import type { LocalDynamoAccess } from './client.ts';

export interface RunningDynalite {
  /** `http://127.0.0.1:<port>` and credentials (dynalite accepts any signature): what createDocumentClient needs. */
  access: LocalDynamoAccess;
  /** Stops the listener and closes LevelDB (releasing its lock). */
  close(): Promise<void>;
}

/** Starts dynalite; on `path`, fails when another process holds that LevelDB's lock. */
export async function startDynalite(options: { path?: string } = {}): Promise<RunningDynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.path && { path: options.path }) });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    access: { endpoint: `http://127.0.0.1:${port}`, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
    close: () => {
      closing ??= new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((err) => (err ? fail(err) : done()));
      });
      return closing;
    },
  };
}
