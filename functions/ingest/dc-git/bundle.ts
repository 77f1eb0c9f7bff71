/**
 * A git bundle (`git bundle create`) is a text header naming the refs it carries, then one packfile. Importing it into
 * a bare repository is writing the pack and indexing it; isomorphic-git reads it from there like any clone.
 */
import { open } from 'node:fs/promises';

export interface BundleHeader {
  /** `HEAD`'s commit, or the only ref's when the bundle records no HEAD. */
  head: string;
  refs: Map<string, string>;
  /** Byte offset of the packfile. */
  packOffset: number;
}

const SIGNATURES = ['# v2 git bundle', '# v3 git bundle'];
/** A header is a few lines per ref; no real bundle's comes near this. */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;

export class NotABundleError extends Error {}

/** Reads and checks a bundle's header; throws NotABundleError when `file` is not a complete git bundle. */
export async function readBundleHeader(file: string): Promise<BundleHeader> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_HEADER_BYTES, 0);
    const text = buffer.subarray(0, bytesRead);
    const end = text.indexOf('\n\n');
    const lines = text
      .subarray(0, end < 0 ? 0 : end)
      .toString('utf8')
      .split('\n');
    if (end < 0 || !SIGNATURES.includes(lines[0] ?? '')) throw new NotABundleError(`${file} is not a git bundle`);
    const refs = new Map<string, string>();
    for (const line of lines.slice(1)) {
      if (line.startsWith('@')) continue; // v3 capabilities (object-format=sha1 is the only one isomorphic-git reads)
      if (line.startsWith('-')) throw new NotABundleError(`${file} is an incremental bundle: it needs commits it does not carry`);
      const m = /^([0-9a-f]{40}) (\S+)$/.exec(line);
      if (!m) throw new NotABundleError(`${file}: unreadable bundle header line '${line}'`);
      refs.set(m[2]!, m[1]!);
    }
    const head = refs.get('HEAD') ?? (refs.size === 1 ? [...refs.values()][0] : undefined);
    if (!head) throw new NotABundleError(`${file}: the bundle names no HEAD among its ${refs.size} refs`);
    const packOffset = end + 2;
    const magic = buffer.subarray(packOffset, packOffset + 4).toString('latin1');
    if (magic !== 'PACK') throw new NotABundleError(`${file}: no packfile after the bundle header`);
    return { head, refs, packOffset };
  } finally {
    await handle.close();
  }
}
