/**
 * One title's zip from the publisher into the local sources cache. The bytes go to `<zip>.part` (with the answer's
 * validators in `<zip>.part.json`); a later run resumes a cut download with an HTTP Range request when the publisher
 * honours it (206 from the right offset), and starts over otherwise. The zip is checked (readTitleZip) before it is
 * renamed into place and recorded in `<zip>.json` (address, size, SHA-256, retrieval time): only a checked zip is ever
 * called complete. A zip that fails the check is removed, and a resumed one that fails is fetched once more whole.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DEFAULT_TIMEOUTS, type FetchLike, httpError, isNotFoundPage, PublisherError, request, type Timeouts } from './http.ts';
import { CorruptZipError, readTitleZip } from './title-zip.ts';

export interface DownloadOptions {
  fetch: FetchLike;
  url: string;
  /** Where the checked zip ends up. */
  file: string;
  /** The title code the zip must hold (`01`, `05a`). */
  title: string;
  timeouts?: Timeouts;
  /** Bytes in hand so far, and the whole size when the publisher says. */
  onProgress?: (received: number, total: number | null) => void;
  /** Notes worth a line (a restart). */
  log?: (line: string) => void;
  now?: () => Date;
}

/** What `<zip>.json` records of a checked zip. */
export interface ZipRecord {
  url: string;
  bytes: number;
  sha256: string;
  retrievedAt: string;
  /** The XML file inside and its size. */
  entry: string;
  xmlBytes: number;
}

export interface DownloadedZip extends ZipRecord {
  file: string;
  /** Bytes that came over the network in this call (0: the cache had it). */
  transferred: number;
  /** Where a resumed download started (0: from the start). */
  resumedFrom: number;
}

interface PartMeta {
  url: string;
  etag?: string;
  lastModified?: string;
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

const sizeOf = (file: string): Promise<number> =>
  stat(file).then(
    (s) => s.size,
    () => 0,
  );

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const recordFileOf = (zip: string): string => `${zip}.json`;

/** The cached zip's record, when the cache holds the checked zip. */
async function cachedZip(file: string): Promise<ZipRecord | null> {
  const record = await readJson<ZipRecord>(recordFileOf(file));
  return record && (await sizeOf(file)) === record.bytes ? record : null;
}

/** Downloads (or resumes, or finds in the cache) the zip at `url`, checked. Throws PublisherError. */
export async function downloadTitleZip(options: DownloadOptions): Promise<DownloadedZip> {
  const cached = await cachedZip(options.file);
  if (cached) return { ...cached, file: options.file, transferred: 0, resumedFrom: 0 };
  await mkdir(dirname(options.file), { recursive: true });
  const first = await transfer(options, true);
  try {
    return await complete(options, first);
  } catch (err) {
    if (!(err instanceof PublisherError && err.failure === 'corrupt') || first.resumedFrom === 0) throw err;
    options.log?.(`${options.url}: the resumed download fails its check; downloading it again whole`);
    return complete(options, await transfer(options, false));
  }
}

interface Transfer {
  resumedFrom: number;
  transferred: number;
}

async function transfer(options: DownloadOptions, mayResume: boolean): Promise<Transfer> {
  const { url, file } = options;
  const part = `${file}.part`;
  const partMeta = `${part}.json`;
  const meta = mayResume ? await readJson<PartMeta>(partMeta) : null;
  let offset = meta?.url === url ? await sizeOf(part) : 0;
  if (!offset) await Promise.all([rm(part, { force: true }), rm(partMeta, { force: true })]);

  // The bytes as stored: a compressed transfer would make sizes and ranges count something else.
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  if (offset) {
    headers.range = `bytes=${offset}-`;
    // Without a validator the part may belong to an older file; the check after the download catches that.
    const validator = meta?.etag ?? meta?.lastModified;
    if (validator) headers['if-range'] = validator;
  }
  const answer = await request(options.fetch, url, headers, options.timeouts ?? DEFAULT_TIMEOUTS);
  const { response } = answer;
  let total: number | null;
  if (offset && response.status === 206) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    if (!range || Number(range[1]) !== offset) {
      await answer.discard();
      return transfer(options, false);
    }
    total = range[2] === '*' ? null : Number(range[2]);
  } else if (offset && response.status === 416) {
    await answer.discard();
    return transfer(options, false);
  } else if (response.status === 200) {
    if (isNotFoundPage(response)) {
      await answer.discard();
      throw new PublisherError(`${url}: the publisher answers with its 'document not found' page`, 'not-published', false, 302);
    }
    offset = 0;
    const length = response.headers.get('content-length');
    total = length === null ? null : Number(length);
    const next: PartMeta = {
      url,
      ...(response.headers.get('etag') && { etag: response.headers.get('etag')! }),
      ...(response.headers.get('last-modified') && { lastModified: response.headers.get('last-modified')! }),
    };
    await writeFile(partMeta, JSON.stringify(next));
  } else {
    await answer.discard();
    throw httpError(url, response);
  }

  const out = await open(part, offset ? 'a' : 'w');
  let received = offset;
  try {
    for await (const piece of answer.body()) {
      await out.write(piece);
      received += piece.length;
      options.onProgress?.(received, total);
    }
  } catch (err) {
    if (err instanceof PublisherError) {
      throw new PublisherError(
        `${err.message} after ${received.toLocaleString('en-US')} bytes; running again resumes it`,
        err.failure,
        true,
      );
    }
    throw err;
  } finally {
    await out.close();
  }
  if (total !== null && received !== total) {
    throw new PublisherError(
      `${url}: the answer ended after ${received.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} bytes; running again resumes it`,
      'cut',
      true,
    );
  }
  return { resumedFrom: offset, transferred: received - offset };
}

async function complete(options: DownloadOptions, done: Transfer): Promise<DownloadedZip> {
  const { url, file } = options;
  const part = `${file}.part`;
  let entry: Awaited<ReturnType<typeof readTitleZip>>;
  try {
    entry = await readTitleZip(part, options.title, { name: `the zip from ${url}` });
  } catch (err) {
    await Promise.all([rm(part, { force: true }), rm(`${part}.json`, { force: true })]);
    if (err instanceof CorruptZipError) throw new PublisherError(`${err.message}: refused, nothing of it is ingested`, 'corrupt', false);
    throw err;
  }
  const record: ZipRecord = {
    url,
    bytes: await sizeOf(part),
    sha256: await sha256Of(part),
    retrievedAt: (options.now ?? (() => new Date()))().toISOString(),
    entry: entry.entry,
    xmlBytes: entry.xmlBytes,
  };
  await rename(part, file);
  await rm(`${part}.json`, { force: true });
  await writeFile(recordFileOf(file), `${JSON.stringify(record, null, 2)}\n`);
  return { ...record, file, ...done };
}
