/**
 * Requests to the publisher with every wait bounded: until the answer's headers, and between two pieces of its body
 * (a download may take long, but never stands still for long). Failures are PublisherErrors that say what happened
 * and whether trying again may help. Works with any fetch-like function (Node's fetch; a test double).
 */

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface Timeouts {
  /** Until the answer's status and headers. */
  responseMs: number;
  /** Without a byte of the body. */
  stallMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { responseMs: 30_000, stallMs: 60_000 };

export type PublisherFailure = 'unreachable' | 'timeout' | 'http' | 'not-published' | 'cut' | 'corrupt';

export class PublisherError extends Error {
  constructor(
    message: string,
    readonly failure: PublisherFailure,
    /** Trying again may help (a cut connection, a timeout, a 5xx); a 404 or a corrupt zip will not. */
    readonly transient: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

class Timeout extends Error {}

/** What fetch's rejection means, in words: `connect ECONNREFUSED 127.0.0.1:9`, a DNS failure, a reset. */
function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}

interface Answer {
  response: Response;
  /** The body, piece by piece; a stall past `stallMs` rejects with a PublisherError. */
  body(): AsyncIterable<Uint8Array>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/** GET `url`; rejects with a PublisherError when the publisher cannot be reached or does not answer in time. */
export async function request(fetchLike: FetchLike, url: string, headers: Record<string, string>, timeouts: Timeouts): Promise<Answer> {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Timeout()), timeouts.responseMs);
  let response: Response;
  try {
    response = await fetchLike(url, { headers, signal: controller.signal, redirect: 'follow' });
  } catch (err) {
    clearTimeout(timer);
    if (controller.signal.reason instanceof Timeout) {
      throw new PublisherError(`${url}: no answer within ${timeouts.responseMs / 1000} s`, 'timeout', true);
    }
    throw new PublisherError(`cannot reach ${new URL(url).origin} (${reasonOf(err)})`, 'unreachable', true);
  }
  clearTimeout(timer);
  return {
    response,
    async *body() {
      const reader = response.body?.getReader();
      if (!reader) return;
      try {
        for (;;) {
          timer = setTimeout(() => controller.abort(new Timeout()), timeouts.stallMs);
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (err) {
            if (controller.signal.reason instanceof Timeout) {
              throw new PublisherError(`${url}: nothing received for ${timeouts.stallMs / 1000} s`, 'timeout', true);
            }
            throw new PublisherError(`${url}: the connection was cut (${reasonOf(err)})`, 'cut', true);
          } finally {
            clearTimeout(timer);
          }
          if (next.done) return;
          yield next.value;
        }
      } finally {
        reader.releaseLock();
      }
    },
    discard: () => response.body?.cancel().catch(() => undefined) ?? Promise.resolve(),
  };
}

/** The error for an answer that is not the one asked for. */
export function httpError(url: string, response: Response): PublisherError {
  const { status } = response;
  const what = `${url}: HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`;
  if (status === 404 || status === 410)
    return new PublisherError(`${what} (the publisher has no such file)`, 'not-published', false, status);
  const transient = status >= 500 || status === 408 || status === 429;
  return new PublisherError(transient ? `${what} (the publisher is failing; try again later)` : what, 'http', transient, status);
}

/** OLRC answers a title it lists but does not serve (Title 53, reserved) with a redirect to this page. */
export const isNotFoundPage = (response: Response): boolean =>
  response.redirected && /\/docnotfound\b/i.test(new URL(response.url).pathname);

const MAX_PAGE_BYTES = 8 * 1024 * 1024;

/** A page of the publisher's, as text (bounded in size). */
export async function fetchPage(fetchLike: FetchLike, url: string, timeouts: Timeouts = DEFAULT_TIMEOUTS): Promise<string> {
  const answer = await request(fetchLike, url, { accept: 'text/html' }, timeouts);
  if (answer.response.status !== 200) {
    await answer.discard();
    throw httpError(url, answer.response);
  }
  const pieces: Uint8Array[] = [];
  let size = 0;
  for await (const piece of answer.body()) {
    size += piece.length;
    if (size > MAX_PAGE_BYTES) {
      await answer.discard();
      throw new PublisherError(`${url}: the page is over ${MAX_PAGE_BYTES / 1024 / 1024} MB; not the publisher's page`, 'http', false);
    }
    pieces.push(piece);
  }
  return Buffer.concat(pieces).toString('utf8');
}
