/**
 * The ingest job's S3 source reader against a local fake that speaks S3's ListObjectsV2 and GetObject REST contract
 * (test/support/fake-s3.ts), reached through the SDK's endpoint override as a deployed function would reach S3.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3SourceFiles, s3SourceFiles } from '#lambda/adapters/s3-source-files.ts';
import { ENV } from '#lambda/env.ts';
import { SourceNotFoundError } from '#lambda/jobs/source-files.ts';
import { type FakeS3, startFakeS3 } from '../support/fake-s3.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const BUCKET = 'asof-test-sources';

let fake: FakeS3;
let root: string;
const saved = { ...process.env };

const client = () =>
  new S3Client({ region: 'us-east-1', endpoint: fake.url, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const reader = (bucket = BUCKET) => new S3SourceFiles(client(), bucket, root);

beforeAll(async () => {
  fake = await startFakeS3();
  await fake.putFolder(BUCKET, 'uslm/', join(SAMPLE, 'uslm'));
  await fake.putFolder(BUCKET, 'rules/frap/', join(SAMPLE, 'rules/frap'));
  fake.put(BUCKET, 'rules/frap-drafts/rule-99.md', 'a sibling folder sharing the prefix, not part of rules/frap');
  fake.put(BUCKET, 'rules/frap/', ''); // a folder marker, as the console creates
  fake.put('asof-denied', 'uslm/usc01@113-31.xml', 'never served');
  fake.denied.add('asof-denied');
});
afterAll(async () => {
  process.env = saved;
  await fake.close();
});
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'asof-s3-test-'));
  fake.requests.length = 0;
  fake.pageSize = 1000;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('S3SourceFiles', () => {
  it('downloads a named object to the same key below its folder, byte for byte', async () => {
    // Prepare
    const files = reader();
    // Act
    const path = await files.localPath('uslm/usc01@113-31.xml');
    // Assess
    expect(path).toBe(join(root, 'uslm/usc01@113-31.xml'));
    expect(await readFile(path)).toEqual(await readFile(join(SAMPLE, 'uslm/usc01@113-31.xml')));
    expect(fake.requests).toEqual([`LIST ${BUCKET} uslm/usc01@113-31.xml`, `GET ${BUCKET}/uslm/usc01@113-31.xml`]);
  });

  it('fetches a folder across listing pages: exactly the objects under it, no sibling sharing its prefix, no folder marker', async () => {
    // Prepare
    fake.pageSize = 7;
    const expected = (await readdir(join(SAMPLE, 'rules/frap'))).sort();
    // Act
    const path = await reader().localPath('rules/frap');
    // Assess
    expect(path).toBe(join(root, 'rules/frap'));
    expect((await readdir(path)).sort()).toEqual(expected);
    expect(await readdir(join(root, 'rules'))).toEqual(['frap']);
    expect(fake.requests.filter((r) => r.startsWith('LIST')).length).toBe(Math.ceil((expected.length + 2) / 7));
  });

  it('replaces a folder left by an earlier run: a file since removed from the bucket is not read again', async () => {
    // Prepare
    await mkdir(join(root, 'rules/frap'), { recursive: true });
    await writeFile(join(root, 'rules/frap/rule-0-removed.md'), 'left over');
    // Act
    const path = await reader().localPath('rules/frap');
    // Assess
    expect(await readdir(path)).not.toContain('rule-0-removed.md');
  });

  it('refuses a name that is neither an object nor a folder with SourceNotFoundError', async () => {
    await expect(reader().localPath('uslm/usc02@117-80.xml')).rejects.toThrow(SourceNotFoundError);
    await expect(reader().localPath('rules/fr')).rejects.toThrow(`no file or folder named 'rules/fr' in s3://${BUCKET}`);
  });

  it('surfaces S3 refusals as they are, not as a missing source: a bucket it may not read, a bucket that does not exist', async () => {
    await expect(reader('asof-denied').localPath('uslm/usc01@113-31.xml')).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(reader('asof-no-such-bucket').localPath('uslm')).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });

  it('rides out a transient S3 error (the SDK retries), and fails when S3 keeps failing', async () => {
    fake.failGets(1);
    await expect(reader().localPath('uslm/usc01@117-80.xml')).resolves.toBe(join(root, 'uslm/usc01@117-80.xml'));
    fake.failGets(10);
    await expect(reader().localPath('uslm/usc01@117-80.xml')).rejects.toMatchObject({ name: 'InternalError' });
    fake.failGets(0);
  });

  it('refuses a listed key that would lead outside its folder', async () => {
    // Prepare
    fake.put(BUCKET, 'evil/../../escaped.txt', 'outside');
    // Act, Assess
    await expect(reader().localPath('evil')).rejects.toThrow(/leads outside/);
    expect(await readdir(join(root, '..'))).not.toContain('escaped.txt');
  });

  it('frees what it downloaded on release', async () => {
    const files = reader();
    await files.localPath('uslm');
    await files.release();
    await expect(stat(root)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('s3SourceFiles (the function wiring)', () => {
  it('is null when no sources bucket is bound', () => {
    expect(s3SourceFiles({ AWS_REGION: 'us-east-1' })).toBeNull();
  });

  it('reads the bucket named in ASOF_SOURCES_BUCKET through the SDK endpoint override (AWS_ENDPOINT_URL_S3)', async () => {
    // Prepare
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: fake.url,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
    });
    const files = s3SourceFiles({ ...process.env, [ENV.sourcesBucket]: BUCKET })!;
    // Act
    const path = await files.localPath('uslm/usc01@117-80.xml');
    // Assess
    expect(files.origin).toBe(`s3://${BUCKET}`);
    expect(await readFile(path, 'utf8')).toContain('<uscDoc');
    expect(fake.requests).toContain(`GET ${BUCKET}/uslm/usc01@117-80.xml`);
    await files.release();
  });
});
