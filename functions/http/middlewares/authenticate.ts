import { authenticate as authenticateKey, bearerToken, type Scope } from '#accounts/authenticate.ts';
import { hashKey, isWellFormedKey } from '#accounts/keys.ts';
import type { AccountStore } from '#accounts/ports.ts';
import { AppError } from '#shared/errors.ts';
import { type HttpRequest, headerOf } from './types.ts';

export interface AuthenticateOptions {
  accounts: AccountStore | null;
  /** The scope a metered route needs; undefined for a public route (a key it carries is identified, never required). */
  scope?: Scope;
}

/** Bearer-key authentication: 401 missing_bearer / invalid_key, 403 missing_scope, before any input is read. */
export function authenticate(opts: AuthenticateOptions) {
  const { accounts, scope } = opts;
  const authenticateMiddlewareBefore = async (request: HttpRequest): Promise<void> => {
    const header = headerOf(request.event, 'authorization');
    if (scope === undefined) {
      request.context.http.principal = await identifyOptionalKey(accounts, header);
      return;
    }
    if (!accounts) throw new AppError('statutes_unavailable', 'Key verification is not configured on this deployment.');
    request.context.http.principal = await authenticateKey(accounts, header, scope);
  };
  return { before: authenticateMiddlewareBefore };
}

/** A public call may carry a key: identify it for the zero-unit usage record, but never fail the call over it. */
async function identifyOptionalKey(accounts: AccountStore | null, header: string | undefined) {
  const token = bearerToken(header);
  if (!accounts || !token || !isWellFormedKey(token)) return null;
  try {
    const record = await accounts.findByHash(hashKey(token));
    return record && !record.revokedAt ? record : null;
  } catch {
    return null;
  }
}
