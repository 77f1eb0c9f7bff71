import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** What a running `asof serve` leaves in its data dir so other `asof` commands can reach it. */
export interface RuntimeInfo {
  pid: number;
  apiUrl: string;
  /** The embedded DynamoDB's endpoint: `asof keys` talks to it the way developers use DynamoDB Local. */
  dynamoEndpoint: string;
  /** Unix socket for jobs that need the server's own stores (ingest, audit, reindex). */
  adminSocket: string;
  startedAt: string;
}

export const resolveDataDir = (dir: string | undefined): string => resolve(dir ?? process.env.ASOF_DATA_DIR ?? '.asof');
const runtimeFile = (dataDir: string) => join(dataDir, 'runtime.json');

/** Unix socket paths are limited to ~104 bytes: long data dirs get a socket in the temp dir named by their hash. */
export function adminSocketPath(dataDir: string): string {
  const local = join(dataDir, 'asof.sock');
  if (Buffer.byteLength(local) < 100) return local;
  return join(tmpdir(), `asof-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

export async function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(runtimeFile(dataDir), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export async function removeRuntimeInfo(dataDir: string): Promise<void> {
  await rm(runtimeFile(dataDir), { force: true });
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const socketAnswers = (path: string): Promise<boolean> =>
  new Promise((done) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      done(true);
    });
    s.once('error', () => done(false));
  });

/** The server running on this data dir, if one is (a stale runtime.json from a crash is ignored). */
export async function findRunningServer(dataDir: string): Promise<RuntimeInfo | null> {
  let info: RuntimeInfo;
  try {
    info = JSON.parse(await readFile(runtimeFile(dataDir), 'utf8')) as RuntimeInfo;
  } catch {
    return null;
  }
  if (!isAlive(info.pid) || !(await socketAnswers(info.adminSocket))) return null;
  return info;
}
