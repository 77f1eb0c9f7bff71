import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type { LocalDynamoAccess } from '#stores/dynamodb/client.ts';
import { isAlive } from './processes.ts';

/** What a running `asof serve` leaves in its data dir so other `asof` commands can reach it. */
export interface RuntimeInfo {
  pid: number;
  apiUrl: string;
  /**
   * The embedded DynamoDB's endpoint and the credentials it accepts (fresh at every start): `asof keys` talks to it the
   * way developers use DynamoDB Local. Only the data dir's owner can read them (the file is 0600 in a 0700 dir).
   */
  dynamo: LocalDynamoAccess;
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

/** Folders of a data dir and what they hold: readable by their owner alone. */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Makes a data dir its owner's alone before its stores open: the dir and every folder below it 0700, every file and
 * socket 0600 (a data dir made by an earlier version, or copied, may be world-readable), and this process's umask
 * 077, so that whatever it creates there from now on (LevelDB's tables and logs, PGlite's files, runtime.json, the
 * sockets) is born private. The umask is the process's: an `asof` process works on one data dir and writes nothing
 * else that others need to read.
 */
export async function makeDataDirPrivate(dataDir: string): Promise<void> {
  if (isMainThread) process.umask(0o077); // a worker cannot set it; it shares the main thread's
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  chmodSync(dataDir, PRIVATE_DIR);
  // Synchronous on purpose: a loaded data dir holds about a thousand files, 5-8 ms of system calls in a row; awaited
  // one by one they took 150 ms at start-up, each call waiting its turn behind the server's code loading meanwhile.
  for (const entry of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue; // chmod would change what it points to
    chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE);
  }
}

export async function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR });
  await writeFile(runtimeFile(dataDir), `${JSON.stringify(info, null, 2)}\n`, { mode: PRIVATE_FILE });
  await chmod(runtimeFile(dataDir), PRIVATE_FILE); // the mode above applies only to a file it creates
}

export async function removeRuntimeInfo(dataDir: string): Promise<void> {
  await rm(runtimeFile(dataDir), { force: true });
}

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
