import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GatewayThrottle, gatewayTier, throttleAdmits, usagePlanName, usagePlanThrottle } from '#accounts/gateway-tier.ts';
import { PlanBook } from '#accounts/plans.ts';

/** The meter's per-minute ceiling alone: fixed UTC minutes, at most `perMinute` admitted in each. */
function meterAdmitted(arrivalsMs: number[], perMinute: number): number[] {
  const perWindow = new Map<number, number>();
  return arrivalsMs.filter((at) => {
    const minute = Math.floor(at / 60_000);
    const n = perWindow.get(minute) ?? 0;
    if (n >= perMinute) return false;
    perWindow.set(minute, n + 1);
    return true;
  });
}

/** API Gateway's token bucket, started full: how many of the arrivals it refuses. */
function bucketRefusals(arrivalsMs: number[], { rateLimit, burstLimit }: GatewayThrottle): number {
  let tokens = burstLimit;
  let last = arrivalsMs[0] ?? 0;
  let refused = 0;
  for (const at of arrivalsMs) {
    tokens = Math.min(burstLimit, tokens + ((at - last) / 1000) * rateLimit);
    last = at;
    if (tokens >= 1) tokens -= 1;
    else refused += 1;
  }
  return refused;
}

/** Sorted arrival instants over a few minutes, clustered so that minute boundaries see bursts. */
const arrivals = fc
  .array(
    fc.oneof(fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 59_000, max: 61_000 }), fc.integer({ min: 119_900, max: 120_100 })),
    { maxLength: 600 },
  )
  .map((xs) => xs.sort((a, b) => a - b));

describe('the usage plans of the plan tiers', () => {
  it('are named after the stage prefix and the plan', () => {
    expect(usagePlanName('asof-dev', 'free')).toBe('asof-dev-free');
  });

  it('never throttle a call the meter would admit, bursts across a minute boundary included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120 }), arrivals, (perMinute, times) => {
        const admitted = meterAdmitted(times, perMinute);
        expect(bucketRefusals(admitted, usagePlanThrottle(perMinute))).toBe(0);
        expect(throttleAdmits(usagePlanThrottle(perMinute), perMinute)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('would throttle admitted calls with a bucket of only one minute (the check can fail)', () => {
    const perMinute = 30;
    const tooSmall = { rateLimit: 1, burstLimit: perMinute };
    // A full minute's ceiling in its last second, and the next minute's in its first: the meter admits all 60.
    const boundaryBurst = [
      ...Array.from({ length: perMinute }, (_, i) => 59_000 + i),
      ...Array.from({ length: perMinute }, (_, i) => 60_000 + i),
    ];
    expect(meterAdmitted(boundaryBurst, perMinute)).toHaveLength(60);
    expect(bucketRefusals(boundaryBurst, tooSmall)).toBeGreaterThan(0);
    expect(throttleAdmits(tooSmall, perMinute)).toBe(false);
    expect(bucketRefusals(boundaryBurst, usagePlanThrottle(perMinute))).toBe(0);
  });
});

describe('gatewayTier (the usage plan a key joins)', () => {
  const book = new PlanBook(); // free 30, starter 60, pro 120, enterprise 120 requests a minute

  it("is the key's own plan when that plan's throttle admits the key's ceiling", () => {
    expect(gatewayTier(book, { plan: 'free', limits: {} }).id).toBe('free');
    expect(gatewayTier(book, { plan: 'enterprise', limits: {} }).id).toBe('enterprise');
    expect(gatewayTier(book, { plan: 'starter', limits: { perMinute: 10, daily: 5 } }).id).toBe('starter');
  });

  it('is the smallest tier that admits an override above its plan', () => {
    expect(gatewayTier(book, { plan: 'free', limits: { perMinute: 60 } }).id).toBe('starter');
    expect(gatewayTier(book, { plan: 'free', limits: { perMinute: 61 } }).id).toBe('pro');
    expect(gatewayTier(book, { plan: 'starter', limits: { perMinute: 120 } }).id).toBe('pro');
  });

  it("puts a key whose plan was removed on the default plan's tier", () => {
    expect(gatewayTier(book, { plan: 'gone', limits: {} }).id).toBe('free');
  });

  it('refuses a key no tier can carry rather than throttle it below its ceiling', () => {
    const small = new PlanBook({ default: 'a', plans: [{ id: 'a', name: 'A', perMinute: 30, daily: 1, monthly: 1 }] });
    expect(() => gatewayTier(small, { plan: 'a', limits: { perMinute: 100 } })).toThrow(
      /no plan's usage plan admits 100 requests a minute \(largest: 30\)/,
    );
  });
});
