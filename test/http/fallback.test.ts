/**
 * The CourtListener fallback over real sockets: the local server calls a local fake that speaks the provider's
 * documented contract. What it finds is answered and written back; a provider that throttles, hangs, answers
 * garbage or fails never fails the request; the shared token's daily budget is exact; test keys never reach it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type IssueKeyParams, issueKey } from '#accounts/issue-key.ts';
import { resetFallbackPause } from '#caselaw/fallback.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { CourtListenerCitationProvider } from '#stores/courtlistener/citation-provider.ts';
import { SAMPLE_CASELAW_PATHS } from '../contract/caselaw-store.contract.ts';
import { type FakeCourtListener, startFakeCourtListener } from '../support/fake-courtlistener.ts';
import { testLogger } from '../support/test-logger.ts';

let fake: FakeCourtListener;
const servers: LocalServer[] = [];

async function serverWith(dailyRequests: number, perRequestCap: number, timeoutMs = 500): Promise<LocalServer> {
  const server = await serveLocal({
    dataDir: null,
    port: 0,
    sample: false,
    schedules: false,
    logger: testLogger(),
    fallback: {
      provider: new CourtListenerCitationProvider({ baseUrl: fake.url, token: fake.token, timeoutMs }),
      dailyRequests,
      perRequestCap,
    },
  });
  await loadCourtListenerFiles(server.stores.caselaw, SAMPLE_CASELAW_PATHS);
  servers.push(server);
  return server;
}

let server: LocalServer;
beforeAll(async () => {
  fake = await startFakeCourtListener();
  server = await serverWith(100, 2);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await fake?.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  resetFallbackPause();
});

const keyOn = async (on: LocalServer, params: Partial<IssueKeyParams> = {}) =>
  (await issueKey(on.stores.accounts, { name: 'fallback', ...params }, new Date())).key;
async function lookup(on: LocalServer, key: string, body: unknown) {
  const res = await fetch(`${on.url}/law/citations/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

// Real citations the bundled opinions make that the replica does not hold; the fake knows the first two.
const SANTOSKY = '455 U.S. 745';
const SANTOSKY_SCT = '102 S. Ct. 1388';
const UNKNOWN_TO_BOTH = '999 F.3d 999';

describe('fallback: "courtlistener"', () => {
  it('looks up what the replica lacks, within the per-request cap, answers it, and writes it back', async () => {
    expect(fake.known.has(SANTOSKY) && fake.known.has(SANTOSKY_SCT)).toBe(true);
    const key = await keyOn(server);
    const before = fake.requests;
    const answer = await lookup(server, key, {
      text: `Santosky v. Kramer, ${SANTOSKY}, ${SANTOSKY_SCT} (1982); ${UNKNOWN_TO_BOTH}; Chester, 267 Ga. 9`,
      fallback: 'courtlistener',
    });

    expect(answer.status).toBe(200);
    expect(fake.requests).toBe(before + 1);
    expect(fake.lastAuthorization).toBe(`Token ${fake.token}`);
    expect(fake.lastText).toBe(`${SANTOSKY}; ${SANTOSKY_SCT}`);
    expect(answer.body.results.map((r: any) => [r.citation, r.status])).toEqual([
      [SANTOSKY, 200],
      [SANTOSKY_SCT, 200],
      [UNKNOWN_TO_BOTH, 404],
      ['267 Ga. 9', 200],
    ]);
    expect(answer.body.fallback).toEqual({ attempted: 2, resolved: 2, capped: 1, backfilled: 1, status: 'ok' });
    expect(answer.headers.get('x-asof-fallback-remaining')).toBe('99');

    // Written back: the next caller finds it in the replica, with no request to the provider.
    const again = await lookup(server, key, { text: SANTOSKY });
    expect(again.body.results[0]).toMatchObject({ status: 200, clusters: [expect.objectContaining({ id: fake.known.get(SANTOSKY)!.id })] });
    expect(fake.requests).toBe(before + 1);
  });

  it.each([
    ['throttles (429 with wait_until)', 'throttle', 'rate_limited'],
    ['hangs past the timeout', 'hang', 'unavailable'],
    ['answers garbage', 'garbage', 'unavailable'],
    ['fails with a 500', 'error', 'unavailable'],
  ] as const)('answers the request when the provider %s: status %s, the citations stay 404', async (_what, mode, status) => {
    fake.mode = mode;
    const began = Date.now();
    const answer = await lookup(server, await keyOn(server), { text: `${UNKNOWN_TO_BOTH}; 267 Ga. 9`, fallback: 'courtlistener' });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: any) => r.status)).toEqual([404, 200]);
    expect(answer.body.fallback).toEqual({ attempted: 1, resolved: 0, capped: 0, backfilled: 0, status });
    expect(Date.now() - began).toBeLessThan(3_000);
  });

  it('after a 429, sends nothing until the provider’s wait_until has passed', async () => {
    fake.mode = 'throttle';
    const key = await keyOn(server);
    await lookup(server, key, { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' });
    const sent = fake.requests;
    fake.mode = 'ok';
    const held = await lookup(server, key, { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' });
    expect(held.body.fallback).toMatchObject({ attempted: 0, capped: 1, status: 'rate_limited' });
    expect(fake.requests).toBe(sent);
  });

  it('never sends a test key’s citations to the provider', async () => {
    const sent = fake.requests;
    const answer = await lookup(server, await keyOn(server, { test: true }), { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' });
    expect(answer.body.fallback).toEqual({ attempted: 0, resolved: 0, capped: 1, backfilled: 0, status: 'skipped' });
    expect(fake.requests).toBe(sent);
  });

  it('keeps the shared token within its daily requests, exactly, under concurrent calls', async () => {
    const small = await serverWith(3, 5);
    const key = await keyOn(small);
    const sent = fake.requests;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => lookup(small, key, { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' })),
    );
    expect(fake.requests - sent).toBe(3);
    expect(answers.map((a) => a.body.fallback.status).sort()).toEqual(['ok', 'ok', 'ok', 'rate_limited', 'rate_limited', 'rate_limited']);
    const last = await lookup(small, key, { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' });
    expect(last.headers.get('x-asof-fallback-remaining')).toBe('0');
  });

  it('answers unavailable when the provider cannot be reached at all', async () => {
    const down = await serveLocal({
      dataDir: null,
      port: 0,
      sample: false,
      schedules: false,
      logger: testLogger(),
      fallback: {
        provider: new CourtListenerCitationProvider({ baseUrl: 'http://127.0.0.1:9', token: 't', timeoutMs: 500 }),
        dailyRequests: 10,
        perRequestCap: 5,
      },
    });
    servers.push(down);
    const answer = await lookup(down, await keyOn(down), { text: UNKNOWN_TO_BOTH, fallback: 'courtlistener' });
    expect([answer.status, answer.body.fallback.status]).toEqual([200, 'unavailable']);
  });
});
