import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { isAlive } from './processes.ts';

/** What a running `asof serve` leaves in its data dir so other `asof` commands can reach it. */
export interface RuntimeInfo {
  pid: number;
  apiUrl: string;
  /**
   * Unix socket for the jobs that need the server's own process (ingest, fetch, audit, probe, reindex, formats): they
   * write the search index, whose cache and repairs live in the server, or use the case-law replica, which PGlite lets
   * one process open. Keys need none of it: `asof keys` opens the accounts file directly.
   */
  adminSocket: string;
  startedAt: string;
}

export const resolveDataDir = (dir: string | undefined): string => resolve(dir ?? process.env.ASOF_DATA_DIR ?? '.asof');
const runtimeFile = (dataDir: string) => join(dataDir, 'runtime.json');

/** Unix socket paths are limited to about 104 bytes (sun_path): a longer one cannot be bound. */
const MAX_SOCKET_PATH_BYTES = 100;

/** Where a server's admin socket is, and how to remove what was made for it once the socket is closed. */
export interface AdminSocketPlace {
  path: string;
  remove(): Promise<void>;
}

/**
 * The admin socket's place: `asof.sock` in the data dir, or, when that path is too long for a Unix socket, in a fresh
 * directory of random name (mkdtemp, 0700) under $XDG_RUNTIME_DIR or the temp dir. A name derived from the data dir
 * would be predictable, and in a temp dir any local user may create it first. Clients find the path in runtime.json.
 */
export async function adminSocketPlace(dataDir: string): Promise<AdminSocketPlace> {
  const local = join(dataDir, 'asof.sock');
  if (Buffer.byteLength(local) < MAX_SOCKET_PATH_BYTES) return { path: local, remove: async () => undefined };
  const runtime = process.env.XDG_RUNTIME_DIR;
  const base = runtime && isAbsolute(runtime) && (await ownDirectoryProblem(runtime)) === null ? runtime : tmpdir();
  const dir = await mkdtemp(join(base, 'asof-'));
  const problem = await ownDirectoryProblem(dir);
  if (problem) throw new Error(`the admin socket's directory ${dir} ${problem}`);
  await chmod(dir, PRIVATE_DIR);
  const path = join(dir, 'asof.sock');
  if (Buffer.byteLength(path) >= MAX_SOCKET_PATH_BYTES) throw new Error(`no directory short enough for the admin socket (${path})`);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Why `dir` may not hold this user's socket (null: it may): a socket's directory must be a real directory, this
 * user's, and writable by no one else, or another user could replace the socket with one of their own.
 */
export async function ownDirectoryProblem(dir: string): Promise<string | null> {
  const st = await lstat(dir).catch(() => null);
  if (!st?.isDirectory()) return 'is not a directory';
  if (process.getuid && st.uid !== process.getuid()) return `is owned by uid ${st.uid}, not this user (${process.getuid()})`;
  if (st.mode & 0o022) return `is writable by others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
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
