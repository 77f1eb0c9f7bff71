/**
 * The CourtListener fallback as a deployed function wires it (functions/lambda/adapters/courtlistener.ts): the token
 * read from Secrets Manager on first use, not at load, once, and a failed read turned into an unavailable fallback
 * (never a failed call) that the next call retries. Secrets Manager and CourtListener are local fakes speaking their
 * documented contracts, reached through AWS_ENDPOINT_URL_SECRETS_MANAGER and the adapter's base URL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_DEFAULTS, FALLBACK_ENV } from '#app/fallback.ts';
import { courtListenerFallback } from '#lambda/adapters/courtlistener.ts';
import { ENV } from '#lambda/env.ts';
import { type FakeCourtListener, startFakeCourtListener } from '../support/fake-courtlistener.ts';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/fake-secrets-manager.ts';

const SECRET_ID = 'asof-test/courtlistener-token';
const saved = { ...process.env };
let courtListener: FakeCourtListener;
let secretsManager: FakeSecretsManager;

beforeAll(async () => {
  courtListener = await startFakeCourtListener('token-from-secrets-manager');
  secretsManager = await startFakeSecretsManager();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_MAX_ATTEMPTS: '1',
  });
});
afterEach(() => {
  secretsManager.secrets.clear();
  secretsManager.reads.length = 0;
  secretsManager.failing = false;
});
afterAll(async () => {
  process.env = saved;
  await Promise.all([courtListener?.close(), secretsManager?.close()]);
});

/** The environment of the citation-resolution function with its secret bound. */
const functionEnv = (overrides: Record<string, string> = {}) => ({
  AWS_REGION: 'us-east-1',
  [ENV.courtListenerSecret]: SECRET_ID,
  [FALLBACK_ENV.baseUrl]: courtListener.url,
  ...overrides,
});

/** A citation the fake CourtListener resolves, as the provider is asked for it. */
function knownCitation() {
  const [text] = courtListener.known.keys();
  const parts = text!.split(' ');
  return { volume: parts[0]!, reporter: parts.slice(1, -1).join(' '), page: parts.at(-1)! };
}

describe('the CourtListener fallback of a deployed function', () => {
  it('is off when no secret is bound', () => {
    const fallback = courtListenerFallback({ AWS_REGION: 'us-east-1' });

    expect(fallback.provider).toBeNull();
    expect(fallback.dailyRequests).toBe(0);
  });

  it('reads the token on the first lookup, not when the function is wired, and only once', async () => {
    secretsManager.secrets.set(SECRET_ID, ' token-from-secrets-manager\n');

    const fallback = courtListenerFallback(functionEnv());
    const readsAtWiring = secretsManager.reads.length;
    const first = await fallback.provider!.lookup([knownCitation()]);
    const second = await fallback.provider!.lookup([knownCitation()]);

    expect(readsAtWiring).toBe(0);
    expect(first.kind).toBe('ok');
    expect(second.kind).toBe('ok');
    expect(secretsManager.reads).toEqual([SECRET_ID]);
    expect(courtListener.lastAuthorization).toBe('Token token-from-secrets-manager');
  });

  it('takes its budget from the environment as the local server does, and refuses a value that is not a positive integer at load', () => {
    const set = courtListenerFallback(functionEnv({ [FALLBACK_ENV.dailyRequests]: '40', [FALLBACK_ENV.perRequestCap]: '7' }));
    const unset = courtListenerFallback(functionEnv());

    expect([set.dailyRequests, set.perRequestCap]).toEqual([40, 7]);
    expect([unset.dailyRequests, unset.perRequestCap]).toEqual([FALLBACK_DEFAULTS.dailyRequests, FALLBACK_DEFAULTS.perRequestCap]);
    expect(() => courtListenerFallback(functionEnv({ [FALLBACK_ENV.dailyRequests]: '-3' }))).toThrow(
      "ASOF_FALLBACK_DAILY_REQUESTS must be a whole number above 0 (got '-3')",
    );
    expect(() => courtListenerFallback(functionEnv({ [FALLBACK_ENV.perRequestCap]: '2.5' }))).toThrow(/ASOF_FALLBACK_PER_REQUEST .*'2\.5'/);
  });

  it('answers unavailable, never throws, when the secret is missing, and retries the read on the next lookup', async () => {
    const fallback = courtListenerFallback(functionEnv());
    const requestsBefore = courtListener.requests;

    const missing = await fallback.provider!.lookup([knownCitation()]);
    secretsManager.secrets.set(SECRET_ID, 'token-from-secrets-manager');
    const afterFix = await fallback.provider!.lookup([knownCitation()]);

    expect(missing).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/ResourceNotFound|can't find/) });
    expect(afterFix.kind).toBe('ok');
    expect(secretsManager.reads).toEqual([SECRET_ID, SECRET_ID]);
    expect(courtListener.requests).toBe(requestsBefore + 1);
  });

  it('answers unavailable when the secret holds no token or Secrets Manager fails', async () => {
    secretsManager.secrets.set(SECRET_ID, '   ');
    const empty = await courtListenerFallback(functionEnv()).provider!.lookup([knownCitation()]);
    secretsManager.failing = true;
    const failing = await courtListenerFallback(functionEnv()).provider!.lookup([knownCitation()]);

    expect(empty).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('holds no token') });
    expect(failing).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/InternalServiceError|try again/) });
  });
});
