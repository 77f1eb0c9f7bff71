import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ENV, type LambdaEnv, regionOf } from '../env.ts';
import {
  DC_CODE_FOLDER,
  type GitPackStore,
  MANIFEST_KEY,
  MissingPackError,
  manifestSchema,
  packKey,
  type RepositoryManifest,
} from '../jobs/dc-code-repository.ts';
import { captureClient } from '../powertools.ts';
import { isNotFound } from './s3-title-zips.ts';

/**
 * The D.C. Code repository's packs in the sources bucket's dc-code/ folder. Every object goes up with a CRC32 checksum
 * that S3 checks on arrival and comes back with it validated by the SDK as it streams; a pack is streamed from and to
 * /tmp, never held whole in memory.
 */
export class S3GitPacks implements GitPackStore {
  readonly origin: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    this.origin = `s3://${bucket}/${DC_CODE_FOLDER}`;
  }

  async readManifest(): Promise<RepositoryManifest | null> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: MANIFEST_KEY, ChecksumMode: 'ENABLED' }));
      const parsed = manifestSchema.safeParse(JSON.parse((await got.Body?.transformToString('utf8')) ?? ''));
      if (!parsed.success) throw new Error(`s3://${this.bucket}/${MANIFEST_KEY} is not a repository manifest: ${parsed.error.message}`);
      return parsed.data;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async writeManifest(manifest: RepositoryManifest): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: MANIFEST_KEY,
        Body: `${JSON.stringify(manifest, null, 2)}\n`,
        ContentType: 'application/json',
        ChecksumAlgorithm: 'CRC32',
      }),
    );
  }

  async getPack(name: string, packDir: string): Promise<void> {
    await mkdir(packDir, { recursive: true });
    // The index last: a pack whose index is on disk is complete (packsIn counts only those).
    for (const ext of ['pack', 'idx'] as const) {
      const key = packKey(name, ext);
      const file = join(packDir, `${name}.${ext}`);
      try {
        const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ChecksumMode: 'ENABLED' }));
        await pipeline(got.Body as Readable, createWriteStream(`${file}.partial`));
      } catch (err) {
        if (isNotFound(err)) throw new MissingPackError(`s3://${this.bucket}/${key}: the manifest names this pack, but it is not stored`);
        throw err;
      }
      await rename(`${file}.partial`, file);
    }
  }

  async putPack(name: string, packDir: string): Promise<number> {
    let packBytes = 0;
    for (const ext of ['pack', 'idx'] as const) {
      const file = join(packDir, `${name}.${ext}`);
      const { size } = await stat(file);
      if (ext === 'pack') packBytes = size;
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: packKey(name, ext),
          Body: createReadStream(file),
          ContentLength: size,
          ContentType: 'application/octet-stream',
          ChecksumAlgorithm: 'CRC32',
        }),
      );
    }
    return packBytes;
  }
}

/** The sources bucket bound to this function (ASOF_SOURCES_BUCKET) as the store of the D.C. Code repository; null when none is bound. */
export function s3GitPacks(env: LambdaEnv): S3GitPacks | null {
  const bucket = env[ENV.sourcesBucket];
  if (!bucket) return null;
  return new S3GitPacks(captureClient(new S3Client({ region: regionOf(env) })), bucket);
}
