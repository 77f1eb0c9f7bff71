import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type GetObjectCommandOutput, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ZipRecord } from '#ingest/olrc/download.ts';
import { ENV, type LambdaEnv, regionOf } from '../env.ts';
import { StoredZipError, type TitleZipStore } from '../jobs/title-zips.ts';
import { captureClient } from '../powertools.ts';

/** The record, as the object's user metadata (`x-amz-meta-asof-…`; S3 metadata is ASCII, which every field is). */
const META = {
  url: 'asof-source-url',
  sha256: 'asof-sha256',
  retrievedAt: 'asof-retrieved-at',
  entry: 'asof-entry',
  xmlBytes: 'asof-xml-bytes',
} as const;

function recordOf(metadata: Record<string, string> | undefined, bytes: number | undefined): ZipRecord | null {
  const m = metadata ?? {};
  const [url, sha256, retrievedAt, entry, xmlBytes] = [m[META.url], m[META.sha256], m[META.retrievedAt], m[META.entry], m[META.xmlBytes]];
  if (!url || !sha256 || !retrievedAt || !entry || !xmlBytes || bytes === undefined) return null;
  return { url, sha256, retrievedAt, entry, xmlBytes: Number(xmlBytes), bytes };
}

/** S3's answer that there is no such object (GetObject: NoSuchKey; HeadObject, which has no body: NotFound). */
export const isNotFound = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Title zips in an S3 bucket. A zip goes up as one streamed PutObject of a known length (no whole file in memory),
 * with a CRC32 checksum that the SDK computes as it streams and S3 checks on arrival (a damaged upload is refused);
 * it comes back with that checksum validated by the SDK as it streams, and its size and SHA-256 compared with the
 * record stored beside it.
 */
export class S3TitleZips implements TitleZipStore {
  readonly origin: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    this.origin = `s3://${bucket}`;
  }

  async find(key: string): Promise<ZipRecord | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      // An object without the record was not put here: it is treated as absent, and replaced by a checked zip.
      return recordOf(head.Metadata, head.ContentLength);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async put(key: string, file: string, record: ZipRecord): Promise<void> {
    const { size } = await stat(file);
    if (size !== record.bytes) throw new Error(`${file}: ${size} bytes, but its record says ${record.bytes}`);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: 'application/zip',
        ChecksumAlgorithm: 'CRC32',
        Metadata: {
          [META.url]: record.url,
          [META.sha256]: record.sha256,
          [META.retrievedAt]: record.retrievedAt,
          [META.entry]: record.entry,
          [META.xmlBytes]: String(record.xmlBytes),
        },
      }),
    );
  }

  async get(key: string, file: string): Promise<ZipRecord> {
    let got: GetObjectCommandOutput;
    try {
      got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    } catch (err) {
      if (isNotFound(err)) throw new StoredZipError(`${this.origin}/${key}: no such zip (the download step stores it first)`, true);
      throw err;
    }
    const record = recordOf(got.Metadata, got.ContentLength);
    if (!record || !got.Body) {
      (got.Body as Readable | undefined)?.destroy();
      throw new StoredZipError(`${this.origin}/${key}: not a zip the fetch stored (it carries no record of its check)`);
    }
    const hash = createHash('sha256');
    let bytes = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    // The SDK's stream fails at its end when the bytes do not match the object's CRC32.
    await pipeline(got.Body as Readable, measure, createWriteStream(file));
    const sha256 = hash.digest('hex');
    if (bytes !== record.bytes || sha256 !== record.sha256) {
      throw new StoredZipError(
        `${this.origin}/${key}: ${bytes} bytes with SHA-256 ${sha256}, but it was stored as ${record.bytes} bytes with ${record.sha256}`,
      );
    }
    return record;
  }
}

/** The sources bucket bound to this function (ASOF_SOURCES_BUCKET) as a store of title zips; null when none is bound. */
export function s3TitleZips(env: LambdaEnv): S3TitleZips | null {
  const bucket = env[ENV.sourcesBucket];
  if (!bucket) return null;
  return new S3TitleZips(captureClient(new S3Client({ region: regionOf(env) })), bucket);
}
