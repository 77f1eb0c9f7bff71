/**
 * The embedded DynamoDB's door: a request is served only when it is signed (AWS Signature Version 4, as every AWS SDK
 * and the AWS CLI sign) with the credentials the store was started with. The signature is recomputed with the SDK's
 * own signer over the headers the client says it signed, the body and the date, and compared in constant time.
 */
import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A request as it arrived: what the signature covers. */
export interface ArrivedRequest {
  method?: string | undefined;
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}

/** Why a request is refused, in DynamoDB's terms: the error's type (the SDK names the error after it) and message. */
export interface Refusal {
  type:
    | 'MissingAuthenticationTokenException'
    | 'IncompleteSignatureException'
    | 'UnrecognizedClientException'
    | 'InvalidSignatureException';
  message: string;
}

/** As AWS: a request signed more than 15 minutes away from the server's clock is refused. */
const MAX_SKEW_MS = 15 * 60_000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** SHA-256 and HMAC-SHA-256 in the shape the signer takes (a hash constructor, keyed for HMAC). */
export class Sha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? this.secret
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}

const sha256Hex = (body: Uint8Array): string => createHash('sha256').update(body).digest('hex');

function signingDateOf(amzDate: string): Date | null {
  const m = AMZ_DATE.exec(amzDate);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

export type SignatureCheck = (req: ArrivedRequest, body: Uint8Array, now?: Date) => Promise<Refusal | null>;

/** Signers kept per region (each caches its signing key for the day); a few regions at most are ever used. */
const MAX_SIGNERS = 8;

/**
 * The check for one set of credentials: null when a request with its body is signed with them, otherwise why it is
 * refused. Only the Authorization header form is accepted (the SDKs' form for DynamoDB; no presigned query strings).
 */
export function signatureCheck(credentials: LocalCredentials): SignatureCheck {
  const signers = new Map<string, SignatureV4>();
  const signerFor = (region: string): SignatureV4 => {
    let signer = signers.get(region);
    if (!signer) {
      if (signers.size >= MAX_SIGNERS) signers.clear();
      signer = new SignatureV4({ credentials, region, service: 'dynamodb', sha256: Sha256, applyChecksum: false });
      signers.set(region, signer);
    }
    return signer;
  };
  return (req, body, now = new Date()) => check(req, body, credentials, signerFor, now);
}

async function check(
  req: ArrivedRequest,
  body: Uint8Array,
  credentials: LocalCredentials,
  signerFor: (region: string) => SignatureV4,
  now: Date,
): Promise<Refusal | null> {
  const authorization = req.headers.authorization;
  if (!authorization?.startsWith('AWS4-')) {
    return { type: 'MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' };
  }
  const auth = AUTHORIZATION.exec(authorization);
  const amzDate = req.headers['x-amz-date'];
  const signingDate = typeof amzDate === 'string' ? signingDateOf(amzDate) : null;
  if (!auth || !signingDate) {
    return {
      type: 'IncompleteSignatureException',
      message: 'Authorization must be AWS4-HMAC-SHA256 with Credential, SignedHeaders and Signature, and X-Amz-Date must be set.',
    };
  }
  const [, accessKeyId, scopeDate, region, service, signedList, signature] = auth as unknown as [string, ...string[]];
  if (accessKeyId !== credentials.accessKeyId) {
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  const signed = signedList!.split(';');
  if (service !== 'dynamodb' || scopeDate !== amzDate!.slice(0, 8) || !signed.includes('host')) {
    return {
      type: 'InvalidSignatureException',
      message: "Credential should be scoped to the service 'dynamodb' and the date of X-Amz-Date, and 'host' must be signed.",
    };
  }
  if (Math.abs(now.getTime() - signingDate.getTime()) > MAX_SKEW_MS) {
    return { type: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is more than 15 minutes from the server's time.` };
  }
  const declaredHash = req.headers['x-amz-content-sha256'];
  if (declaredHash !== undefined && declaredHash !== sha256Hex(body)) {
    return { type: 'InvalidSignatureException', message: 'The X-Amz-Content-Sha256 header does not match the body.' };
  }

  const url = new URL(req.url ?? '/', 'http://localhost');
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { type: 'InvalidSignatureException', message: 'The request path is not valid percent-encoding.' };
  }
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = req.headers[name];
    headers[name] = Array.isArray(value) ? value.join(',') : (value ?? '');
  }
  const expected = await signerFor(region!).sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: headers.host ?? '',
      path,
      query: queryOf(url.searchParams),
      headers,
      body,
    },
    { signingDate, signableHeaders: new Set(signed) },
  );
  const computed = /Signature=([0-9a-f]{64})$/.exec(expected.headers.authorization ?? '')?.[1] ?? '';
  if (computed.length !== signature!.length || !timingSafeEqual(Buffer.from(computed), Buffer.from(signature!))) {
    return {
      type: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return null;
}
