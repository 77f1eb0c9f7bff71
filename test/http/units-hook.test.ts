/**
 * The metering seam for calls whose size is known only once their input is read (citation resolution bills one unit
 * per citation): a route whose `units` is a function of its validated input is admitted after validation, with
 * exactly that many units. Black-box over a real socket, on a route table of this file's own (the citations
 * endpoint arrives with the case-law issue), with the real meter on embedded DynamoDB.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { issueKey } from '#accounts/issue-key.ts';
import type { UsageLog } from '#accounts/usage-log.ts';
import { windowsAt } from '#accounts/windows.ts';
import { assembleServices } from '#app/services.ts';
import { NO_FALLBACK } from '#caselaw/fallback.ts';
import { createLocalServer } from '#http/local-server.ts';
import { defineRoute, type Route } from '#http/route.ts';
import { type EmbeddedStores, openEmbeddedStores } from '#local/embedded-stores.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const BatchInput = z.object({ items: z.array(z.string().min(1)).min(1).max(5) });

const batchRoute = defineRoute({
  id: 'test-batch',
  methods: ['POST'],
  path: '/test/batch',
  stores: [],
  auth: { kind: 'bearer', scope: 'lookup' },
  units: (input) => input.items.length,
  input: BatchInput,
  summary: 'a batch billed per item',
  tag: 'test',
  responses: {},
  errors: ['missing_fields', 'bad_json'],
  handle: async (input) => ({ body: { items: input.items.length } }),
});

let stores: EmbeddedStores;
let usageLog: UsageLog;
let server: Server;
let base: string;

beforeAll(async () => {
  stores = await openEmbeddedStores(null);
  const services = assembleServices(stores, {
    site: { siteUrl: '', baseUrl: '' },
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
    now: () => NOW,
    metered: true,
    edgeLimit: false,
    refreshBehind: null,
    fallback: NO_FALLBACK,
  });
  usageLog = services.usageLog!;
  server = createLocalServer({ services, routes: [batchRoute as unknown as Route], pages: [] });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((done) => server?.close(() => done()));
  // Usage records are written behind the responses: the last ones must land before the store closes.
  await usageLog?.flush();
  await stores?.close();
});

const send = async (key: string, body: unknown) => {
  const res = await fetch(`${base}/test/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

describe('units read from the input', () => {
  it('bills a batch one unit per item, after validation', async () => {
    const issued = await issueKey(stores.accounts, { name: 'batch', limits: { daily: 10 } }, NOW);

    const three = await send(issued.key, { items: ['a', 'b', 'c'] });
    const one = await send(issued.key, { items: ['d'] });

    expect([three.status, one.status]).toEqual([200, 200]);
    expect(one.headers.get('ratelimit')).toMatch(/"day";r=6;/);
    expect(await stores.meters.usage(issued.id, windowsAt(NOW))).toEqual({ minute: 2, day: 4, month: 4 });
  });

  it('refuses a batch larger than what is left of the day, naming the units it needs, and bills nothing', async () => {
    const issued = await issueKey(stores.accounts, { name: 'batch', limits: { daily: 4 } }, NOW);
    await send(issued.key, { items: ['a', 'b', 'c'] });

    const refused = await send(issued.key, { items: ['d', 'e'] });
    const fits = await send(issued.key, { items: ['f'] });

    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('daily_limit_exceeded');
    expect(refused.body.error.message).toMatch(/this call needs 2 units/);
    expect(fits.status).toBe(200);
    expect(await stores.meters.usage(issued.id, windowsAt(NOW))).toEqual({ minute: 2, day: 4, month: 4 });
  });

  it('reserves nothing for a batch whose input is refused', async () => {
    const issued = await issueKey(stores.accounts, { name: 'batch' }, NOW);

    const tooMany = await send(issued.key, { items: ['a', 'b', 'c', 'd', 'e', 'f'] });
    const empty = await send(issued.key, { items: [] });

    expect([tooMany.status, empty.status]).toEqual([400, 400]);
    expect(await stores.meters.usage(issued.id, windowsAt(NOW))).toEqual({ minute: 0, day: 0, month: 0 });
  });
});
