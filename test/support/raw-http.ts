/**
 * HTTP/1.1 over a plain socket, byte for byte as written: fetch and node:http refuse (or repair) the malformed
 * requests the input tests send on purpose (raw control characters, bad percent escapes, a NUL in a header).
 */
import { connect } from 'node:net';

export interface RawRequest {
  method?: string;
  /** The request target exactly as sent (`/v1/law/cases/%ZZ`). */
  target: string;
  /** Headers over the defaults (`host`, `connection: close`, the body's type and length); null leaves one out. */
  headers?: Record<string, string | null>;
  /** The request line's version: `HTTP/1.1` unless told. */
  version?: string;
  body?: string | Buffer;
  /** Send the head only, and wait for the server to answer or close (a client too slow to send its body). */
  stall?: boolean;
}

export interface RawReply {
  status: number;
  /** The interim (1xx) answers before it, e.g. 100 to `Expect: 100-continue`. */
  interim: number[];
  /** Names in lower case. */
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

export function rawRequest(port: number, req: RawRequest, timeoutMs = 60_000): Promise<RawReply> {
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
  const headers: Record<string, string | null> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    ...(body && { 'content-type': 'application/json', 'content-length': String(body.length) }),
    ...req.headers,
  };
  const head = `${req.method ?? 'GET'} ${req.target} ${req.version ?? 'HTTP/1.1'}\r\n${Object.entries(headers)
    .flatMap(([k, v]) => (v === null ? [] : [`${k}: ${v}\r\n`]))
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${req.method ?? 'GET'} ${req.target.slice(0, 120)}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while a large body is still being written (a 413 before reading it): the answer stands.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseReply(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    // Never half-closed: Node's server drops a request whose client ends its side before the answer (`connection:
    // close` has the server close once it has answered).
    socket.write(Buffer.from(head, 'latin1'));
    if (body && !req.stall) socket.write(body);
  });
}

/** An interim answer's head (`HTTP/1.1 100 Continue`), which a final answer follows. */
const INTERIM = /^HTTP\/1\.1 (1\d\d)[^\r]*\r\n(?:[^\r]+\r\n)*\r\n/;

function parseReply(all: Buffer): RawReply {
  const interim: number[] = [];
  let raw = all;
  for (let m = INTERIM.exec(raw.toString('latin1')); m; m = INTERIM.exec(raw.toString('latin1'))) {
    interim.push(Number(m[1]));
    raw = raw.subarray(m[0].length);
  }
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const text = raw.subarray(split + 4, length === undefined ? undefined : split + 4 + length).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, interim, headers, text, json };
}
