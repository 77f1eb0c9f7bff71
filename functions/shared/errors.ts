/** A store the request needs cannot be reached (connection refused, timeout, closed). Maps to a 503. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    readonly store: 'versions' | 'search' | 'ops' | 'accounts' | 'caselaw',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A conditional write lost a race (optimistic concurrency); the caller re-reads and retries. */
export class ConcurrentUpdateError extends Error {
  override readonly name = 'ConcurrentUpdateError';
}

/** A failure the client caused or must see: becomes the error envelope `{error: {code, message, ...}}`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
