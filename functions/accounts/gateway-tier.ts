import type { Plan, PlanBook } from './plans.ts';
import type { ApiKeyRecord } from './ports.ts';

/**
 * The usage plans of a deployed stage: one per plan tier, named `${prefix}-${planId}`, a coarse throttle in front of
 * the exact in-function meter. The CDK stack builds them (lib/law-api.ts) and `asof keys create --stage` finds them
 * by these names, so both take the names and the numbers from here.
 */
export const usagePlanName = (prefix: string, planId: string): string => `${prefix}-${planId}`;

/** API Gateway's token bucket: `rateLimit` requests a second refill a bucket of `burstLimit`. */
export interface GatewayThrottle {
  rateLimit: number;
  burstLimit: number;
}

/**
 * The throttle of a tier whose keys may make `perMinute` requests a UTC minute. The meter admits up to `perMinute` in
 * each fixed minute, so up to 2 × `perMinute` within a second across a minute boundary, and N + 1 minutes' worth in
 * any N minutes. A bucket of 2 × `perMinute` refilled at `perMinute` a minute admits all of that (see
 * throttleAdmits); the refill is doubled again as headroom, because API Gateway applies its throttle on a best-effort
 * basis. So the throttle never refuses a call the meter would admit: it only sheds floods the meter would refuse.
 */
export const usagePlanThrottle = (perMinute: number): GatewayThrottle => ({ rateLimit: perMinute / 30, burstLimit: 2 * perMinute });

/** Whether a throttle admits everything a per-minute ceiling admits (the condition usagePlanThrottle meets). */
export const throttleAdmits = (throttle: GatewayThrottle, perMinute: number): boolean =>
  throttle.burstLimit >= 2 * perMinute && throttle.rateLimit * 60 >= perMinute;

/**
 * The tier whose usage plan a key's gateway key joins: its own plan's, unless the key's per-minute override exceeds
 * what that plan's throttle admits; then the smallest tier whose throttle admits it. Throws when no tier does (the
 * plans would have to change first): a key the gateway would throttle below its own ceiling is not issued.
 */
export function gatewayTier(plans: PlanBook, key: Pick<ApiKeyRecord, 'plan' | 'limits'>): Plan {
  const { perMinute } = plans.ceilingsOf(key);
  const own = plans.get(key.plan) ?? plans.require(plans.defaultPlan);
  if (throttleAdmits(usagePlanThrottle(own.perMinute), perMinute)) return own;
  const covering = plans.plans
    .filter((p) => throttleAdmits(usagePlanThrottle(p.perMinute), perMinute))
    .sort((a, b) => a.perMinute - b.perMinute);
  const tier = covering[0];
  if (!tier)
    throw new Error(
      `no plan's usage plan admits ${perMinute} requests a minute (largest: ${Math.max(...plans.plans.map((p) => p.perMinute))})`,
    );
  return tier;
}
