import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AuthoredFile } from './authored.ts';

/** Record files an operator is authoring (files, or folders of .json files), read as the bundled ones are. */
export async function readRecordFiles(paths: readonly string[]): Promise<AuthoredFile[]> {
  const files: string[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      for (const name of (await readdir(path)).sort()) if (name.endsWith('.json')) files.push(join(path, name));
    } else files.push(path);
  }
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(file, 'utf8');
      try {
        return { file: basename(file), content: JSON.parse(text) as unknown };
      } catch (err) {
        throw new Error(`${file} is not JSON: ${(err as Error).message}`);
      }
    }),
  );
}
