/**
 * The meter (functions/accounts/meter.ts) over the DynamoDB meter store on dynalite: what a caller sees (headers,
 * 429s with Retry-After), what is billed (refunds after a 5xx, retried when the store fails), what is recorded.
 */
import { describe, expect, it } from 'vitest';
import { createMeter, isBillable } from '#accounts/meter.ts';
import { PlanBook } from '#accounts/plans.ts';
import type { ApiKeyRecord, MeterStore } from '#accounts/ports.ts';
import { UsageLog } from '#accounts/usage-log.ts';
import { windowsAt } from '#accounts/windows.ts';
import { AppError } from '#shared/errors.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { keyRecord } from './account-store.contract.ts';
import { useDynaliteTables } from './dynalite-tables.ts';
import { describeMeterStoreContract } from './meter-store.contract.ts';

const dynamo = useDynaliteTables('meter');

async function freshStore(): Promise<DynamoMeterStore> {
  return new DynamoMeterStore(dynamo.doc, (await dynamo.fresh()).meters);
}

describeMeterStoreContract('DynamoDB on dynalite', freshStore);

const PLANS = new PlanBook({ default: 'tiny', plans: [{ id: 'tiny', name: 'Tiny', perMinute: 3, daily: 5, monthly: 8 }] });

async function meterAt(iso: string, store?: MeterStore) {
  let now = new Date(iso);
  const meterStore = store ?? (await freshStore());
  const usage = new UsageLog(meterStore);
  const meter = createMeter({ store: meterStore, plans: PLANS, usage, now: () => now });
  return { meter, store: meterStore, usage, setNow: (next: string) => (now = new Date(next)) };
}

const key = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => keyRecord('key_m', { plan: 'tiny', ...over });
let rid = 0;
const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
};

