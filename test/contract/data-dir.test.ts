/**
 * A data dir is its owner's alone: what makeDataDirPrivate does to an existing tree, and to what the process creates
 * after; and where the admin socket goes when the data dir's path is too long for one, served and called for real.
 */
import { chmod, chown, lstat, mkdir, mkdtemp, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callAdminJob, listenAdminSocket } from '#local/admin-socket.ts';
import { adminSocketPlace, findRunningServer, makeDataDirPrivate, ownDirectoryProblem } from '#local/data-dir.ts';
import { serveLocal } from '#local/local-runtime.ts';
import { testLogger } from '../support/test-logger.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'asof-data-dir-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await lstat(path)).mode & 0o777;

describe('makeDataDirPrivate', () => {
  it('creates a missing data dir 0700', async () => {
    const dir = join(root, 'fresh', 'data');
    await makeDataDirPrivate(dir);
    expect(await modeOf(dir)).toBe(0o700);
  });

  it('makes every folder of an existing data dir 0700 and every file 0600, leaving what a link points to alone', async () => {
    // Prepare: a world-readable tree, with a link to a file outside it
    const dir = join(root, 'existing');
    await mkdir(join(dir, 'dynamodb'), { recursive: true });
    await mkdir(join(dir, 'postgres', 'base', '5'), { recursive: true });
    const outside = join(root, 'outside.txt');
    await writeFile(outside, 'not the data dir');
    await chmod(outside, 0o644);
    for (const f of ['dynamodb/CURRENT', 'postgres/PG_VERSION', 'postgres/base/5/1259', 'runtime.json']) {
      await writeFile(join(dir, f), 'x');
      await chmod(join(dir, f), 0o666);
    }
    for (const d of ['.', 'dynamodb', 'postgres', 'postgres/base', 'postgres/base/5']) await chmod(join(dir, d), 0o777);
    await symlink(outside, join(dir, 'link'));

    // Act
    await makeDataDirPrivate(dir);

    // Assess
    for (const d of ['.', 'dynamodb', 'postgres', 'postgres/base', 'postgres/base/5'])
      expect([d, await modeOf(join(dir, d))]).toEqual([d, 0o700]);
    for (const f of ['dynamodb/CURRENT', 'postgres/PG_VERSION', 'postgres/base/5/1259', 'runtime.json'])
      expect([f, await modeOf(join(dir, f))]).toEqual([f, 0o600]);
    expect(await readlink(join(dir, 'link'))).toBe(outside);
    expect(await modeOf(outside)).toBe(0o644);
  });

  it('leaves the process creating files and folders private from then on (umask 077)', async () => {
    await makeDataDirPrivate(join(root, 'umask'));
    await writeFile(join(root, 'umask', 'later.log'), 'written by a store after the data dir was opened');
    await mkdir(join(root, 'umask', 'later'));
    expect(await modeOf(join(root, 'umask', 'later.log'))).toBe(0o600);
    expect(await modeOf(join(root, 'umask', 'later'))).toBe(0o700);
  });
});

describe('adminSocketPlace', () => {
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  afterEach(() => {
    if (runtimeDir === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = runtimeDir;
  });
  /** A data dir whose `asof.sock` would pass the length a Unix socket's path may have. */
  const longDataDir = () => join(root, 'long', 'd'.repeat(120));

  it('puts the socket in the data dir when its path is short enough', async () => {
    const place = await adminSocketPlace(join(root, 'short'));
    expect(place.path).toBe(join(root, 'short', 'asof.sock'));
  });

  it('puts it, for a long data dir, in a fresh directory of random name that only this user can enter', async () => {
    // Prepare
    delete process.env.XDG_RUNTIME_DIR;
    const dataDir = longDataDir();

    // Act
    const [place, again] = await Promise.all([adminSocketPlace(dataDir), adminSocketPlace(dataDir)]);
    const server = await listenAdminSocket(place.path, { echo: async (body) => body });
    const answer = await callAdminJob(place.path, 'echo', { asked: 1 }, () => undefined).finally(
      () => new Promise((done) => server.close(done)),
    );

    // Assess: not a name another user could derive from the data dir and create first
    expect(dirname(dirname(place.path))).toBe(tmpdir());
    expect(dirname(place.path)).not.toBe(dirname(again.path));
    expect(await modeOf(dirname(place.path))).toBe(0o700);
    expect((await stat(dirname(place.path))).uid).toBe(process.getuid!());
    expect(answer).toEqual({ asked: 1 });
    await Promise.all([place.remove(), again.remove()]);
    await expect(lstat(dirname(place.path))).rejects.toThrow(/ENOENT/);
  });

  it("takes $XDG_RUNTIME_DIR when it is this user's alone, and the temp dir when others may write there", async () => {
    const privateRuntime = await mkdtemp(join(root, 'run-'));
    const sharedRuntime = await mkdtemp(join(root, 'run-'));
    await chmod(sharedRuntime, 0o777);

    process.env.XDG_RUNTIME_DIR = privateRuntime;
    const inRuntime = await adminSocketPlace(longDataDir());
    process.env.XDG_RUNTIME_DIR = sharedRuntime;
    const refused = await adminSocketPlace(longDataDir());

    expect(dirname(dirname(inRuntime.path))).toBe(privateRuntime);
    expect(dirname(dirname(refused.path))).toBe(tmpdir());
    await Promise.all([inRuntime.remove(), refused.remove()]);
  });

  it("finds a directory unfit for a socket: not a directory, writable by others, or another user's", async () => {
    const open = await mkdtemp(join(root, 'open-'));
    await chmod(open, 0o757);
    const link = join(root, 'link-to-dir');
    await symlink(await mkdtemp(join(root, 'target-')), link);

    expect(await ownDirectoryProblem(open)).toBe('is writable by others (mode 757)');
    expect(await ownDirectoryProblem(link)).toBe('is not a directory');
    expect(await ownDirectoryProblem(join(root, 'missing'))).toBe('is not a directory');
    expect(await ownDirectoryProblem(await mkdtemp(join(root, 'mine-')))).toBeNull();
    if (process.getuid?.() === 0) {
      const theirs = await mkdtemp(join(root, 'theirs-'));
      await chown(theirs, 4321, 4321);
      expect(await ownDirectoryProblem(theirs)).toBe('is owned by uid 4321, not this user (0)');
    }
  });

  it('is where asof serve on a long data dir listens, as runtime.json tells other commands, and is gone after', async () => {
    delete process.env.XDG_RUNTIME_DIR;
    const dataDir = join(root, 'served', 'd'.repeat(120));
    const server = await serveLocal({ dataDir, port: 0, sample: false, schedules: false, logger: testLogger() });
    let socket: string | undefined;
    try {
      const running = await findRunningServer(dataDir);
      socket = running?.adminSocket;
      expect(dirname(dirname(socket!))).toBe(tmpdir());
      expect(await modeOf(dirname(socket!))).toBe(0o700);
      expect(await callAdminJob(socket!, 'probe', {}, () => undefined)).toMatchObject({ detail: 'empty_corpus' });
    } finally {
      await server.close();
    }
    await expect(lstat(dirname(socket!))).rejects.toThrow(/ENOENT/);
  }, 120_000);
});
