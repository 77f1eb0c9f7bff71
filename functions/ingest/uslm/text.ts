import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { type Entry, openPromise, type ZipFile } from 'yauzl';

/**
 * The text of a USLM title, streamed: an `.xml` file as it is, or the one `usc<TT>.xml` inside an OLRC release-point
 * zip (`xml_usc01@113-31.zip`). A zip is read with yauzl, which reads the central directory as the spec says and
 * checks every entry's size; the CRC-32 is checked here as the bytes pass. Either failing is an error that names the
 * file, raised by the time the stream ends.
 */
export async function* uslmText(file: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  if (!isZip(file)) {
    const stream = createReadStream(file);
    try {
      for await (const chunk of stream) yield decoder.decode(chunk as Buffer, { stream: true });
      const rest = decoder.decode();
      if (rest) yield rest;
    } finally {
      stream.destroy();
    }
    return;
  }
  let zip: ZipFile | undefined;
  let stream: Readable | undefined;
  try {
    zip = await openPromise(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true });
    const entry = await titleEntry(zip, file);
    stream = await zip.openReadStreamPromise(entry);
    let crc = 0;
    for await (const chunk of stream) {
      crc = crc32(chunk as Buffer, crc);
      yield decoder.decode(chunk as Buffer, { stream: true });
    }
    // yauzl checks sizes, not CRC-32 ("No CRC-32 Checking" in its README).
    if (crc !== entry.crc32) {
      throw new Error(`${file}: ${entry.fileName} is corrupt (CRC-32 ${hex(crc)}, the zip records ${hex(entry.crc32)})`);
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw message.startsWith(file) ? err : new Error(`${file}: not a readable zip of a USLM title (${message})`, { cause: err });
  } finally {
    stream?.destroy();
    zip?.close();
  }
}

export const isZip = (file: string): boolean => /\.zip$/i.test(file);

const hex = (n: number) => n.toString(16).padStart(8, '0');

/** OLRC packs one title per zip: the one entry named `usc<TT>.xml` (folders and anything else are ignored). */
async function titleEntry(zip: ZipFile, file: string): Promise<Entry> {
  const titles: Entry[] = [];
  for await (const entry of zip.eachEntry()) if (/^usc[0-9]+[a-z]?\.xml$/i.test(basename(entry.fileName))) titles.push(entry);
  if (titles.length !== 1) {
    throw new Error(
      `${file}: expected one usc<TT>.xml in the zip, found ${titles.length ? titles.map((e) => e.fileName).join(', ') : 'none'}`,
    );
  }
  return titles[0]!;
}