describe('the meter', () => {
  it('sends RateLimit-Policy and RateLimit for the three windows on an admitted call', async () => {
    const { meter } = await meterAt('2026-11-22T12:00:15Z');

    const { headers } = await meter.admit(key(), 1, 'law-lookup', `r${++rid}`);

    expect(headers['ratelimit-policy']).toBe('"minute";q=3;w=60, "day";q=5;w=86400, "month";q=8;w=2592000');
    expect(headers.ratelimit).toBe(`"minute";r=2;t=45, "day";r=4;t=${12 * 3600 - 15}, "month";r=7;t=${8 * 86_400 + 12 * 3600 - 15}`);
  });

  it('answers each ceiling with its own code and Retry-After: 60 s, to 00:00 UTC, to the 1st of next month', async () => {
    const { meter, setNow } = await meterAt('2026-11-30T23:00:10Z');
    for (let i = 0; i < 3; i++) await meter.admit(key(), 1, 'law-lookup', `r${++rid}`);

    const minute = await refusal(meter.admit(key(), 1, 'law-lookup', `r${++rid}`));
    setNow('2026-11-30T23:01:10Z');
    await meter.admit(key(), 2, 'law-lookup', `r${++rid}`);
    const day = await refusal(meter.admit(key(), 1, 'law-lookup', `r${++rid}`));
    setNow('2026-11-30T23:59:30Z'); // still the same day and month
    const tooBig = await refusal(meter.admit(key({ limits: { daily: 100 } }), 4, 'law-citations', `r${++rid}`));

    expect(minute).toMatchObject({ code: 'rate_limited', headers: { 'retry-after': '60' } });
    expect(day).toMatchObject({ code: 'daily_limit_exceeded', headers: { 'retry-after': '3530' } }); // 23:01:10 → 00:00:00
    expect(tooBig).toMatchObject({ code: 'monthly_limit_exceeded', headers: { 'retry-after': '30' } });
    expect(tooBig.message).toMatch(/limit of 8 units per UTC month.*this call needs 4 units/);
    expect(minute.headers.ratelimit).toMatch(/^"minute";r=0;t=50, /);
  });

  it('gives the units of a call not answered (5xx, refused input) back, keeping it in its minute; an answer stays billed', async () => {
    const { meter, store } = await meterAt('2026-11-22T12:00:00Z');
    const windows = windowsAt(new Date('2026-11-22T12:00:00Z'));

    await (await meter.admit(key({ limits: { perMinute: 10 } }), 2, 'law-search', `r${++rid}`)).settle({ status: 503 });
    await (await meter.admit(key({ limits: { perMinute: 10 } }), 1, 'law-lookup', `r${++rid}`)).settle({ status: 400 });
    await (await meter.admit(key({ limits: { perMinute: 10 } }), 1, 'law-lookup', `r${++rid}`)).settle({ status: 404 });
    await (await meter.admit(key({ limits: { perMinute: 10 } }), 1, 'law-lookup', `r${++rid}`)).settle({ status: 200 });

    expect(await store.usage('key_m', windows)).toEqual({ minute: 4, day: 2, month: 2 });
    expect([200, 404, 429, 400, 413, 500, 503].map(isBillable)).toEqual([true, true, true, false, false, false, false]);
  });

  it('keeps separate counters for each key, so a live key and a test key never share a budget', async () => {
    const { meter, store } = await meterAt('2026-11-22T12:00:00Z');
    const windows = windowsAt(new Date('2026-11-22T12:00:00Z'));
    const live = keyRecord('key_live', { plan: 'tiny' });
    const test = keyRecord('key_test', { plan: 'tiny', test: true });

    for (let i = 0; i < 3; i++) await meter.admit(live, 1, 'law-lookup', `r${++rid}`);
    const testAdmitted = await meter.admit(test, 1, 'law-lookup', `r${++rid}`);

    expect(testAdmitted.headers.ratelimit).toMatch(/^"minute";r=2;/);
    expect(await store.usage('key_live', windows)).toEqual({ minute: 3, day: 3, month: 3 });
    expect(await store.usage('key_test', windows)).toEqual({ minute: 1, day: 1, month: 1 });
  });

  it('retries a refund the store refused until it lands', async () => {
    const real = await freshStore();
    let failures = 1;
    const flaky: MeterStore = Object.assign(Object.create(real) as MeterStore, {
      refund: async (req: Parameters<MeterStore['refund']>[0]) => {
        if (failures-- > 0) throw new Error('store unreachable');
        return real.refund(req);
      },
    });
    const { meter } = await meterAt('2026-11-22T12:00:00Z', flaky);
    const windows = windowsAt(new Date('2026-11-22T12:00:00Z'));

    await (await meter.admit(key(), 3, 'law-search', `r${++rid}`)).settle({ status: 500 });
    const before = await real.usage('key_m', windows);
    await new Promise((done) => setTimeout(done, 900)); // the first retry runs after 500 ms

    expect(before.day).toBe(3);
    expect(await real.usage('key_m', windows)).toMatchObject({ day: 0, month: 0 });
  });

  it('records every keyed call, billed or not, and writes the records behind the responses', async () => {
    const { meter, store, usage } = await meterAt('2026-11-22T12:00:00Z');
    const k = key({ test: true });

    await (await meter.admit(k, 1, 'law-lookup', 'req-ok')).settle({ status: 200 });
    await (await meter.admit(k, 1, 'law-search', 'req-failed')).settle({ status: 500 });
    await meter.recordUnbilled(k, 'law-coverage', 'req-public', 200);
    await meter.recordUnbilled(k, 'law-lookup', 'req-refused', 429);
    await usage.flush();

    const records = (await store.records('key_m', '2026-11-22')).map(({ requestId, routeId, units, status, test }) => ({
      requestId,
      routeId,
      units,
      status,
      test,
    }));
    expect(records.sort((a, b) => a.requestId.localeCompare(b.requestId))).toEqual([
      { requestId: 'req-failed', routeId: 'law-search', units: 0, status: 500, test: true },
      { requestId: 'req-ok', routeId: 'law-lookup', units: 1, status: 200, test: true },
      { requestId: 'req-public', routeId: 'law-coverage', units: 0, status: 200, test: true },
      { requestId: 'req-refused', routeId: 'law-lookup', units: 0, status: 429, test: true },
    ]);
  });
});
