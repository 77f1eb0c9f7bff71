/**
 * The HTTP message checks Node leaves to the application, or answers itself with a bare status line: the Host header
 * (RFC 9112 section 3.2), the protocol version, a transfer coding other than chunked. The local server refuses what
 * these find in the envelope, and writes the envelope straight to a socket for what never becomes a request.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { shown } from './middlewares/input-errors.ts';

/** `uri-host [":" port]` of RFC 3986: an IP literal in brackets, or a name or IPv4 address. Empty is allowed. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::\d*)?$/;

/** Why the message cannot be taken as a request (the message of a 400 bad_request), or null. */
export function messageRefusal(req: IncomingMessage): string | null {
  if (req.httpVersionMajor !== 1) return `HTTP/${req.httpVersion} is not spoken here: send HTTP/1.1.`;
  const hosts: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts.push(req.rawHeaders[i + 1]!);
  if (hosts.length === 0 && req.httpVersionMinor >= 1)
    return 'An HTTP/1.1 request needs a Host header: give the host and port it was sent to.';
  if (hosts.length > 1) return `The Host header is given ${hosts.length} times: give it once.`;
  if (hosts.length === 1 && !HOST.test(hosts[0]!))
    return `Host must be a host name or address, with an optional port (got ${shown(hosts[0])}).`;
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked')
    return `Transfer-Encoding ${shown(coding)} is not supported: send the body with a Content-Length, or chunked alone.`;
  return null;
}

/** An answer written to a socket that Node's server no longer writes to (a message it could not read, a CONNECT). */
export function writeToSocket(socket: Duplex, result: APIGatewayProxyResult): void {
  const body = Buffer.from(result.body, 'utf8');
  const head = [
    `HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode]}`,
    ...Object.entries({ ...result.headers, 'content-length': body.length }).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]));
}
