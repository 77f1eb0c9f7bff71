import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, inflateRawSync } from 'node:zlib';

/** The OLRC release-point zips the repo carries (data/uslm/olrc/…/xml_usc<TT>@<c>-<n>.zip), sorted. */
export async function olrcZips(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries
    .filter((e) => /xml_usc[0-9a-z]+@[^/]+\.zip$/i.test(e))
    .map((e) => join(root, e))
    .sort();
}

/**
 * The one file of an OLRC title zip, inflated (its whole text, or with `prefixBytes` of compressed data only the
 * start of it). OLRC packs one `usc<TT>.xml`, deflated, per zip: the first local header says where its data starts.
 */
export async function olrcZipText(zip: string, prefixBytes?: number): Promise<string> {
  const bytes = await readFile(zip);
  if (bytes.readUInt32LE(0) !== 0x04034b50) throw new Error(`${zip}: not a zip (no local file header)`);
  if (bytes.readUInt16LE(8) !== 8) throw new Error(`${zip}: its file is not deflated`);
  const start = 30 + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
  const data = bytes.subarray(start, prefixBytes === undefined ? undefined : start + prefixBytes);
  return inflateRawSync(data, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
}
