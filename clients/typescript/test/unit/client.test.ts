import { describe, expect, it } from 'vitest';
import { AsofError, createAsofClient, DEFAULT_BASE_URL, isAsofError, unwrap } from '../../src/index.ts';

/** The Request the client would send, answered with `reply` (the wiring of URL and headers, without a server). */
function recording(reply: () => Response) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    return reply();
  };
  return { sent, fetch };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

describe('createAsofClient', () => {
  it('calls the local server by default, with the key as a bearer token', async () => {
    const { sent, fetch } = recording(() => json(200, { coverage: [] }));
    await createAsofClient({ key: 'asof_test_abc', fetch }).GET('/law/coverage', { params: { query: { jurisdiction: 'us' } } });
    expect(DEFAULT_BASE_URL).toBe('http://127.0.0.1:8787/v1');
    expect(sent[0]!.url).toBe('http://127.0.0.1:8787/v1/law/coverage?jurisdiction=us');
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer asof_test_abc');
  });

  it('sends no authorization without a key, and keeps the caller’s base URL and headers', async () => {
    const { sent, fetch } = recording(() => json(200, { status: 'ok' }));
    await createAsofClient({ baseUrl: 'https://api.example.test/v1/', headers: { 'x-trace': 't1' }, fetch }).GET('/health');
    expect(sent[0]!.url).toBe('https://api.example.test/v1/health');
    expect(sent[0]!.headers.get('authorization')).toBeNull();
    expect(sent[0]!.headers.get('x-trace')).toBe('t1');
  });
});

describe('unwrap', () => {
  it('throws an AsofError carrying the envelope, the status and Retry-After', async () => {
    const envelope = { error: { code: 'rate_limited', message: 'Too many requests this minute.', requestId: 'r-1' } };
    const { fetch } = recording(() => json(429, envelope, { 'retry-after': '17' }));
    const asof = createAsofClient({ key: 'asof_test_abc', fetch });
    const thrown = await unwrap(asof.GET('/health')).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(AsofError);
    expect(isAsofError(thrown, 'rate_limited')).toBe(true);
    expect(isAsofError(thrown, 'invalid_key')).toBe(false);
    expect(thrown).toMatchObject({ name: 'AsofError', status: 429, code: 'rate_limited', requestId: 'r-1', retryAfter: 17, envelope });
    expect((thrown as AsofError).message).toBe('Too many requests this minute.');
  });

  it('passes didYouMean through, and has no retryAfter without the header', async () => {
    const suggestion = {
      citation: '1-112b',
      display: '1 U.S.C. § 112b',
      validFrom: '2013-07-26T00:00:00-04:00',
      validTo: '2022-01-27T00:00:00-05:00',
      versionLabel: '113-31',
      reason: 'earliest-version',
    };
    const envelope = { error: { code: 'no_edition_on_file', message: 'No version in force.', requestId: 'r-2', didYouMean: [suggestion] } };
    const { fetch } = recording(() => json(404, envelope));
    const thrown = await unwrap(createAsofClient({ fetch }).GET('/health')).catch((e: unknown) => e);
    expect(isAsofError(thrown, 'not_carried', 'no_edition_on_file')).toBe(true);
    expect(thrown).toMatchObject({ status: 404, code: 'no_edition_on_file', didYouMean: [suggestion], retryAfter: undefined });
  });

  it('names the status and what came back when an error answer is not an envelope', async () => {
    const { fetch } = recording(() => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const thrown = await unwrap(createAsofClient({ fetch }).GET('/health')).catch((e: unknown) => e);
    expect(thrown).not.toBeInstanceOf(AsofError);
    expect((thrown as Error).message).toBe('asof answered 502 Bad Gateway without an error envelope: <html>Bad Gateway</html>');
  });
});
