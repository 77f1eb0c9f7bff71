import type { ApiKeyRecord } from './ports.ts';

/** An admitted call: headers to send (RateLimit, RateLimit-Policy) and a way to settle it once the outcome is known. */
export interface Admission {
  headers: Record<string, string>;
  /** Called once with the final status: a call not answered (400, 413, 5xx) is refunded, anything else stays billed. */
  settle(outcome: { status: number }): Promise<void>;
}

/**
 * The metering seam: per-key ceilings, daily and monthly unit caps. `admit` throws an AppError with
 * rate_limited / daily_limit_exceeded / monthly_limit_exceeded (and Retry-After) when the call may not proceed.
 */
export interface Meter {
  admit(key: ApiKeyRecord, units: number, routeId: string, requestId: string): Promise<Admission>;
  /** A keyed call that bills nothing (a public call that carried a key, a refused call): a zero-unit usage record. */
  recordUnbilled(key: ApiKeyRecord, routeId: string, requestId: string, status: number): Promise<void>;
}

/** Admits everything and records nothing: `asof serve --no-meter` (the benchmark measures the meter against it). */
export const unmeteredMeter: Meter = {
  admit: async () => ({ headers: {}, settle: async () => undefined }),
  recordUnbilled: async () => undefined,
};
