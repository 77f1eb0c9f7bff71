import type { Meter } from '#accounts/meter.ts';
import type { HttpRequest } from './types.ts';

/** Units a call bills: fixed per route, or read from the validated input (one per citation in a batch). */
export type Units = number | ((input: never) => number);

export interface MeterOptions {
  meter: Meter;
  routeId: string;
  /** 0 marks a public route. */
  units: Units;
}

export interface AdmitOptions extends MeterOptions {
  /**
   * Where this instance sits: a fixed-unit route is admitted before its input is read (a call over its ceiling is
   * refused without parsing); a route whose units depend on the input is admitted once the input is parsed, so
   * exactly the units the call needs are reserved.
   */
  phase: 'before-input' | 'after-input';
}

/** Admits a metered call against the key's ceilings (a rejected call bills nothing). Runs after authentication. */
export function admitUsage(opts: AdmitOptions) {
  const { meter, routeId, units, phase } = opts;
  const mine = (typeof units === 'function') === (phase === 'after-input');
  const admitUsageMiddlewareBefore = async (request: HttpRequest): Promise<void> => {
    const { principal, requestId, input } = request.context.http;
    if (!mine || !principal) return;
    const n = typeof units === 'function' ? (units as (input: unknown) => number)(input) : units;
    // A call sized by its input is admitted even at 0 units (a text without a case citation): it bills nothing and
    // still counts against the key's per-minute ceiling, like every metered request.
    if (n > 0 || typeof units === 'function') request.context.http.admission = await meter.admit(principal, n, routeId, requestId);
  };
  return { before: admitUsageMiddlewareBefore };
}

/**
 * Settles once the final status is known (so it is registered outside the error envelope): adds the rate-limit
 * headers and settles the admission (a call the service failed is refunded). A keyed call that was never admitted
 * (a public call carrying a key, a call refused by a ceiling) leaves a zero-unit usage record.
 */
export function settleUsage(opts: MeterOptions) {
  const { meter, routeId } = opts;
  const settleUsageMiddlewareAfter = async (request: HttpRequest): Promise<void> => {
    const status = request.response?.statusCode ?? 500;
    const { admission, principal, requestId } = request.context.http;
    if (admission) {
      request.context.http.admission = null;
      if (request.response) request.response.headers = Object.assign(request.response.headers ?? {}, admission.headers);
      await admission.settle({ status });
    } else if (principal) {
      await meter.recordUnbilled(principal, routeId, requestId, status);
    }
  };
  return { after: settleUsageMiddlewareAfter, onError: settleUsageMiddlewareAfter };
}
