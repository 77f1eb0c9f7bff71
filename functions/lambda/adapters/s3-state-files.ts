import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ENV, type LambdaEnv, regionOf } from '../env.ts';
import { StateFileMissingError, type StateFileStore } from '../jobs/state-files.ts';
import { captureClient } from '../powertools.ts';
import { isNotFound } from './s3-title-zips.ts';

/**
 * State-code title files in the sources bucket: each goes up with a CRC32 checksum that S3 checks on arrival and
 * comes back with it validated by the SDK as it streams.
 */
export class S3StateFiles implements StateFileStore {
  readonly origin: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    this.origin = `s3://${bucket}`;
  }

  async find(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? null;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: 'text/html', ChecksumAlgorithm: 'CRC32' }),
    );
  }

  async get(key: string, file: string): Promise<number> {
    let body: Readable | undefined;
    let bytes: number | undefined;
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ChecksumMode: 'ENABLED' }));
      body = got.Body as Readable | undefined;
      bytes = got.ContentLength;
    } catch (err) {
      if (isNotFound(err)) throw new StateFileMissingError(`${this.origin}/${key}: no such file (the fetch step stores it first)`);
      throw err;
    }
    if (!body) throw new StateFileMissingError(`${this.origin}/${key}: no body`);
    await mkdir(dirname(file), { recursive: true });
    await pipeline(body, createWriteStream(file));
    return bytes ?? 0;
  }
}

/** The sources bucket bound to this function (ASOF_SOURCES_BUCKET) as a store of state-code title files; null when none is bound. */
export function s3StateFiles(env: LambdaEnv): S3StateFiles | null {
  const bucket = env[ENV.sourcesBucket];
  if (!bucket) return null;
  return new S3StateFiles(captureClient(new S3Client({ region: regionOf(env) })), bucket);
}
