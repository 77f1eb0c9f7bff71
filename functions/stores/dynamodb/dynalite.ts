/**
 * dynalite (DynamoDB on LevelDB) as it ships, in this process on 127.0.0.1: in memory, or on a LevelDB directory. It
 * runs in two places only: the DynamoDB adapters' contract tests (the AWS adapter tested against an emulator, not a
 * mock), and the upgrade of a data dir made before the embedded stores moved to SQLite (it reads the old LevelDB
 * once: functions/local/upgrade-data-dir.ts). Nothing serves the API on it.
 */
import type { AddressInfo } from 'node:net';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';
import type { LocalDynamoAccess } from './client.ts';

export interface RunningDynalite {
  /** `http://127.0.0.1:<port>` and credentials (dynalite accepts any signature): what createDocumentClient needs. */
  access: LocalDynamoAccess;
  /** Stops the listener and closes LevelDB (releasing its lock). */
  close(): Promise<void>;
}

/** The LevelDB of a data dir is held by another process (or by another dynalite in this one). */
export class LevelDbLockedError extends Error {
  override readonly name = 'LevelDbLockedError';
}

/**
 * dynalite opens its LevelDB in the background and answers the first request on a database that failed to open by
 * throwing from its request handler (an uncaught exception: the process dies with "Database is not open"). So the
 * LevelDB is opened here first, with classic-level (the binding dynalite's `level` runs on, the same version, through
 * its public API), and closed again: a lock held elsewhere fails this start with an error that says so. Another
 * process that takes the lock in the instant between this close and dynalite's open is not caught.
 */
export async function checkLevelDbFree(path: string): Promise<void> {
  const db = new ClassicLevel(path);
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new LevelDbLockedError(`${path} is locked by another process`, { cause: err });
    throw err;
  }
  await db.close();
}

/** Starts dynalite; on `path`, fails (LevelDbLockedError) when another process holds that LevelDB's lock. */
export async function startDynalite(options: { path?: string } = {}): Promise<RunningDynalite> {
  if (options.path) await checkLevelDbFree(options.path);
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
