import type { Meter } from '#accounts/meter.ts';
import type { HttpRequest } from './types.ts';

export interface MeterOptions {
  meter: Meter;
  routeId: string;
  /** Units a metered call bills; 0 marks a public route. */
  units: number;
}

/** Admits a metered call against the key's ceilings (a rejected call bills nothing). Runs after authentication. */
export function admitUsage(opts: MeterOptions) {
  const { meter, routeId, units } = opts;
  const admitUsageMiddlewareBefore = async (request: HttpRequest): Promise<void> => {
    const principal = request.context.http.principal;
    if (units > 0 && principal) request.context.http.admission = await meter.admit(principal, units, routeId);
  };
  return { before: admitUsageMiddlewareBefore };
}

/**
 * Settles once the final status is known (so it is registered outside the error envelope): adds the rate-limit
 * headers, refunds a 5xx, and records a keyed public call at zero units.
 */
export function settleUsage(opts: MeterOptions) {
  const { meter, routeId, units } = opts;
  const settleUsageMiddlewareAfter = async (request: HttpRequest): Promise<void> => {
    const status = request.response?.statusCode ?? 500;
    const admission = request.context.http.admission;
    if (admission) {
      request.context.http.admission = null;
      if (request.response) request.response.headers = { ...request.response.headers, ...admission.headers };
      await admission.settle({ status });
    } else if (units === 0 && request.context.http.principal) {
      await meter.recordPublicCall(request.context.http.principal, routeId, status);
    }
  };
  return { after: settleUsageMiddlewareAfter, onError: settleUsageMiddlewareAfter };
}
