import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The packs of a repository's objects/pack folder that have their index: `pack-<sha1>` names. */
export async function packsIn(gitdir: string): Promise<string[]> {
  const files = await readdir(join(gitdir, 'objects', 'pack')).catch(() => [] as string[]);
  const names = new Set(files);
  return files.filter((f) => f.endsWith('.pack') && names.has(f.replace(/\.pack$/, '.idx'))).map((f) => f.slice(0, -'.pack'.length));
}
