/**
 * The read file system of a repository (functions/ingest/dc-git/git-read-fs.ts) reads what node's does: objects from
 * packs (the real slice bundle, imported), loose objects where their fan-out folder exists, and nothing where none does.
 */
import * as fs from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitReadFs } from '#ingest/dc-git/git-read-fs.ts';
import { openDcRepository } from '#ingest/dc-git/repository.ts';

const SLICE = resolve(dirname(fileURLToPath(import.meta.url)), '../../../data/dc-code-history/slice.bundle');
type FsClient = Parameters<typeof git.readTree>[0]['fs'];
let cacheDir: string;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'asof-git-read-fs-'));
});
afterAll(() => rm(cacheDir, { recursive: true, force: true }));

describe('the read file system of a repository', () => {
  it('reads every tree and blob of a real publication as node’s file system does', async () => {
    const repo = await openDcRepository(SLICE, cacheDir);
    const { commit } = await git.readCommit({ fs, gitdir: repo.gitdir, oid: repo.head });
    const walk = async (readFs: FsClient, oid: string, cache: object): Promise<string[]> => {
      const out: string[] = [];
      for (const e of (await git.readTree({ fs: readFs, gitdir: repo.gitdir, oid, cache })).tree) {
        if (e.type === 'tree') out.push(...(await walk(readFs, e.oid, cache)));
        else {
          const { blob } = await git.readBlob({ fs: readFs, gitdir: repo.gitdir, oid: e.oid, cache });
          out.push(`${e.path} ${blob.length}`);
        }
      }
      return out;
    };
    const cache = {};
    const read = await walk(gitReadFs(cache), commit.tree, cache);
    expect(read).toHaveLength(10); // every file of the slice's head
    expect(read).toEqual(await walk(fs, commit.tree, {}));
  });

  it('finds a loose object once its fan-out folder exists, and says not found for one that is in no pack', async () => {
    const gitdir = join(cacheDir, 'loose.git');
    await git.init({ fs, gitdir, bare: true });
    const missing = '0123456789abcdef0123456789abcdef01234567';
    const before = gitReadFs({});
    await expect(git.readBlob({ fs: before, gitdir, oid: missing })).rejects.toMatchObject({ code: 'NotFoundError' });
    const oid = await git.writeBlob({ fs, gitdir, blob: new TextEncoder().encode('§ 1. Words denoting number.\n') });
    expect((await readdir(join(gitdir, 'objects'))).includes(oid.slice(0, 2))).toBe(true);
    // A new run's cache sees the folder the write made; the text comes back whole.
    const { blob } = await git.readBlob({ fs: gitReadFs({}), gitdir, oid });
    expect(new TextDecoder().decode(blob)).toBe('§ 1. Words denoting number.\n');
  });
});
