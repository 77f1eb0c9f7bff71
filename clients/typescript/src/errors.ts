import type { components, operations } from './generated/openapi.ts';

type Json<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type CodeOf<Body> = Body extends { error: { code: infer Code } } ? Code : never;
type ResponseOf<Operation> = Operation extends { responses: infer Responses } ? Responses[keyof Responses] : never;

/**
 * Every error code the document names: those each operation answers, and those any request may meet before an
 * operation reads it (`TransportError`). Derived from the generated types, so a code added to the spec appears here.
 */
export type ErrorCode = CodeOf<Json<ResponseOf<operations[keyof operations]>>> | CodeOf<components['schemas']['TransportError']>;

export type ErrorEnvelope = components['schemas']['Error'];

/** An error answer of the API: its HTTP status and the envelope's fields, `code` first (switch on it, never on `message`). */
export class AsofError extends Error {
  override readonly name = 'AsofError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly requestId: string;
  /** With `no_edition_on_file`: the versions on file nearest the date asked about; asof never answers one of them instead. */
  readonly didYouMean: components['schemas']['SuggestionOutput'][] | undefined;
  /** With `missing_scope`: the scope the key lacks. */
  readonly requiredScope: string | undefined;
  /** With `not_carried` (and `no_edition_on_file` for a title not carried): the coverage answer that lists what is. */
  readonly coverageUrl: string | undefined;
  /** From `Retry-After` on a 429 or 503: seconds to wait before trying again. */
  readonly retryAfter: number | undefined;
  readonly envelope: ErrorEnvelope;

  constructor(status: number, envelope: ErrorEnvelope, headers?: Headers) {
    super(envelope.error.message);
    const { error } = envelope;
    this.status = status;
    this.code = error.code as ErrorCode;
    this.requestId = error.requestId;
    this.didYouMean = error.didYouMean;
    this.requiredScope = error.requiredScope;
    this.coverageUrl = error.coverageUrl;
    const retryAfter = Number(headers?.get('retry-after') ?? Number.NaN);
    this.retryAfter = Number.isFinite(retryAfter) ? retryAfter : undefined;
    this.envelope = envelope;
  }
}

/** Whether `e` is an {@link AsofError}, with one of `codes` when any are given. */
export function isAsofError<Code extends ErrorCode>(e: unknown, ...codes: Code[]): e is AsofError & { code: Code } {
  return e instanceof AsofError && (codes.length === 0 || (codes as ErrorCode[]).includes(e.code));
}

const isEnvelope = (body: unknown): body is ErrorEnvelope => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

/**
 * The body of a successful answer, or an {@link AsofError} thrown for an error answer:
 * `const section = await unwrap(asof.GET('/law/lookup', { params: { query } }))`.
 */
export async function unwrap<Result extends { data?: unknown; error?: unknown; response: Response }>(
  pending: Promise<Result> | Result,
): Promise<NonNullable<Result['data']>> {
  const { data, error, response } = await pending;
  if (response.ok) return data as NonNullable<Result['data']>;
  if (isEnvelope(error)) throw new AsofError(response.status, error, response.headers);
  throw new Error(`asof answered ${response.status} ${response.statusText} without an error envelope: ${String(error).slice(0, 200)}`);
}
