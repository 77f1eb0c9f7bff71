/** A data dir is its owner's alone: what makeDataDirPrivate does to an existing tree, and to what the process creates after. */
import { chmod, lstat, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDirPrivate } from '#local/data-dir.ts';

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
