import { posix } from 'node:path';
import type { ZipRecord } from '#ingest/olrc/download.ts';
import { parseReleasePointId } from '#ingest/olrc/release-points.ts';
import { titleZipPath } from '#ingest/olrc/urls.ts';

/**
 * Where the scheduled US Code fetch keeps the publisher's title zips between its steps (the sources bucket in AWS):
 * only zips that passed their check are stored, each with its record (address, size, SHA-256, retrieval time, the XML
 * inside), and a zip read back is checked against that record before anyone reads it.
 */
export interface TitleZipStore {
  /** For messages: `s3://bucket`. */
  readonly origin: string;
  /** The record of the checked zip stored under `key`; null when none is. */
  find(key: string): Promise<ZipRecord | null>;
  /** Stores the checked zip `file` under `key`, with its record. */
  put(key: string, file: string, record: ZipRecord): Promise<void>;
  /** The zip stored under `key` into `file`, checked against its record (StoredZipError when it differs or is missing). */
  get(key: string, file: string): Promise<ZipRecord>;
}

/** A stored zip that is missing, or whose bytes are not those its record names. */
export class StoredZipError extends Error {
  override readonly name = 'StoredZipError';
  constructor(
    message: string,
    /** No zip under the key at all (else: one that differs from its record, or has none). */
    readonly missing = false,
  ) {
    super(message);
  }
}

/** The folder of the sources bucket the fetch writes: it mirrors the publisher's paths, as the data dir's sources/olrc does. */
export const OLRC_FOLDER = 'olrc';

/** The key of a title's zip at a release point: `olrc/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip`. */
export const titleZipKey = (releasePoint: string, title: string): string =>
  posix.join(OLRC_FOLDER, titleZipPath(parseReleasePointId(releasePoint), title));
