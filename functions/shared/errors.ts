/**
 * Why a store could not answer: it cannot be reached (refused, closed), it did not answer within the statement's
 * time budget, too much work is already waiting for it, or its files are damaged or gone (being rebuilt).
 */
export type UnavailableReason = 'unreachable' | 'timeout' | 'busy' | 'damaged';

/** A store the request needs cannot answer (connection refused, timeout, closed, overloaded). Maps to a 503. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly reason: UnavailableReason;
  constructor(
    readonly store: 'versions' | 'search' | 'ops' | 'accounts' | 'caselaw',
    message: string,
    options?: { cause?: unknown; reason?: UnavailableReason },
  ) {
    super(message, options);
    this.reason = options?.reason ?? 'unreachable';
  }
}

/** A conditional write lost a race (optimistic concurrency); the caller re-reads and retries. */
export class ConcurrentUpdateError extends Error {
  override readonly name = 'ConcurrentUpdateError';
}

/** The error codes of the spec (and the few this service adds, documented in docs/DECISIONS.md). */
export type ErrorCode =
  | 'missing_fields'
  | 'bad_as_of'
  | 'bad_corpus'
  | 'bad_level'
  | 'bad_fallback'
  | 'bad_limit'
  | 'bad_id'
  | 'bad_json'
  | 'bad_parameter'
  | 'bad_request'
  | 'too_many'
  | 'query_too_long'
  | 'missing_bearer'
  | 'invalid_key'
  | 'missing_scope'
  | 'not_carried'
  | 'no_edition_on_file'
  | 'not_found'
  | 'no_route'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'expectation_failed'
  | 'too_large'
  | 'headers_too_large'
  | 'rate_limited'
  | 'daily_limit_exceeded'
  | 'monthly_limit_exceeded'
  | 'internal_error'
  | 'statutes_unavailable'
  | 'caselaw_unavailable';

/**
 * The codes answered with a 5xx (http/error-status.ts): a failure of the service, logged with its stack. Every other
 * code is an answer (a 404 of a lookup, a 400, a 429) whose stack no one reads: its AppError skips capturing one,
 * which under a request's async frames costs several µs, on as many as a third of the lookups.
 */
export const FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['internal_error', 'statutes_unavailable', 'caselaw_unavailable']);

/** A failure the caller must see: becomes the error envelope `{error: {code, message, ...details}}`. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  /** Extra envelope fields (didYouMean, requiredScope …). */
  readonly details: Record<string, unknown>;
  /** Response headers the failure implies (Retry-After, Allow …). */
  readonly headers: Record<string, string>;
  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    const limit = Error.stackTraceLimit;
    if (!FAILURE_CODES.has(code)) Error.stackTraceLimit = 0;
    super(message, options);
    Error.stackTraceLimit = limit;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}
