import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { forEachBounded } from '#shared/bounded.ts';
import { ENV, type LambdaEnv, regionOf } from '../env.ts';
import { pathBelow, type SourceFiles, SourceNotFoundError } from '../jobs/source-files.ts';
import { captureClient } from '../powertools.ts';

/** Downloads at once: S3 serves many small objects (one D.C. Code section version each) best in parallel. */
const DOWNLOADS_IN_FLIGHT = 16;

/** Source files in an S3 bucket, downloaded below a local folder (Lambda's /tmp) under their own keys. */
export class S3SourceFiles implements SourceFiles {
  readonly origin: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly root: string,
  ) {
    this.origin = `s3://${bucket}`;
  }

  async localPath(name: string): Promise<string> {
    const objects = await this.objectsNamed(name);
    const local = pathBelow(this.root, name);
    if (objects.includes(name)) {
      await this.download(name);
      return local;
    }
    if (objects.length === 0) throw new SourceNotFoundError(name, this.origin);
    // The folder holds exactly what the bucket holds under it now, not what an earlier run left there.
    await rm(local, { recursive: true, force: true });
    await forEachBounded(objects, DOWNLOADS_IN_FLIGHT, (o) => this.download(o));
    return local;
  }

  async release(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }

  /** The object with this key and every object below the folder of this name (folder markers left out). */
  private async objectsNamed(name: string): Promise<string[]> {
    const folder = `${name}/`;
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: name, ...(token && { ContinuationToken: token }) }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key && (o.Key === name || (o.Key.startsWith(folder) && !o.Key.endsWith('/')))) found.push(o.Key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  private async download(key: string): Promise<void> {
    const path = pathBelow(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!got.Body) throw new Error(`${this.origin}/${key}: S3 returned no body`);
    await pipeline(got.Body as Readable, createWriteStream(path));
  }
}

/** The sources bucket bound to this function (ASOF_SOURCES_BUCKET), downloaded below /tmp; null when none is bound. */
export function s3SourceFiles(env: LambdaEnv): S3SourceFiles | null {
  const bucket = env[ENV.sourcesBucket];
  if (!bucket) return null;
  return new S3SourceFiles(captureClient(new S3Client({ region: regionOf(env) })), bucket, join(tmpdir(), 'asof-sources'));
}
