import type { ErrorCode } from '#shared/errors.ts';

/** HTTP status of each error code: the one place codes meet statuses. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  missing_fields: 400,
  bad_as_of: 400,
  bad_corpus: 400,
  bad_level: 400,
  bad_fallback: 400,
  bad_limit: 400,
  bad_id: 400,
  bad_json: 400,
  bad_parameter: 400,
  bad_request: 400,
  too_many: 400,
  query_too_long: 400,
  missing_bearer: 401,
  invalid_key: 401,
  missing_scope: 403,
  not_carried: 404,
  no_edition_on_file: 404,
  not_found: 404,
  no_route: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  expectation_failed: 417,
  too_large: 413,
  headers_too_large: 431,
  rate_limited: 429,
  daily_limit_exceeded: 429,
  monthly_limit_exceeded: 429,
  internal_error: 500,
  statutes_unavailable: 503,
  caselaw_unavailable: 503,
};

/** Seconds a client should wait before retrying a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;
