import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Ceilings, ChargeRequest, ChargeResult, MeterStore, UsageRecord } from '#accounts/ports.ts';
import { type MeterWindows, windowsAt } from '#accounts/windows.ts';

const at = (iso: string): MeterWindows => windowsAt(new Date(iso));
const NOON = '2026-11-22T12:00:10Z';
let ridCount = 0;

function chargeOf(over: Partial<Omit<ChargeRequest, 'ceilings'>> & { ceilings?: Partial<Ceilings> } = {}): ChargeRequest {
  return {
    keyId: 'key_a',
    requestId: `req-${++ridCount}`,
    units: 1,
    windows: at(NOON),
    ...over,
    ceilings: { perMinute: 100, daily: 1_000, monthly: 10_000, ...over.ceilings },
  };
}

const admitted = (results: ChargeResult[]) => results.filter((r) => r.admitted).length;

/** Every MeterStore adapter must pass this; `factory` returns a store over fresh, empty storage. */
export function describeMeterStoreContract(name: string, factory: () => Promise<MeterStore>): void {
  describe(`MeterStore contract: ${name}`, () => {
    let store: MeterStore;
    beforeEach(async () => {
      store = await factory();
    });

    it('counts an admitted call in its minute (requests), day and month (units)', async () => {
      const a = await store.charge(chargeOf({ units: 3 }));
      const b = await store.charge(chargeOf({ units: 2 }));

      expect(a).toEqual({ admitted: true, usage: { minute: 1, day: 3, month: 3 } });
      expect(b).toEqual({ admitted: true, usage: { minute: 2, day: 5, month: 5 } });
      expect(await store.usage('key_a', at(NOON))).toEqual({ minute: 2, day: 5, month: 5 });
      expect(await store.usage('key_b', at(NOON))).toEqual({ minute: 0, day: 0, month: 0 });
    });

    it('refuses in the order minute, day, month, and a refused call counts nothing', async () => {
      const c = { perMinute: 2, daily: 5, monthly: 6 };
      await store.charge(chargeOf({ ceilings: c, units: 2 }));
      await store.charge(chargeOf({ ceilings: c, units: 2 }));

      const minute = await store.charge(chargeOf({ ceilings: c, units: 2 })); // all three are full or nearly
      const day = await store.charge(chargeOf({ ceilings: c, units: 2, windows: at('2026-11-22T12:01:10Z') }));
      const month = await store.charge(chargeOf({ ceilings: { ...c, daily: 100 }, units: 3, windows: at('2026-11-23T00:00:10Z') }));

      expect(minute).toMatchObject({ admitted: false, exceeded: 'minute' });
      expect(day).toMatchObject({ admitted: false, exceeded: 'day', usage: { day: 4 } });
      expect(month).toMatchObject({ admitted: false, exceeded: 'month', usage: { day: 0, month: 4 } });
      expect(await store.usage('key_a', at(NOON))).toEqual({ minute: 2, day: 4, month: 4 });
    });

    it('refuses a call larger than a whole ceiling without counting it', async () => {
      const r = await store.charge(chargeOf({ units: 251, ceilings: { daily: 250 } }));

      expect(r).toMatchObject({ admitted: false, exceeded: 'day' });
      expect(await store.usage('key_a', at(NOON))).toEqual({ minute: 0, day: 0, month: 0 });
    });

    it('counts a call once however often it is charged (a retried write), also across a new minute', async () => {
      const first = chargeOf({ units: 4 });
      await store.charge(first);

      const again = await store.charge(first);
      const later = await store.charge({ ...first, windows: at('2026-11-22T12:01:05Z') });
      await store.charge(chargeOf({ windows: at('2026-11-22T12:01:20Z') })); // another call opens the next minute
      const evenLater = await store.charge({ ...first, windows: at('2026-11-22T12:01:30Z') });

      expect(again.admitted && later.admitted && evenLater.admitted).toBe(true);
      expect(await store.usage('key_a', at('2026-11-22T12:01:40Z'))).toEqual({ minute: 1, day: 5, month: 5 });
    });

    it('starts each minute, day and month at zero, keeping the longer windows', async () => {
      const c = { perMinute: 1 };
      expect((await store.charge(chargeOf({ ceilings: c, windows: at('2026-11-30T23:58:59Z') }))).admitted).toBe(true);
      expect((await store.charge(chargeOf({ ceilings: c, windows: at('2026-11-30T23:58:59Z') }))).admitted).toBe(false);
      expect(await store.charge(chargeOf({ ceilings: c, windows: at('2026-11-30T23:59:00Z') }))).toEqual({
        admitted: true,
        usage: { minute: 1, day: 2, month: 2 },
      });
      expect(await store.charge(chargeOf({ ceilings: c, windows: at('2026-12-01T00:00:00Z') }))).toEqual({
        admitted: true,
        usage: { minute: 1, day: 1, month: 1 },
      });
      expect(await store.usage('key_a', at('2026-11-30T23:59:30Z'))).toEqual({ minute: 1, day: 2, month: 2 });
    });

    it('refunds a call once: its units come back, a second refund finds nothing', async () => {
      const call = chargeOf({ units: 3 });
      await store.charge(call);
      await store.charge(chargeOf({ units: 1 }));

      const first = await store.refund(call);
      const second = await store.refund(call);
      const unknown = await store.refund(chargeOf());

      expect([first, second, unknown]).toEqual([true, false, false]);
      expect(await store.usage('key_a', at(NOON))).toEqual({ minute: 2, day: 1, month: 1 });
    });

    it('refunds a call charged in the minute before the current one', async () => {
      const call = chargeOf({ units: 2 });
      await store.charge(call);
      await store.charge(chargeOf({ windows: at('2026-11-22T12:01:05Z') }));

      expect(await store.refund(call)).toBe(true);
      expect(await store.usage('key_a', at('2026-11-22T12:01:10Z'))).toEqual({ minute: 1, day: 1, month: 1 });
    });

    it('admits exactly min(N, L) of N concurrent calls, whichever window binds', async () => {
      for (const [ceilings, label] of [
        [{ perMinute: 7 }, 'minute'],
        [{ daily: 7 }, 'day'],
        [{ monthly: 7 }, 'month'],
      ] as const) {
        const keyId = `key_${label}`;
        const results = await Promise.all(Array.from({ length: 20 }, () => store.charge(chargeOf({ keyId, ceilings }))));
        expect(admitted(results), label).toBe(7);
        expect(
          results.filter((r) => !r.admitted).every((r) => !r.admitted && r.exceeded === label),
          label,
        ).toBe(true);
        const used = await store.usage(keyId, at(NOON));
        expect(label === 'minute' ? used.minute : label === 'day' ? used.day : used.month, label).toBe(7);
      }
    });

    it('never goes over a ceiling, never refuses a call that fits, and counts exactly the admitted units (property)', async () => {
      // Batches of concurrent calls of mixed sizes, the clock moving between batches (seconds, minutes, days).
      const call = fc.record({ units: fc.integer({ min: 1, max: 4 }) });
      const step = fc.record({
        calls: fc.array(call, { minLength: 1, maxLength: 8 }),
        advanceS: fc.constantFrom(0, 1, 30, 61, 3_600, 86_400),
      });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          const keyId = `key_p${++run}`;
          const ceilings = { perMinute: 5, daily: 9, monthly: 14 };
          let now = Date.parse('2026-11-30T23:58:00Z');
          const billed = new Map<string, { day: Map<string, number>; month: number }>();
          for (const s of steps) {
            now += s.advanceS * 1000;
            const windows = windowsAt(new Date(now));
            const before = await store.usage(keyId, windows);
            const results = await Promise.all(s.calls.map((c) => store.charge(chargeOf({ keyId, units: c.units, windows, ceilings }))));
            const after = await store.usage(keyId, windows);
            for (const [i, r] of results.entries()) {
              const units = s.calls[i]!.units;
              if (r.admitted) {
                const m = billed.get(windows.month) ?? { day: new Map(), month: 0 };
                m.day.set(windows.day, (m.day.get(windows.day) ?? 0) + units);
                m.month += units;
                billed.set(windows.month, m);
              } else {
                // A refusal names a window that really had no room for this call when it was decided.
                const { usage } = r;
                if (r.exceeded === 'minute') expect(usage.minute).toBeGreaterThanOrEqual(ceilings.perMinute);
                if (r.exceeded === 'day') expect(usage.day + units).toBeGreaterThan(ceilings.daily);
                if (r.exceeded === 'month') expect(usage.month + units).toBeGreaterThan(ceilings.monthly);
              }
            }
            // Never over; counters equal the admitted units.
            const m = billed.get(windows.month)!;
            expect(after.day).toBe(m?.day.get(windows.day) ?? 0);
            expect(after.month).toBe(m?.month ?? 0);
            expect(after.minute).toBeLessThanOrEqual(ceilings.perMinute);
            expect(after.day).toBeLessThanOrEqual(ceilings.daily);
            expect(after.month).toBeLessThanOrEqual(ceilings.monthly);
            // Never under-admitting: a batch that fits whole is admitted whole; N equal calls against room for L
            // of them admit exactly min(N, L).
            const sizes = s.calls.map((c) => c.units);
            const total = sizes.reduce((a, b) => a + b, 0);
            const fits =
              before.minute + sizes.length <= ceilings.perMinute &&
              before.day + total <= ceilings.daily &&
              before.month + total <= ceilings.monthly;
            if (fits) expect(admitted(results)).toBe(sizes.length);
            if (sizes.every((u) => u === sizes[0])) {
              const u = sizes[0]!;
              const room = Math.min(
                ceilings.perMinute - before.minute,
                Math.floor((ceilings.daily - before.day) / u),
                Math.floor((ceilings.monthly - before.month) / u),
              );
              expect(admitted(results)).toBe(Math.max(0, Math.min(sizes.length, room)));
            }
          }
        }),
        { numRuns: 15 },
      );
    });

    it('sums a month per day, without the days that billed nothing', async () => {
      await store.charge(chargeOf({ units: 2, windows: at('2026-11-01T00:00:00Z') }));
      await store.charge(chargeOf({ units: 3, windows: at('2026-11-22T12:00:00Z') }));
      const refunded = chargeOf({ units: 4, windows: at('2026-11-23T08:00:00Z') });
      await store.charge(refunded);
      await store.refund(refunded);
      await store.charge(chargeOf({ units: 5, windows: at('2026-12-01T00:00:00Z') }));

      expect(await store.month('key_a', '2026-11')).toEqual({ units: 5, days: { '01': 2, '22': 3 } });
      expect(await store.month('key_a', '2026-12')).toEqual({ units: 5, days: { '01': 5 } });
      expect(await store.month('key_b', '2026-11')).toEqual({ units: 0, days: {} });
    });

    it('keeps usage records by key and UTC day', async () => {
      const rec = (over: Partial<UsageRecord>): UsageRecord => ({
        keyId: 'key_a',
        requestId: `req-${++ridCount}`,
        routeId: 'law-lookup',
        units: 1,
        status: 200,
        at: '2026-11-22T12:00:00.000Z',
        test: false,
        ...over,
      });
      const records = [
        rec({}),
        rec({ routeId: 'law-search', at: '2026-11-22T23:59:59.000Z' }),
        rec({ at: '2026-11-23T00:00:00.000Z', units: 0, status: 429 }),
        rec({ keyId: 'key_b' }),
      ];
      records.push(...Array.from({ length: 30 }, (_, i) => rec({ at: `2026-11-22T13:00:${String(i).padStart(2, '0')}.000Z` })));

      await store.record(records);

      const day = await store.records('key_a', '2026-11-22');
      expect(day).toHaveLength(32);
      expect(day).toContainEqual(records[1]);
      expect(await store.records('key_a', '2026-11-23')).toEqual([records[2]]);
      expect(await store.records('key_b', '2026-11-22')).toEqual([records[3]]);
    });
  });
}
