/**
 * Limits and billing, black-box over real sockets against a server of this file's own (in memory, US Code sample,
 * its clock injected so every Retry-After is exact). The accounts issue: order of checks, the three 429s, the edge
 * limit, exact admission under concurrency, refunds, usage, and no key material anywhere.
 */
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssueKeyParams, issueKey } from '#accounts/issue-key.ts';
import { generateKey } from '#accounts/keys.ts';
import { windowsAt } from '#accounts/windows.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
const LOOKUP = '/law/lookup?jurisdiction=us&citation=1-1&asOf=2024-01-01';

let server: LocalServer;
let clock = new Date('2026-11-30T23:00:10Z');
const logged: string[] = [];

beforeAll(async () => {
  // Everything the server logs, captured as written.
  const logger = new Logger({ serviceName: 'asof', logLevel: 'DEBUG' });
  const sink = {
    log: (line: string) => logged.push(line),
    info: (line: string) => logged.push(line),
    warn: (line: string) => logged.push(line),
    error: (line: string) => logged.push(line),
    debug: (line: string) => logged.push(line),
    trace: (line: string) => logged.push(line),
  };
  (logger as unknown as { console: typeof sink }).console = sink;
  server = await serveLocal({ dataDir: null, port: 0, sample: false, schedules: false, now: () => clock, logger });
  await runIngest(server.stores, { kind: 'uslm', files: [USLM] });
});
afterAll(() => server?.close());

const keyWith = async (params: Partial<IssueKeyParams> = {}) => issueKey(server.stores.accounts, { name: 'limits', ...params }, clock);
const call = async (path: string, token: string | null, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as any };
};

