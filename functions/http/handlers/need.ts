import { AppError, type ErrorCode } from '#shared/errors.ts';

/** The store a handler needs, or the 503 the spec gives when it is not configured. */
export function need<T>(store: T | null, what = 'The law corpus store', code: ErrorCode = 'statutes_unavailable'): T {
  if (store === null) throw new AppError(code, `${what} is not configured on this deployment.`);
  return store;
}

export const todayUtc = (now: Date): string => now.toISOString().slice(0, 10);
