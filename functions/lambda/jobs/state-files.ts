import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathBelow } from './source-files.ts';

/**
 * Where a scheduled state-code sync keeps the publisher's title files between its fetch and its ingest (the sources
 * bucket's state-codes/ folder in AWS), each whole and under the publisher's own path. Only a file that passed its
 * check (a title file of the publisher's, with its release line) is stored.
 */
export interface StateFileStore {
  /** For messages: `s3://bucket`. */
  readonly origin: string;
  /** The size of the file stored under `key`; null when none is. */
  find(key: string): Promise<number | null>;
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The file stored under `key` into `file` (its size); StateFileMissingError when there is none. */
  get(key: string, file: string): Promise<number>;
}

export class StateFileMissingError extends Error {
  override readonly name = 'StateFileMissingError';
}

/** A title file of the publisher's states its release in `<p class="transformation">`; an error page served with 200 does not. */
export const isTitleFile = (bytes: Uint8Array): boolean => Buffer.from(bytes).includes('class="transformation"');

/** The store in a local folder (tests, and runs whose bucket is a folder): each file written whole or not at all. */
export class LocalStateFiles implements StateFileStore {
  constructor(readonly origin: string) {}

  async find(key: string): Promise<number | null> {
    return (await stat(pathBelow(this.origin, key)).catch(() => null))?.size ?? null;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = pathBelow(this.origin, key);
    await mkdir(dirname(target), { recursive: true });
    const part = `${target}.part`;
    try {
      await writeFile(part, bytes);
      await rename(part, target);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
  }

  async get(key: string, file: string): Promise<number> {
    const bytes = await readFile(pathBelow(this.origin, key)).catch(() => null);
    if (!bytes) throw new StateFileMissingError(`${this.origin}/${key}: no such file (the fetch step stores it first)`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes);
    return bytes.length;
  }
}
