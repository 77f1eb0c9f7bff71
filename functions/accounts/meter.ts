import { secondsToNextUtcDay, secondsToNextUtcMonth } from '#shared/dates.ts';
import { AppError, type ErrorCode } from '#shared/errors.ts';
import type { PlanBook } from './plans.ts';
import type { ApiKeyRecord, Ceilings, MeterStore, MeterUsage, RefundRequest } from './ports.ts';
import type { UsageLog } from './usage-log.ts';
import { secondsInMonth, secondsToNextMinute, windowsAt } from './windows.ts';

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
const unmetered: Admission = Object.freeze({ headers: Object.freeze({}), settle: async () => undefined });
export const unmeteredMeter: Meter = {
  admit: async () => unmetered,
  recordUnbilled: async () => undefined,
};

export interface MeteringDeps {
  store: MeterStore;
  plans: PlanBook;
  usage: UsageLog;
  now: () => Date;
  /** Told of a refund that failed and will be retried. */
  onRefundError?: (err: unknown, attempt: number) => void;
}

const REFUND_ATTEMPTS = 8;

/**
 * A call is billed when the service answered it: a 2xx, or a 404 that is an answer (nothing in force, not carried).
 * A call whose input was refused (400, 413) or that the service failed (5xx) gets its units back; it still counts
 * as a request in its minute, so a flood of bad calls is limited like any other.
 */
export const isBillable = (status: number): boolean => status < 500 && status !== 400 && status !== 413;

const REFUSALS: Record<'minute' | 'day' | 'month', { code: ErrorCode; what: string }> = {
  minute: { code: 'rate_limited', what: 'requests per minute' },
  day: { code: 'daily_limit_exceeded', what: 'units per UTC day' },
  month: { code: 'monthly_limit_exceeded', what: 'units per UTC month' },
};

/**
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers): the key's three windows, what is left of
 * each and when each resets. The minute counts requests; the day and the month count billable units.
 */
function rateLimitHeaders(c: Ceilings, used: MeterUsage, now: Date): Record<string, string> {
  const left = (quota: number, n: number) => Math.max(0, quota - n);
  return {
    'ratelimit-policy': `"minute";q=${c.perMinute};w=60, "day";q=${c.daily};w=86400, "month";q=${c.monthly};w=${secondsInMonth(now)}`,
    ratelimit:
      `"minute";r=${left(c.perMinute, used.minute)};t=${secondsToNextMinute(now)}, ` +
      `"day";r=${left(c.daily, used.day)};t=${secondsToNextUtcDay(now)}, ` +
      `"month";r=${left(c.monthly, used.month)};t=${secondsToNextUtcMonth(now)}`,
  };
}

/**
 * The meter of the accounts issue: a key's plan (and its overrides) set three ceilings; a call is admitted only if
 * all three have room, counted in all three at once by the store; a call not answered gives its units back; every keyed call
 * leaves a usage record.
 */
export function createMeter(deps: MeteringDeps): Meter {
  const record = (key: ApiKeyRecord, routeId: string, requestId: string, units: number, status: number, at: Date) =>
    deps.usage.add({ keyId: key.id, requestId, routeId, units, status, at: at.toISOString(), test: key.test });

  /**
   * Gives a failed call's units back. A refund is idempotent (keyed by the request id), so one that fails (the store
   * that failed the call may still be down) is retried in the background, backing off, rather than billed.
   */
  const refund = async (req: RefundRequest, attempt = 1): Promise<void> => {
    try {
      await deps.store.refund(req);
    } catch (err) {
      deps.onRefundError?.(err, attempt);
      if (attempt < REFUND_ATTEMPTS) setTimeout(() => void refund(req, attempt + 1), 250 * 2 ** attempt).unref();
    }
  };

  return {
    async admit(key, units, routeId, requestId): Promise<Admission> {
      const now = deps.now();
      const windows = windowsAt(now);
      const ceilings = deps.plans.ceilingsOf(key);
      const result = await deps.store.charge({ keyId: key.id, requestId, units, windows, ceilings });
      const headers = rateLimitHeaders(ceilings, result.usage, now);
      if (!result.admitted) {
        const { code, what } = REFUSALS[result.exceeded];
        const retryAfter =
          result.exceeded === 'minute' ? 60 : result.exceeded === 'day' ? secondsToNextUtcDay(now) : secondsToNextUtcMonth(now);
        const limit = result.exceeded === 'minute' ? ceilings.perMinute : result.exceeded === 'day' ? ceilings.daily : ceilings.monthly;
        throw new AppError(
          code,
          `This key's limit of ${limit} ${what} is reached${units > 1 ? ` (this call needs ${units} units)` : ''}; retry after ${retryAfter} s.`,
          {},
          {
            ...headers,
            'retry-after': String(retryAfter),
          },
        );
      }
      return {
        headers,
        settle: async ({ status }) => {
          const billed = isBillable(status);
          if (!billed) await refund({ keyId: key.id, requestId, units, windows });
          record(key, routeId, requestId, billed ? units : 0, status, now);
        },
      };
    },

    async recordUnbilled(key, routeId, requestId, status) {
      record(key, routeId, requestId, 0, status, deps.now());
    },
  };
}
