/**
 * A local fake of the S3 operations the jobs use (the ingest job's source reader; the US Code fetch's title zips),
 * speaking their documented REST contract (path-style addressing, which the SDK uses for an IP endpoint):
 * - ListObjectsV2: GET /{bucket}?list-type=2&prefix=…&continuation-token=… → 200 ListBucketResult XML, keys in
 *   ascending order, at most `pageSize` per page with IsTruncated and NextContinuationToken
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html);
 * - GetObject: GET /{bucket}/{key} → 200 with the bytes, Content-Length, ETag and Last-Modified
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html), with the object's user metadata
 *   (`x-amz-meta-*`) and, when asked with `x-amz-checksum-mode: ENABLED`, its stored CRC32 checksum;
 * - HeadObject: HEAD /{bucket}/{key} → the same headers without a body, 404 without one when there is no such key
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html);
 * - PutObject: PUT /{bucket}/{key}, the body plain or `aws-chunked` (the SDK's streamed upload: hex-sized chunks, then
 *   trailing headers such as `x-amz-checksum-crc32`), its length checked against `x-amz-decoded-content-length` and its
 *   CRC32 (given in a header or the trailer) checked against the bytes, 400 BadDigest when they differ, as S3 does
 *   (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html,
 *   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html);
 * errors as S3's XML Error document: 404 NoSuchBucket / NoSuchKey, 403 AccessDenied, 500 InternalError.
 * A test can deny a bucket, make the next GetObject calls fail, or damage the next PutObject's bytes in transit.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { crc32 } from 'node:zlib';

interface StoredObject {
  body: Buffer;
  lastModified: Date;
  metadata: Record<string, string>;
  /** Base64 of the big-endian CRC32 of the body, as S3 stores a full-object checksum. */
  crc32: string;
}

export interface FakeS3 {
  /** The endpoint (http://127.0.0.1:port). */
  url: string;
  /** An empty bucket (a PutObject to a bucket that does not exist answers NoSuchBucket, as S3 does). */
  createBucket(bucket: string): void;
  put(bucket: string, key: string, body: string | Buffer, lastModified?: Date): void;
  /** Every file below `folder`, under `prefix` + its relative path. */
  putFolder(bucket: string, prefix: string, folder: string, lastModified?: Date): Promise<void>;
  /** Replaces a stored object's bytes, keeping its metadata (its checksum follows the new bytes, as for a new upload). */
  replaceBody(bucket: string, key: string, body: Buffer): void;
  /** The stored object (with its user metadata, without the `x-amz-meta-` prefix), or undefined. */
  get(bucket: string, key: string): { body: Buffer; metadata: Record<string, string> } | undefined;
  /** Requests received, as `LIST bucket prefix`, `GET bucket/key`, `HEAD bucket/key` or `PUT bucket/key`. */
  requests: string[];
  /** Buckets that answer 403 AccessDenied. */
  denied: Set<string>;
  /** The next n GetObject calls answer 500 InternalError. */
  failGets(n: number): void;
  /** The next n PutObject bodies have a byte flipped on the way (their checksum no longer matches). */
  damagePuts(n: number): void;
  pageSize: number;
  close(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;
const crc32Of = (body: Buffer) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc32(body) >>> 0);
  return bytes.toString('base64');
};

/**
 * The payload of an `aws-chunked` body: chunks of `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n`, a zero-size chunk,
 * then trailing headers, one per line, and an empty line. Null when the body is not in that form.
 */
