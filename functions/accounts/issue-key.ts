import { randomBytes } from 'node:crypto';
import { AppError } from '#shared/errors.ts';
import { SCOPES, type Scope } from './authenticate.ts';
import { gatewayTier } from './gateway-tier.ts';
import { displayPrefix, generateKey, hashKey } from './keys.ts';
import { LimitOverridesSchema, PlanBook } from './plans.ts';
import type { AccountStore, ApiKeyRecord, GatewayKeys } from './ports.ts';

export interface IssueKeyParams {
  name: string;
  scopes?: string[];
  test?: boolean;
  plan?: string;
  limits?: ApiKeyRecord['limits'];
}

/** What the caller sees once: the key itself is never stored and cannot be shown again. */
export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  scopes: string[];
  test: boolean;
}

function checkScopes(scopes: string[]): Scope[] {
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new AppError('missing_fields', `unknown scope(s): ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  return scopes as Scope[];
}

/** A key's plan (the default one when none is named) and its overrides, checked against the plans. */
export function checkPlan(
  plans: PlanBook,
  plan: string | undefined,
  limits: ApiKeyRecord['limits'] | undefined,
): Pick<ApiKeyRecord, 'plan' | 'limits'> {
  const id = plan ?? plans.defaultPlan;
  if (!plans.get(id)) throw new AppError('missing_fields', `unknown plan '${id}' (known: ${plans.plans.map((p) => p.id).join(', ')})`);
  const parsed = LimitOverridesSchema.safeParse(limits ?? {});
  if (!parsed.success)
    throw new AppError(
      'missing_fields',
      `limits must be positive whole numbers: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return { plan: id, limits: parsed.data };
}

/**
 * Issues a key: stores its record and, on a deployed stage (`gateway`), first gives it its gateway key on its tier's
 * usage plan. The key is returned only once both exist, so a key shown to anyone works. The gateway key comes first
 * because without a record it opens nothing: the function behind the gateway refuses every call whose key has no
 * record, and the key itself was never shown. So a run that dies between the two leaves no working key, and running
 * the command again issues a fresh one. (The other order could leave a listed, counted record whose key the gateway
 * refuses.) A record that fails to be written takes its gateway key down with it.
 */
export async function issueKey(
  store: AccountStore,
  params: IssueKeyParams,
  now: Date,
  plans: PlanBook = new PlanBook(),
  gateway: GatewayKeys | null = null,
): Promise<IssuedKey> {
  const name = params.name.trim();
  if (!name) throw new AppError('missing_fields', 'a key needs a name');
  const scopes = checkScopes(params.scopes ?? ['lookup']);
  const { plan, limits } = checkPlan(plans, params.plan, params.limits);
  const test = params.test ?? false;
  const key = generateKey(test);
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(9).toString('base64url')}`,
    name,
    hash: hashKey(key),
    prefix: displayPrefix(key),
    scopes,
    test,
    createdAt: now.toISOString(),
    revokedAt: null,
    plan,
    limits,
  };
  if (gateway) await gateway.register(record, gatewayTier(plans, record).id);
  try {
    await store.createKey(record);
  } catch (err) {
    // The original failure is what the caller needs; a gateway key left enabled still opens nothing (no record).
    if (gateway) await gateway.disable(record.id).catch(() => false);
    throw err;
  }
  return { id: record.id, key, prefix: record.prefix, scopes, test };
}
