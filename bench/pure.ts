import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { readUslmTitle } from '#ingest/uslm.ts';
import { resolveCitation } from '#law/resolve-citation.ts';
import { contentHash, normalizeText } from '#shared/hash.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { startDynalite } from '#stores/dynamodb/dynalite.ts';
import { Sha256 } from '#stores/dynamodb/signature-check.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';

/**
 * In-process costs of single pieces: the pure functions a request runs, and one round trip to each embedded store
 * (the floor under every request that touches it).
 */

export interface OpsFigure {
  name: string;
  opsPerSec: number;
  /** mean µs per operation */
  meanUs: number;
  note?: string;
}

async function measure(name: string, op: () => unknown, opts: { minMs?: number; batch?: number; note?: string } = {}): Promise<OpsFigure> {
  const batch = opts.batch ?? 1;
  const warm = performance.now();
  while (performance.now() - warm < 750) await op(); // warm up (JIT, connections)
  let n = 0;
  const began = performance.now();
  while (performance.now() - began < (opts.minMs ?? 2000)) {
    for (let i = 0; i < 100; i++) await op();
    n += 100;
  }
  const ms = performance.now() - began;
  const ops = (n * batch) / (ms / 1000);
  return { name, opsPerSec: ops, meanUs: 1e6 / ops, ...(opts.note && { note: opts.note }) };
}

/** The same operation with `concurrency` in flight at once. */
async function measureConcurrent(
  name: string,
  op: () => Promise<unknown>,
  concurrency: number,
  minMs = 2000,
  note?: string,
): Promise<OpsFigure> {
  const warm = performance.now();
  while (performance.now() - warm < 750) await op();
  let n = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - began < minMs) {
        await op();
        n++;
      }
    }),
  );
  const ops = n / ((performance.now() - began) / 1000);
  return { name, opsPerSec: ops, meanUs: 1e6 / ops, ...(note && { note }) };
}

const CITATIONS: [string, string][] = [
  ['us', '1-112b'],
  ['us', '1 U.S.C. § 112b'],
  ['us', '28 USC 1291'],
  ['dc', '22-404.05'],
  ['dc', 'D.C. Code § 22-404.05'],
  ['us', 'frap-32'],
  ['us', 'Fed. R. App. P. 32(a)(7)'],
  ['nd', 'N.D.R.App.P. 32'],
  ['dc', '28 U.S.C. § 1291'],
  ['us', 'not a citation'],
];

export async function pureFigures(sampleBody: string): Promise<OpsFigure[]> {
  const out: OpsFigure[] = [];
  let i = 0;
  out.push(
    await measure('resolveCitation (mix of 10 keys and printed forms)', () => resolveCitation(...CITATIONS[i++ % CITATIONS.length]!)),
  );
  out.push(await measure(`normalizeText + contentHash (${sampleBody.length}-char body)`, () => contentHash(normalizeText(sampleBody))));

  // One DynamoDB round trip through the product's client to an in-memory dynalite in this process.
  const dynalite = await startDynalite();
  const doc = createDocumentClient(dynalite.access);
  try {
    const tables = tableNames('bench');
    await ensureTables(doc, tables);
    await doc.send(new PutCommand({ TableName: tables.versions, Item: { pk: 'bench#1', sk: '2020-01-01', bodyText: sampleBody } }));
    const get = () =>
      doc.send(new GetCommand({ TableName: tables.versions, Key: { pk: 'bench#1', sk: '2020-01-01' }, ConsistentRead: true }));
    out.push(
      await measure('DynamoDB GetItem via the AWS SDK → dynalite (in memory), one at a time', get, {
        note: 'the floor under each store call of a request',
      }),
    );
    out.push(await measureConcurrent('DynamoDB GetItem, 32 in flight', get, 32));
    // The same GetItem as a hand-made HTTP request (fetch, no SDK): dynalite's share of the round trip, its signature
    // check included. Signed once: the same request stays valid for the 15 minutes the store allows.
    const body = JSON.stringify({
      TableName: tables.versions,
      Key: { pk: { S: 'bench#1' }, sk: { S: '2020-01-01' } },
      ConsistentRead: true,
    });
    const endpoint = new URL(dynalite.access.endpoint);
    const signer = new SignatureV4({ credentials: dynalite.access.credentials, region: 'us-east-1', service: 'dynamodb', sha256: Sha256 });
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'http:',
      hostname: endpoint.hostname,
      port: Number(endpoint.port),
      path: '/',
      query: {},
      headers: { host: endpoint.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body,
    });
    const { host: _host, ...headers } = signed.headers;
    const raw = async () => {
      const res = await fetch(dynalite.access.endpoint, { method: 'POST', headers, body });
      if (!(await res.text()).startsWith('{"Item"')) throw new Error('dynalite GetItem over fetch failed');
    };
    out.push(await measure('the same GetItem as a plain fetch to dynalite (no AWS SDK), one at a time', raw));
  } finally {
    doc.destroy();
    await dynalite.close();
  }

  // One PostgreSQL round trip to an in-memory PGlite.
  const pg = await openPglite();
  try {
    out.push(await measure('PGlite SELECT 1 (in memory), one at a time', () => pg.query('SELECT 1')));
  } finally {
    await closePglite(pg);
  }
  // The same through the server's path: PGlite in its worker thread, the queue on this side (one statement in flight,
  // each with a deadline), the SQL client on top. The difference from the row above is what the thread and the queue cost.
  const thread = await openPgliteThread();
  try {
    const sql = pgliteClient(thread);
    const select = () => sql.query('SELECT 1', [], { budget: 'request' });
    out.push(await measure('PGlite SELECT 1 in its worker thread via the SQL client (request budget), one at a time', select));
    out.push(await measureConcurrent('the same, 16 in flight (15 wait in the queue)', select, 16));
  } finally {
    await thread.close();
  }
  return out;
}

/** The USLM reader alone (no store): sections/s and MB/s of XML. */
export async function uslmParseFigure(
  file: string,
  bytes: number,
): Promise<OpsFigure & { sections: number; ms: number; mbPerSec: number; meanBodyChars: number }> {
  const [edition] = await readUslmTitle(file, { retrievedAt: new Date().toISOString() });
  if (!edition) throw new Error(`${file}: no US Code edition`);
  const began = performance.now();
  let sections = 0;
  let chars = 0;
  for await (const doc of edition.documents) {
    sections++;
    chars += doc.bodyText.length;
  }
  const ms = performance.now() - began;
  return {
    name: 'USLM reader (readUslmTitle, one pass, no store)',
    opsPerSec: sections / (ms / 1000),
    meanUs: (ms * 1000) / sections,
    sections,
    ms,
    mbPerSec: bytes / 2 ** 20 / (ms / 1000),
    meanBodyChars: chars / sections,
  };
}