function decodeAwsChunked(body: Buffer): { payload: Buffer; trailers: Record<string, string> } | null {
  const pieces: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) return null;
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isSafeInteger(size)) return null;
    at = eol + 2;
    if (size === 0) break;
    pieces.push(body.subarray(at, at + size));
    at += size;
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n') return null;
    at += 2;
  }
  const trailers: Record<string, string> = {};
  for (const line of body.subarray(at).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { payload: Buffer.concat(pieces), trailers };
}

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
  let damagedPuts = 0;
  const store = (bucket: string, key: string, body: Buffer, lastModified: Date, metadata: Record<string, string> = {}) => {
    const objects = buckets.get(bucket) ?? new Map<string, StoredObject>();
    objects.set(key, { body, lastModified: new Date(Math.floor(lastModified.getTime() / 1000) * 1000), metadata, crc32: crc32Of(body) });
    buckets.set(bucket, objects);
  };
  const fake: FakeS3 = {
    url: '',
    requests: [],
    denied: new Set(),
    pageSize: 1000,
    createBucket(bucket) {
      if (!buckets.has(bucket)) buckets.set(bucket, new Map());
    },
    put(bucket, key, body, lastModified = new Date()) {
      store(bucket, key, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), lastModified);
    },
    replaceBody(bucket, key, body) {
      const o = buckets.get(bucket)?.get(key);
      if (!o) throw new Error(`fake S3: no object ${bucket}/${key}`);
      store(bucket, key, body, new Date(), o.metadata);
    },
    get(bucket, key) {
      const o = buckets.get(bucket)?.get(key);
      return o && { body: o.body, metadata: o.metadata };
    },
    async putFolder(bucket, prefix, folder, lastModified) {
      for (const file of await filesBelow(folder))
        fake.put(bucket, `${prefix}${relative(folder, file).split('\\').join('/')}`, await readFile(file), lastModified);
    },
    failGets(n) {
      failingGets = n;
    },
    damagePuts(n) {
      damagedPuts = n;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };

  /** PutObject: the bytes (decoded from aws-chunked), their length and CRC32 checked, the user metadata kept. */
  const putObject = (req: IncomingMessage, res: ServerResponse, bucket: string, key: string, raw: Buffer) => {
    fake.requests.push(`PUT ${bucket}/${key}`);
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const chunked = (header('content-encoding') ?? '').split(',').some((e) => e.trim() === 'aws-chunked');
    const decoded = chunked ? decodeAwsChunked(raw) : { payload: raw, trailers: {} as Record<string, string> };
    if (!decoded) return sendError(res, 400, 'IncompleteBody', 'The request body is not a valid aws-chunked body.');
    let body = decoded.payload;
    const declared = header('x-amz-decoded-content-length');
    if (declared !== undefined && Number(declared) !== body.length)
      return sendError(res, 400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
    if (damagedPuts > 0) {
      damagedPuts--;
      body = Buffer.from(body);
      body[body.length >> 1] = body[body.length >> 1]! ^ 0xff;
    }
    const given = header('x-amz-checksum-crc32') ?? decoded.trailers['x-amz-checksum-crc32'];
    if (given !== undefined && given !== crc32Of(body))
      return sendError(res, 400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
    const metadata = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([name]) => name.startsWith('x-amz-meta-'))
        .map(([name, value]) => [name.slice('x-amz-meta-'.length), String(value)]),
    );
    store(bucket, key, body, new Date(), metadata);
    res.writeHead(200, { etag: etagOf(body), 'x-amz-checksum-crc32': crc32Of(body), 'x-amz-request-id': 'fake-s3' });
    res.end();
  };

  const server: Server = createServer((req, res) => {
    const received: Buffer[] = [];
    req.on('data', (chunk: Buffer) => received.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake-s3');
      const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
      const key = decodeURIComponent(rest.join('/'));
      const objects = buckets.get(bucket);
      if (req.method !== 'GET' && req.method !== 'HEAD' && !(req.method === 'PUT' && key))
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

      if (req.method === 'PUT') return putObject(req, res, bucket, key, Buffer.concat(received));

      const head = req.method === 'HEAD';
      fake.requests.push(`${head ? 'HEAD' : 'GET'} ${bucket}/${key}`);
      if (!head && failingGets > 0) {
        failingGets--;
        return sendError(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      }
      const object = objects.get(key);
      if (!object) {
        if (!head) return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.', `<Key>${xmlEscape(key)}</Key>`);
        // A HEAD answer has no body, so S3 says 404 with nothing else.
        res.writeHead(404, { 'x-amz-request-id': 'fake-s3' });
        return res.end();
      }
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(object.body.length),
        etag: etagOf(object.body),
        'last-modified': object.lastModified.toUTCString(),
        ...Object.fromEntries(Object.entries(object.metadata).map(([name, value]) => [`x-amz-meta-${name}`, value])),
        ...(req.headers['x-amz-checksum-mode'] === 'ENABLED' && { 'x-amz-checksum-crc32': object.crc32 }),
      });
      res.end(head ? undefined : object.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
