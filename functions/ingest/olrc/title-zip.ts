/**
 * A title's zip as OLRC packs it: one file, `usc<TT>.xml`. Checked by reading that file to its end (yauzl checks the
 * sizes; the CRC-32 is computed here, since yauzl leaves it to its caller), so a zip cut short or altered is refused
 * before anything of it is ingested.
 */
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { type Entry, open as openZipFile, type ZipFile } from 'yauzl';
import { titleEntryPattern } from './titles.ts';

export class CorruptZipError extends Error {}

export interface TitleZipEntry {
  /** The file's name inside the zip (`usc05A.xml`). */
  entry: string;
  /** Its size, uncompressed. */
  xmlBytes: number;
}

const openZip = (file: string): Promise<ZipFile> =>
  new Promise((resolve, reject) =>
    openZipFile(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true }, (err, zip) =>
      err ? reject(err) : resolve(zip),
    ),
  );

const nextEntry = (zip: ZipFile): Promise<Entry> =>
  new Promise((resolve, reject) => {
    zip.once('entry', resolve);
    zip.once('error', reject);
    zip.readEntry();
  });

const openEntry = (zip: ZipFile, entry: Entry): Promise<Readable> =>
  new Promise((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))));

/**
 * Checks that `file` is title `title`'s zip (one entry, `usc<TT>.xml`, whose bytes match their CRC-32 and size).
 * Throws CorruptZipError.
 */
export async function readTitleZip(
  file: string,
  title: string,
  { name = file }: { /** What messages call the zip (default its path). */ name?: string } = {},
): Promise<TitleZipEntry> {
  let zip: ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new CorruptZipError(`${name} is not a readable zip (${(err as Error).message})`);
  }
  try {
    if (zip.entryCount !== 1)
      throw new CorruptZipError(`${name} holds ${zip.entryCount} files; OLRC's title zips hold one, usc${title}.xml`);
    const entry = await nextEntry(zip);
    if (!titleEntryPattern(title).test(entry.fileName)) {
      throw new CorruptZipError(`${name} holds '${entry.fileName}', not usc${title}.xml`);
    }
    let crc = 0;
    let bytes = 0;
    for await (const chunk of await openEntry(zip, entry)) {
      crc = crc32(chunk as Buffer, crc);
      bytes += (chunk as Buffer).length;
    }
    if (crc >>> 0 !== entry.crc32 >>> 0) {
      throw new CorruptZipError(`${name}: ${entry.fileName} fails its CRC-32 check (the zip is damaged)`);
    }
    return { entry: entry.fileName, xmlBytes: bytes };
  } catch (err) {
    if (err instanceof CorruptZipError) throw err;
    throw new CorruptZipError(`${name} is damaged (${(err as Error).message})`);
  } finally {
    zip.close();
  }
}
