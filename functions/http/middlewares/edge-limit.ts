import { bearerToken } from '#accounts/authenticate.ts';
import type { EdgeLimiter } from '#accounts/edge-limit.ts';
import { AppError } from '#shared/errors.ts';
import { type HttpRequest, headerOf } from './types.ts';

export interface EdgeLimitOptions {
  /** null: no edge in this process (on AWS the WAF rule of the stage is the edge). */
  limiter: EdgeLimiter | null;
  now: () => Date;
}

/**
 * The edge rule, first of the checks: 120 requests a minute per presented token, before the key is looked up, so a
 * flood of tokens (made up or not) never reaches the key store. Calls without a token are not counted here.
 */
export function edgeLimit(opts: EdgeLimitOptions) {
  const { limiter, now } = opts;
  const edgeLimitMiddlewareBefore = (request: HttpRequest): void => {
    if (!limiter) return;
    const token = bearerToken(headerOf(request.event, 'authorization'));
    if (!token) return;
    if (!limiter.hit(token, now()).allowed) {
      throw new AppError(
        'rate_limited',
        `Too many requests with this key: the edge allows ${limiter.limit} a minute per key.`,
        {},
        { 'retry-after': '60' },
      );
    }
  };
  return { before: edgeLimitMiddlewareBefore };
}
