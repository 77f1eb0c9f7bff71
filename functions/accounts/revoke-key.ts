import type { AccountStore, ApiKeyRecord, GatewayKeys } from './ports.ts';

export interface RevokedKey {
  record: ApiKeyRecord;
  /** On a deployed stage: whether a gateway key was there to disable. Null locally (no gateway). */
  gatewayKey: 'disabled' | 'absent' | null;
}

/**
 * Revokes a key: its record first, which refuses the very next call (every function checks the record), then its
 * gateway key, so that the gateway stops passing it on too. Both steps are idempotent: a revocation interrupted
 * between them is completed by running it again. Null when no key has that id.
 */
export async function revokeKey(
  store: AccountStore,
  id: string,
  now: Date,
  gateway: GatewayKeys | null = null,
): Promise<RevokedKey | null> {
  const record = await store.revoke(id, now.toISOString());
  if (!record) return null;
  if (!gateway) return { record, gatewayKey: null };
  return { record, gatewayKey: (await gateway.disable(id)) ? 'disabled' : 'absent' };
}
