import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SourceEdition } from '../source.ts';
import { type StateCodeFormat, stateCodeFormat, titleFileOf } from './formats.ts';
import { readStateTitleFile } from './title-file.ts';

/** The state's title files among `paths`: files as given, folders searched (in the publisher's layout or not). */
export async function stateTitleFiles(format: StateCodeFormat, paths: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => null);
    if (!info) throw new Error(`${path}: no such file or folder`);
    if (info.isFile()) {
      files.add(resolve(path));
      return;
    }
    for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await visit(child);
      else if (titleFileOf(format, child)) files.add(resolve(child));
    }
  };
  for (const path of paths) await visit(path);
  return [...files];
}

/** Every title file of `state` under `paths`, each an edition (see readStateTitleFile). */
export async function readStateCode(state: string, paths: readonly string[], retrievedAt: string): Promise<SourceEdition[]> {
  const format = stateCodeFormat(state);
  const files = await stateTitleFiles(format, paths);
  if (files.length === 0) {
    throw new Error(`no ${state} title file (gov.${state}.${format.code}.title.NN.html) in ${paths.join(', ')}`);
  }
  return Promise.all(files.map((file) => readStateTitleFile(format, file, retrievedAt)));
}
