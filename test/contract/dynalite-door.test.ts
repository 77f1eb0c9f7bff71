/**
 * The embedded DynamoDB serves only requests signed with its own credentials: anyone else on the machine who finds its
 * port (another user, a web page in a browser) can neither read nor write. Driven over real sockets, with the AWS SDK
 * and with hand-made requests.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { Sha256 } from '#stores/dynamodb/signature-check.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';

const TABLES = tableNames('door');
const ITEM = { pk: 'door', sk: 'item', value: 'kept' };

let dynalite: RunningDynalite;
const tracker = new WriteTracker();

beforeAll(async () => {
  dynalite = await startDynalite({ tracker });
  const owner = createDocumentClient(dynalite.access);
  await ensureTables(owner, TABLES);
  await owner.send(new PutCommand({ TableName: TABLES.ops, Item: ITEM }));
  owner.destroy();
});
afterAll(async () => {
  await dynalite?.close();
});

interface RawRequest {
  target: string;
  body: string;
  /** Credentials to sign with; none: send the headers as given. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  signingDate?: Date;
  headers?: Record<string, string>;
  /** Replaces the body after signing. */
  sentBody?: string;
}

/** One request as any HTTP client could send it; signed the way the AWS SDKs sign when credentials are given. */
async function raw(req: RawRequest): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(dynalite.access.endpoint);
  let headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': `DynamoDB_20120810.${req.target}`,
    ...req.headers,
  };
  if (req.credentials) {
    const signer = new SignatureV4({ credentials: req.credentials, region: 'us-east-1', service: 'dynamodb', sha256: Sha256 });
    const signed = await signer.sign(
      {
        method: 'POST',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: '/',
        query: {},
        headers: { host: url.host, ...headers },
        body: req.body,
      },
      { ...(req.signingDate && { signingDate: req.signingDate }) },
    );
    const { host: _host, ...rest } = signed.headers;
    headers = rest;
  }
  const res = await fetch(dynalite.access.endpoint, { method: 'POST', headers, body: req.sentBody ?? req.body });
  const body = await res.text();
  const type = res.status === 200 ? '' : String((JSON.parse(body) as { __type?: string }).__type ?? '').split('#')[1];
  return { status: res.status, type: type ?? '', body };
}

const LIST_TABLES = { target: 'ListTables', body: '{}' };
const putItem = (value: string) => ({
  target: 'PutItem',
  body: JSON.stringify({ TableName: TABLES.ops, Item: { pk: { S: 'door' }, sk: { S: 'item' }, value: { S: value } } }),
});
const stored = async () => {
  const owner = createDocumentClient(dynalite.access);
  try {
    return (await owner.send(new GetCommand({ TableName: TABLES.ops, Key: { pk: 'door', sk: 'item' }, ConsistentRead: true }))).Item;
  } finally {
    owner.destroy();
  }
};
/** dynalite's own answer to any signature before the door existed (what bench/pure.ts used to send). */
const FAKE_SIGNATURE = {
  'x-amz-date': '20200101T000000Z',
  authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
};

