import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';

/**
 * Where the ingest job finds the source files an event names: a name is a file, or a folder of files, relative to the
 * origin (`uslm/usc01@117-80.xml`, `rules/frap`). The connectors read local files, so each name is made available as a
 * local path first; the names' folder structure is kept (a D.C. manifest names its files relative to itself).
 */
export interface SourceFiles {
  /** Where names are looked up, for messages: `s3://bucket` or a folder. */
  readonly origin: string;
  /** The local path of the named file, or of a folder holding exactly the files under the named folder. */
  localPath(name: string): Promise<string>;
  /** Frees what localPath made (downloaded copies); the paths it returned are gone afterwards. */
  release(): Promise<void>;
}

/** Nothing has this name at the origin: the event names a source that does not exist. */
export class SourceNotFoundError extends Error {
  override readonly name = 'SourceNotFoundError';
  constructor(
    readonly sourceName: string,
    origin: string,
  ) {
    super(`no file or folder named '${sourceName}' in ${origin}`);
  }
}

/** The local path of `name` below `root`; a name that would lead outside it (`a/../../etc`) is refused. */
export function pathBelow(root: string, name: string): string {
  const base = resolve(root);
  const path = resolve(base, name);
  if (!path.startsWith(base + sep)) throw new Error(`refused source name '${name}': it leads outside ${base}`);
  return path;
}

/** Source files in a local folder (tests, and any runtime whose sources are on disk): nothing to fetch or free. */
export class LocalSourceFiles implements SourceFiles {
  constructor(readonly origin: string) {}

  async localPath(name: string): Promise<string> {
    const path = pathBelow(this.origin, name);
    const found = await stat(path).catch(() => null);
    if (!found) throw new SourceNotFoundError(name, this.origin);
    return path;
  }

  async release(): Promise<void> {}
}
