import * as fs from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import git from 'isomorphic-git';
import * as z from 'zod';
import { packsIn } from '#ingest/dc-git/packs.ts';

/**
 * Where the scheduled D.C. Code sync keeps the Council's repository between runs (the sources bucket's dc-code/
 * folder in AWS): the packfiles its fetches brought, each with its index, under their own names (`pack-<sha1>`, the
 * SHA-1 git writes at a pack's end: a name is its content), and a manifest naming the packs that make the repository
 * and the commit its default branch was at. A sync puts the new pack first and the manifest last, so a reader (a batch
 * ingest, the next sync) always finds every pack the manifest names; a pack put by a sync that failed before its
 * manifest is named by none and never read.
 */
export interface GitPackStore {
  /** For messages: `s3://bucket/dc-code`. */
  readonly origin: string;
  /** Null before the first sync. */
  readManifest(): Promise<RepositoryManifest | null>;
  writeManifest(manifest: RepositoryManifest): Promise<void>;
  /** The pack's .pack and .idx into `packDir` (each written whole, then renamed); MissingPackError when either is not stored. */
  getPack(name: string, packDir: string): Promise<void>;
  /** Stores the pack's .pack and .idx from `packDir`; answers the .pack's size. */
  putPack(name: string, packDir: string): Promise<number>;
}

export const DC_CODE_FOLDER = 'dc-code';
export const MANIFEST_KEY = posix.join(DC_CODE_FOLDER, 'repository.json');
export const packKey = (name: string, ext: 'pack' | 'idx') => posix.join(DC_CODE_FOLDER, 'packs', `${name}.${ext}`);

const packName = z.string().regex(/^pack-[0-9a-f]{40}$/, { message: 'must be a pack name pack-<sha1>' });
export const manifestSchema = z.strictObject({
  /** The remote the last sync fetched from. */
  remote: z.string(),
  /** The commit the remote's default branch was at. */
  head: z.string().regex(/^[0-9a-f]{40}$/),
  fetchedAt: z.iso.datetime(),
  /** Oldest first. */
  packs: z.array(packName),
});
export type RepositoryManifest = z.output<typeof manifestSchema>;

/** The manifest names a pack the store does not hold (or the store holds no repository at all). */
export class MissingPackError extends Error {
  override readonly name = 'MissingPackError';
}

/**
 * The bare repository at `gitdir` made exactly what the manifest names: packs already there (a warm Lambda sandbox
 * keeps /tmp) are kept, the others fetched and checked (the SHA-1 a pack ends with is its name), packs the manifest
 * does not name removed, HEAD set to its commit.
 */
export async function restoreRepository(store: GitPackStore, gitdir: string, manifest: RepositoryManifest): Promise<void> {
  const packDir = join(gitdir, 'objects', 'pack');
  await git.init({ fs, gitdir, bare: true });
  const held = new Set(await packsIn(gitdir));
  const named = new Set(manifest.packs);
  for (const name of held) {
    if (!named.has(name)) await Promise.all(['pack', 'idx'].map((ext) => rm(join(packDir, `${name}.${ext}`), { force: true })));
  }
  for (const name of manifest.packs) {
    if (held.has(name)) continue;
    await store.getPack(name, packDir);
    const trailer = await lastBytes(join(packDir, `${name}.pack`), 20);
    if (`pack-${trailer.toString('hex')}` !== name) {
      await Promise.all(['pack', 'idx'].map((ext) => rm(join(packDir, `${name}.${ext}`), { force: true })));
      throw new Error(`${store.origin}: the pack stored as ${name} ends with the checksum ${trailer.toString('hex')}: it is not that pack`);
    }
  }
  await writeFile(join(gitdir, 'HEAD'), `${manifest.head}\n`);
}

async function lastBytes(file: string, n: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(n, size));
    await handle.read(buffer, 0, buffer.length, size - buffer.length);
    return buffer;
  } finally {
    await handle.close();
  }
}
