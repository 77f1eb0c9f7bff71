import { AppError } from '#shared/errors.ts';
import { hashKey, isWellFormedKey } from './keys.ts';
import type { AccountStore, ApiKeyRecord } from './ports.ts';

/** Scopes a customer may hold; `lookup` is the only self-service one, the rest are staff-issued. */
export const SCOPES = ['lookup', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The bearer token of an Authorization header (scheme matched case-insensitively), '' when empty, null when absent. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^\s*bearer(?:\s+(.*))?$/i.exec(header);
  if (!m) return '';
  return (m[1] ?? '').trim();
}

/** The key record behind the header, or the spec's 401/403. Never echoes the key. */
export async function authenticate(store: AccountStore, header: string | undefined, requiredScope: Scope): Promise<ApiKeyRecord> {
  const token = bearerToken(header);
  if (!token) {
    throw new AppError('missing_bearer', 'Send the API key as `Authorization: Bearer <key>`.');
  }
  if (!isWellFormedKey(token)) throw new AppError('invalid_key', 'The API key is not valid.');
  const record = await store.findByHash(hashKey(token));
  if (!record || record.revokedAt) throw new AppError('invalid_key', 'The API key is not valid or has been revoked.');
  if (!record.scopes.includes(requiredScope)) {
    throw new AppError('missing_scope', `This endpoint needs the scope '${requiredScope}'.`, { requiredScope });
  }
  return record;
}
