import { randomBytes } from 'node:crypto';
import { AppError } from '#shared/errors.ts';
import { SCOPES, type Scope } from './authenticate.ts';
import { displayPrefix, generateKey, hashKey } from './keys.ts';
import type { AccountStore, ApiKeyRecord } from './ports.ts';

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

export const DEFAULT_PLAN = 'free';

export function checkScopes(scopes: string[]): Scope[] {
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new AppError('missing_fields', `unknown scope(s): ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  return scopes as Scope[];
}

export async function issueKey(store: AccountStore, params: IssueKeyParams, now: Date): Promise<IssuedKey> {
  const name = params.name.trim();
  if (!name) throw new AppError('missing_fields', 'a key needs a name');
  const scopes = checkScopes(params.scopes ?? ['lookup']);
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
    plan: params.plan ?? DEFAULT_PLAN,
    limits: params.limits ?? {},
  };
  await store.createKey(record);
  return { id: record.id, key, prefix: record.prefix, scopes, test };
}
