import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError, type ErrorCode, StoreUnavailableError, type UnavailableReason } from '#shared/errors.ts';
import { ERROR_STATUS } from '../error-status.ts';
import { jsonResponse } from '../respond.ts';
import type { HttpRequest } from './types.ts';

export interface ErrorEnvelopeOptions {
  logger?: Logger;
  /** The 503 code for an unreachable store on this route. */
  unavailableCode?: ErrorCode;
}

/** What a 503 says, by why the store could not answer (never the internals: those are logged). */
const UNAVAILABLE_MESSAGES: Record<UnavailableReason, string> = {
  unreachable: 'The law store is unreachable right now; try again shortly.',
  timeout: 'The law store did not answer in time; try again shortly.',
  busy: 'The law store is too busy right now; try again shortly.',
  damaged: 'The law store is being repaired right now; try again shortly.',
};

/** The error envelope `{error: {code, message, requestId, …}}` in one place, its request id also in `x-request-id`. */
export function errorResponse(
  code: ErrorCode,
  message: string,
  requestId: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return jsonResponse(ERROR_STATUS[code], { error: { code, message, requestId, ...details } }, { 'x-request-id': requestId, ...headers });
}

/**
 * Turns any failure into the envelope. Like middy's http-error-handler it leaves an already-set response alone and
 * never exposes internals: details only for AppErrors, a generic message for everything else.
 */
export function errorEnvelope(opts: ErrorEnvelopeOptions = {}) {
  const { logger, unavailableCode } = { unavailableCode: 'statutes_unavailable' as const, ...opts };
  const errorEnvelopeMiddlewareOnError = (request: HttpRequest): void => {
    if (request.response !== null && request.response !== undefined) return;
    const err = request.error;
    const id = request.context.http?.requestId ?? 'unknown';
    if (err instanceof AppError) {
      if (ERROR_STATUS[err.code] >= 500) logger?.error('request failed', { requestId: id, code: err.code, error: err.cause ?? err });
      request.response = errorResponse(err.code, err.message, id, err.details, err.headers);
    } else if (err instanceof StoreUnavailableError) {
      logger?.warn('store unavailable', { requestId: id, store: err.store, reason: err.reason, error: err.message });
      const code = err.store === 'caselaw' ? 'caselaw_unavailable' : unavailableCode;
      request.response = errorResponse(code, UNAVAILABLE_MESSAGES[err.reason], id);
    } else {
      logger?.error('unhandled error', { requestId: id, error: err });
      request.response = errorResponse('internal_error', 'The request failed inside the service.', id);
    }
  };
  return { onError: errorEnvelopeMiddlewareOnError };
}
