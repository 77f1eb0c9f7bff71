import * as z from 'zod';
import { EDGE_LIMIT_PER_MINUTE } from './edge-limit.ts';
import planFile from './plans.json' with { type: 'json' };
import type { ApiKeyRecord, Ceilings } from './ports.ts';

/** The three numbers that bound a key: requests per UTC minute, billable units per UTC day and per UTC month. */
const ceiling = z.number().int().positive();
/**
 * A per-minute ceiling above the edge limit could never be reached (the edge refuses a token's 121st request of a
 * minute first); refusing it also bounds what the counter item holds per minute (see meter-store.ts).
 */
const perMinute = ceiling.max(EDGE_LIMIT_PER_MINUTE, {
  message: `a per-minute ceiling above the edge limit (${EDGE_LIMIT_PER_MINUTE}) could never be reached`,
});
const PlanSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().min(1),
  perMinute,
  daily: ceiling,
  monthly: ceiling,
});
export type Plan = z.infer<typeof PlanSchema>;

const PlanFileSchema = z
  .object({ default: z.string(), plans: z.array(PlanSchema).min(1) })
  .refine((f) => new Set(f.plans.map((p) => p.id)).size === f.plans.length, { message: 'plan ids must be unique' })
  .refine((f) => f.plans.some((p) => p.id === f.default), { message: 'the default plan must be one of the plans' });

export const LimitOverridesSchema = z
  .object({ perMinute: perMinute.optional(), daily: ceiling.optional(), monthly: ceiling.optional() })
  .strict();

/** The plans, read from data (functions/accounts/plans.json by default) and checked once. */
export class PlanBook {
  readonly plans: readonly Plan[];
  readonly defaultPlan: string;

  constructor(data: unknown = planFile) {
    const parsed = PlanFileSchema.safeParse(data);
    if (!parsed.success)
      throw new Error(`invalid plans: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`);
    this.plans = parsed.data.plans;
    this.defaultPlan = parsed.data.default;
  }

  get(id: string): Plan | undefined {
    return this.plans.find((p) => p.id === id);
  }

  /** The plan a new key may name; throws with the known ids otherwise. */
  require(id: string): Plan {
    const plan = this.get(id);
    if (!plan) throw new Error(`unknown plan '${id}' (known: ${this.plans.map((p) => p.id).join(', ')})`);
    return plan;
  }

  /**
   * A key's ceilings: its plan's numbers, each replaced by the key's own override when it has one. A key whose plan
   * has since been removed from the data keeps working on the default plan's numbers (never unlimited).
   */
  ceilingsOf(key: Pick<ApiKeyRecord, 'plan' | 'limits'>): Ceilings {
    const plan = this.get(key.plan) ?? this.get(this.defaultPlan)!;
    return {
      perMinute: key.limits.perMinute ?? plan.perMinute,
      daily: key.limits.daily ?? plan.daily,
      monthly: key.limits.monthly ?? plan.monthly,
    };
  }
}