describe('the three ceilings of a key', () => {
  it('answers rate_limited with Retry-After 60 once the per-minute ceiling is reached', async () => {
    const { key } = await keyWith({ limits: { perMinute: 2 } });
    const answers = [await call(LOOKUP, key), await call(LOOKUP, key), await call(LOOKUP, key)];

    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.body.error.code).toBe('rate_limited');
    expect(answers[2]!.headers.get('retry-after')).toBe('60');
    expect(answers[0]!.headers.get('ratelimit-policy')).toMatch(/^"minute";q=2;w=60, "day";q=\d+;w=86400, "month";q=\d+;w=2592000$/);
    expect(answers[1]!.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=50, "day";r=\d+;t=3590, "month";r=\d+;t=3590$/);
  });

  it('answers daily_limit_exceeded with Retry-After to 00:00 UTC', async () => {
    const { key } = await keyWith({ limits: { daily: 2 } });
    await call(LOOKUP, key);
    await call(LOOKUP, key);
    const refused = await call(LOOKUP, key);

    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('daily_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('3590'); // 23:00:10 → 00:00:00
  });

  it('answers monthly_limit_exceeded with Retry-After to the 1st of next month, and a new month starts afresh', async () => {
    const { key } = await keyWith({ limits: { daily: 100, monthly: 2 } });
    clock = new Date('2026-11-30T23:30:00Z');
    await call(LOOKUP, key);
    await call(LOOKUP, key);
    const refused = await call(LOOKUP, key);
    clock = new Date('2026-12-01T00:00:01Z');
    const nextMonth = await call(LOOKUP, key);
    clock = new Date('2026-11-30T23:00:10Z');

    expect(refused.body.error.code).toBe('monthly_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('1800');
    expect(nextMonth.status).toBe(200);
  });

  it('checks the key before the ceilings: a key revoked mid-stream is 401 from then on, not 429, and bills nothing more', async () => {
    const issued = await keyWith({ limits: { perMinute: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      if (i === 2) await server.stores.accounts.revoke(issued.id, clock.toISOString());
      statuses.push((await call(LOOKUP, issued.key)).status);
    }
    const revoked = await call(LOOKUP, issued.key);

    expect(statuses).toEqual([200, 200, 401, 401, 401, 401]);
    expect(revoked.body.error.code).toBe('invalid_key');
    expect(await server.stores.meters.usage(issued.id, windowsAt(clock))).toEqual({ minute: 2, day: 2, month: 2 });
  });

  it('counts a call whose input is refused in its minute, but bills it nothing', async () => {
    const issued = await keyWith();

    const bad = await call('/law/lookup?jurisdiction=us&citation=1-1&asOf=2024-02-30', issued.key);

    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('bad_as_of');
    expect(await server.stores.meters.usage(issued.id, windowsAt(clock))).toEqual({ minute: 1, day: 0, month: 0 });
  });

  it('admits exactly the ceiling of concurrent calls, and bills only those', async () => {
    const issued = await keyWith({ limits: { perMinute: 7 } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(LOOKUP, issued.key)));

    expect(answers.filter((a) => a.status === 200)).toHaveLength(7);
    expect(answers.filter((a) => a.status === 429 && a.body.error.code === 'rate_limited')).toHaveLength(13);
    expect(await server.stores.meters.usage(issued.id, windowsAt(clock))).toEqual({ minute: 7, day: 7, month: 7 });
  });
});

describe('the edge limit', () => {
  /** Counts the key lookups the server makes through its key store while `act` runs. */
  async function keyLookupsDuring(act: () => Promise<void>): Promise<number> {
    const accounts = server.services.accounts!;
    const original = accounts.findByHash.bind(accounts);
    let reads = 0;
    accounts.findByHash = async (hash: string) => {
      reads++;
      return original(hash);
    };
    try {
      await act();
    } finally {
      accounts.findByHash = original;
    }
    return reads;
  }

  it('refuses the 121st request of a minute with a made-up token, and the flood never reaches the key store', async () => {
    const token = `asof_live_${'x'.repeat(49)}`;
    const statuses: number[] = [];
    const reads = await keyLookupsDuring(async () => {
      for (let i = 0; i < 130; i++) statuses.push((await call(LOOKUP, token)).status);
    });

    expect(statuses.slice(0, 120).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(120).every((s) => s === 429)).toBe(true);
    expect(reads).toBe(0);
  });

  it('counts a well-formed unknown key too: one key lookup per request until the edge, none after', async () => {
    const unknown = generateKey(false); // checksum-valid, never issued
    clock = new Date('2026-11-30T22:00:00Z'); // a minute of its own at the edge
    const statuses: number[] = [];
    const lookups = await keyLookupsDuring(async () => {
      for (let i = 0; i < 125; i++) statuses.push((await call(LOOKUP, unknown)).status);
    });
    clock = new Date('2026-11-30T23:00:10Z');

    expect(statuses.slice(0, 120).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(120)).toEqual([429, 429, 429, 429, 429]);
    expect(lookups).toBe(120);
  });
});

describe('public calls and failures', () => {
  it('records a public call that carries a key as a zero-unit call and changes no counter', async () => {
    const issued = await keyWith();
    const before = await server.stores.meters.usage(issued.id, windowsAt(clock));

    const coverage = await call('/law/coverage', issued.key);
    await server.services.usageLog!.flush();

    expect(coverage.status).toBe(200);
    expect(coverage.headers.get('ratelimit')).toBeNull();
    expect(await server.stores.meters.usage(issued.id, windowsAt(clock))).toEqual(before);
    const records = await server.stores.meters.records(issued.id, clock.toISOString().slice(0, 10));
    expect(records).toEqual([expect.objectContaining({ routeId: 'law-coverage', units: 0, status: 200 })]);
  });

  it('bills nothing for a call that fails inside the service with a 5xx', async () => {
    const issued = await keyWith();
    const ok = await call('/law/search?q=congress', issued.key);
    await server.stores.stopSearch();

    const failed = await call('/law/search?q=congress', issued.key);

    expect(ok.status).toBe(200);
    expect(failed.status).toBe(503);
    expect(await server.stores.meters.usage(issued.id, windowsAt(clock))).toMatchObject({ day: 1, month: 1 });
  });

  it('never writes key material into logs or error bodies', async () => {
    const issued = await keyWith({ limits: { perMinute: 1 } });
    const secret = issued.key.slice(16); // the first 16 characters are the displayed prefix, the rest is secret
    const bodies = [
      await call(LOOKUP, issued.key),
      await call(LOOKUP, issued.key),
      await call('/law/lookup', issued.key),
      await call(LOOKUP, `${issued.key}x`),
    ].map((a) => a.text);
    await server.services.usageLog!.flush();

    expect(logged.length).toBeGreaterThan(0);
    for (const text of [...bodies, ...logged]) expect(text).not.toContain(secret);
  });
});