describe('the embedded DynamoDB admits only requests signed with its credentials', () => {
  it('serves a request signed with them, by the SDK and by hand', async () => {
    const listed = await raw({ ...LIST_TABLES, credentials: dynalite.access.credentials });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).TableNames).toEqual(expect.arrayContaining([TABLES.ops, TABLES.versions]));
    expect(await stored()).toEqual(ITEM);
  });

  it('refuses a made-up signature: no table list, no write', async () => {
    const listed = await raw({ ...LIST_TABLES, headers: FAKE_SIGNATURE });
    const written = await raw({ ...putItem('forged'), headers: FAKE_SIGNATURE });

    expect(listed).toMatchObject({ status: 400, type: 'IncompleteSignatureException' });
    expect(listed.body).not.toContain(TABLES.ops);
    expect(written).toMatchObject({ status: 400, type: 'IncompleteSignatureException' });
    expect(await stored()).toEqual(ITEM);
  });

  it('refuses a well-formed signature made without the secret, even under the right key id', async () => {
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const forged = (accessKeyId: string) => ({
      'x-amz-date': amzDate,
      authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${amzDate.slice(0, 8)}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'ab'.repeat(32)}`,
    });

    const unknownKey = await raw({ ...LIST_TABLES, headers: forged('AKIDEXAMPLE') });
    const knownKey = await raw({ ...putItem('forged'), headers: forged(dynalite.access.credentials.accessKeyId) });

    expect(unknownKey).toMatchObject({ status: 400, type: 'UnrecognizedClientException' });
    expect(knownKey).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
    expect(await stored()).toEqual(ITEM);
  });

  it('refuses a request without a signature, and a GET', async () => {
    expect(await raw(LIST_TABLES)).toMatchObject({ status: 400, type: 'MissingAuthenticationTokenException' });
    const get = await fetch(dynalite.access.endpoint);
    expect(get.status).toBe(400);
    expect(await get.text()).not.toContain('healthy');
  });

  it('refuses the right key id signed with another secret (through the AWS SDK as well)', async () => {
    const wrong = { accessKeyId: dynalite.access.credentials.accessKeyId, secretAccessKey: 'guessed' };
    const client = createDocumentClient({ endpoint: dynalite.access.endpoint, credentials: wrong });
    try {
      const outcome = await client
        .send(new PutCommand({ TableName: TABLES.ops, Item: { ...ITEM, value: 'guessed' } }))
        .catch((e: unknown) => e);
      expect(outcome).toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 400 } });
    } finally {
      client.destroy();
    }
    expect(await raw({ ...putItem('guessed'), credentials: wrong })).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
    expect(await stored()).toEqual(ITEM);
  });

  it('refuses a signed request whose body was changed after signing', async () => {
    const tampered = await raw({ ...putItem('signed'), credentials: dynalite.access.credentials, sentBody: putItem('swapped').body });
    expect(tampered).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
    expect(await stored()).toEqual(ITEM);
  });

  it('refuses a signature older than 15 minutes (a replayed request)', async () => {
    const old = new Date(Date.now() - 16 * 60_000);
    const replayed = await raw({ ...LIST_TABLES, credentials: dynalite.access.credentials, signingDate: old });
    expect(replayed).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
    expect(replayed.body).toMatch(/Signature expired/);
    const recent = await raw({ ...LIST_TABLES, credentials: dynalite.access.credentials, signingDate: new Date(Date.now() - 5 * 60_000) });
    expect(recent.status).toBe(200);
  });

  it('does not report a refused write to the caches (only what it admits)', async () => {
    const before = tracker.stamp(TABLES.ops);
    await raw({ ...putItem('forged'), headers: FAKE_SIGNATURE });
    expect(tracker.stamp(TABLES.ops)).toBe(before);
    await raw({ ...putItem('kept'), credentials: dynalite.access.credentials });
    expect(tracker.stamp(TABLES.ops)).not.toBe(before);
  });

  it('counts a write in its own thread, ended before the answer arrives: a stamp taken then is already usable', async () => {
    for (const id of ['one', 'two', 'three']) {
      const before = tracker.stamp(TABLES.ops);
      const answer = await raw({ ...putItem(id), credentials: dynalite.access.credentials });
      expect(answer.status).toBe(200);
      const after = tracker.stamp(TABLES.ops);
      expect(after).not.toBeNull();
      expect(after).not.toBe(before);
    }
  });

  it('gives every store fresh credentials of its own', async () => {
    const other = await startDynalite();
    try {
      expect(other.access.credentials.secretAccessKey).not.toBe(dynalite.access.credentials.secretAccessKey);
      expect(other.access.credentials.secretAccessKey.length).toBeGreaterThanOrEqual(40);
      const client = createDocumentClient({ endpoint: other.access.endpoint, credentials: dynalite.access.credentials });
      const outcome = await client
        .send(new GetCommand({ TableName: TABLES.ops, Key: { pk: 'door', sk: 'item' } }))
        .catch((e: unknown) => e);
      client.destroy();
      expect(outcome).toMatchObject({ name: 'UnrecognizedClientException' });
    } finally {
      await other.close();
    }
  });
});
