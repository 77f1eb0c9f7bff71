/**
 * A local fake of the two S3 operations the ingest job's source reader uses, speaking their documented REST contract
 * (path-style addressing, which the SDK uses for an IP endpoint):
 * - ListObjectsV2: GET /{bucket}?list-type=2&prefix=…&continuation-token=… → 200 ListBucketResult XML, keys in
 *   ascending order, at most `pageSize` per page with IsTruncated and NextContinuationToken
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html);
 * - GetObject: GET /{bucket}/{key} → 200 with the bytes, Content-Length, ETag and Last-Modified
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html);
 * errors as S3's XML Error document: 404 NoSuchBucket / NoSuchKey, 403 AccessDenied, 500 InternalError.
 * A test can deny a bucket or make the next GetObject calls fail.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

interface StoredObject {
  body: Buffer;
  lastModified: Date;
}

export interface FakeS3 {
  /** The endpoint (http://127.0.0.1:port). */
  url: string;
  put(bucket: string, key: string, body: string | Buffer, lastModified?: Date): void;
  /** Every file below `folder`, under `prefix` + its relative path. */
  putFolder(bucket: string, prefix: string, folder: string, lastModified?: Date): Promise<void>;
  /** Requests received, as `LIST bucket prefix` or `GET bucket/key`. */
  requests: string[];
  /** Buckets that answer 403 AccessDenied. */
  denied: Set<string>;
  /** The next n GetObject calls answer 500 InternalError. */
  failGets(n: number): void;
  pageSize: number;
  close(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;

function sendError(res: ServerResponse, status: number, code: string, message: string, extra = ''): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>${extra}<RequestId>fake-s3</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'fake-s3' });
  res.end(xml);
}

async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

export async function startFakeS3(): Promise<FakeS3> {
  const buckets = new Map<string, Map<string, StoredObject>>();
  let failingGets = 0;
  const fake: FakeS3 = {
    url: '',
    requests: [],
    denied: new Set(),
    pageSize: 1000,
    put(bucket, key, body, lastModified = new Date()) {
      const objects = buckets.get(bucket) ?? new Map<string, StoredObject>();
      objects.set(key, {
        body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
        lastModified: new Date(Math.floor(lastModified.getTime() / 1000) * 1000),
      });
      buckets.set(bucket, objects);
    },
    async putFolder(bucket, prefix, folder, lastModified) {
      for (const file of await filesBelow(folder))
        fake.put(bucket, `${prefix}${relative(folder, file).split('\\').join('/')}`, await readFile(file), lastModified);
    },
    failGets(n) {
      failingGets = n;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };

  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake-s3');
      const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
      const key = decodeURIComponent(rest.join('/'));
      const objects = buckets.get(bucket);
      if (req.method !== 'GET')
        return sendError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      if (fake.denied.has(bucket)) return sendError(res, 403, 'AccessDenied', 'Access Denied');
      if (!objects)
        return sendError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist', `<BucketName>${xmlEscape(bucket)}</BucketName>`);

      if (!key && url.searchParams.get('list-type') === '2') {
        const prefix = url.searchParams.get('prefix') ?? '';
        fake.requests.push(`LIST ${bucket} ${prefix}`);
        const after = url.searchParams.get('continuation-token');
        const maxKeys = Math.min(Number(url.searchParams.get('max-keys') ?? 1000), fake.pageSize);
        const keys = [...objects.keys()]
          .filter((k) => k.startsWith(prefix) && (!after || k > Buffer.from(after, 'base64url').toString('utf8')))
          .sort();
        const page = keys.slice(0, maxKeys);
        const truncated = keys.length > page.length;
        const contents = page
          .map((k) => {
            const o = objects.get(k)!;
            return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(etagOf(o.body))}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
          })
          .join('');
        const next = truncated
          ? `<NextContinuationToken>${Buffer.from(page.at(-1)!, 'utf8').toString('base64url')}</NextContinuationToken>`
          : '';
        const xml =
          `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
          `<Name>${xmlEscape(bucket)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>` +
          `<IsTruncated>${truncated}</IsTruncated>${next}${contents}</ListBucketResult>`;
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(xml);
      }

      fake.requests.push(`GET ${bucket}/${key}`);
      if (failingGets > 0) {
        failingGets--;
        return sendError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      }
      const object = objects.get(key);
      if (!object) return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.', `<Key>${xmlEscape(key)}</Key>`);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(object.body.length),
        etag: etagOf(object.body),
        'last-modified': object.lastModified.toUTCString(),
      });
      res.end(object.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
