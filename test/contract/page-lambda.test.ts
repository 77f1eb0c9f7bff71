/**
 * The public site's page function (functions/lambda/page-entry.ts) as API Gateway calls it: the permalink page on a
 * versions table in dynalite, from the environment a deployed page function gets (that table alone), with path
 * parameters percent-encoded as a REST API delivers them.
 */

import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '#http/pages/page.ts';
import { permalinkPage } from '#http/pages/permalink.ts';
import { runIngest } from '#ingest/jobs.ts';
import { pageLambda, pageServices } from '#lambda/page-entry.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { deployedLambdaEnv } from './lambda-env.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
let stores: DynaliteStores;
const saved = { ...process.env };

beforeAll(async () => {
  stores = await openDynaliteStores();
  await runIngest(
    { versions: stores.versions, search: stores.search, ops: stores.ops, now: () => new Date() },
    { kind: 'dc-code', manifest: `${SAMPLE}dc-code/manifest.csv` },
  );
  Object.assign(process.env, deployedLambdaEnv(stores.dynamo, { versions: LOCAL_TABLES.versions }));
}, 60_000);
afterAll(async () => {
  process.env = saved;
  await stores?.close();
});

const context = {
  awsRequestId: 'page',
  functionName: 'asof-test-page-permalink',
  callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

/** A GET of the site's permalink path as API Gateway's proxy integration delivers it: path parameters as sent. */
function pageEvent(raw: { jurisdiction: string; corpus: string; key: string }, query?: Record<string, string>): APIGatewayProxyEvent {
  const path = `/law/${raw.jurisdiction}/${raw.corpus}/${raw.key}`;
  return {
    httpMethod: 'GET',
    path,
    resource: '/law/{jurisdiction}/{corpus}/{key}',
    pathParameters: raw,
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    headers: {},
    multiValueHeaders: {},
    body: null,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId: 'page',
      httpMethod: 'GET',
      path: `/site${path}`,
      resourcePath: '/law/{jurisdiction}/{corpus}/{key}',
      stage: 'site',
    } as APIGatewayProxyEvent['requestContext'],
  };
}

describe('the permalink page as a Lambda function', () => {
  it('shows the text in force on the date asked, from the versions table its environment names', async () => {
    const handler = pageLambda(permalinkPage);

    const res = await handler(pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, { asOf: '2024-04-01' }), context);

    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('Strangulation');
    expect(res.body).toContain('shown as of 2024-04-01');
  });

  it('never shows a nearest version: nothing in force on the date is a 404 that lists the versions on file', async () => {
    const res = await pageLambda(permalinkPage)(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, { asOf: '2024-01-01' }),
      context,
    );

    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/Nothing under this citation was in force on 2024-01-01/);
    expect(res.body).toContain('Versions on file');
  });

  it('shows a section no longer in force as its last version, saying since when (still a 404)', async () => {
    const res = await pageLambda(permalinkPage)(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, { asOf: '2024-07-01' }),
      context,
    );

    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('No longer in force since 2024-06-22.');
    expect(res.body).toContain('Strangulation');
  });

  it('compares two versions from the query string, as the form sends it', async () => {
    const res = await pageLambda(permalinkPage)(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, { from: '2024-03-18', to: '2024-04-01' }),
      context,
    );

    expect(res.body).toContain('<del>D.C. Official Code </del>');
  });

  it('decodes percent-encoded path parameters, and answers a malformed escape as not found', async () => {
    const handler = pageLambda(permalinkPage);

    const encoded = await handler(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404%2E05' }, { asOf: '2024-04-01' }),
      context,
    );
    const malformed = await handler(pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404%E0%A4%A' }), context);

    expect(encoded.statusCode).toBe(200);
    expect(malformed.statusCode).toBe(404);
    expect(malformed.body).toContain('<h1>Not found</h1>');
    for (const res of [encoded, malformed]) {
      expect(res.headers).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'content-security-policy': expect.stringMatching(
          /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
        ),
        'x-frame-options': 'DENY',
      });
    }
  });

  it('refuses a malformed date with 400', async () => {
    const res = await pageLambda(permalinkPage)(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }, { asOf: '2024-02-30' }),
      context,
    );

    expect(res.statusCode).toBe(400);
  });

  it('answers 404 when its environment names no versions table (nothing is carried), not a failure', async () => {
    const res = await pageLambda(permalinkPage, pageServices(permalinkPage, {}, { AWS_REGION: 'us-east-1' }))(
      pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: '22-404.05' }),
      context,
    );

    expect(res.statusCode).toBe(404);
  });

  it('answers a failure the page does not handle with a 500 of its own, not a thrown error', async () => {
    const broken: Page = { id: 'broken', path: '/broken', render: () => Promise.reject(new Error('boom')) };

    const res = await pageLambda(broken)(pageEvent({ jurisdiction: 'dc', corpus: 'statutes', key: 'x' }), context);

    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('boom');
    expect(res.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' });
  });

  it('loads its entry with the environment a deployed page function gets, without calling AWS', async () => {
    const entry = (await import('../../functions/lambda/pages/permalink.ts')) as { handler?: unknown };

    expect(typeof entry.handler).toBe('function');
  });
});
