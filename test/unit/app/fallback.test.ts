import { describe, expect, it } from 'vitest';
import { FALLBACK_DEFAULTS, FALLBACK_ENV, fallbackSettings } from '#app/fallback.ts';
import { NO_FALLBACK } from '#caselaw/fallback.ts';
import { sharedTokenFallback } from '#stores/courtlistener/citation-provider.ts';

describe('the case-law fallback settings, one reading for the local server and a deployed function', () => {
  it('takes the defaults when nothing is set, and empty values count as unset', () => {
    expect(fallbackSettings({})).toEqual(FALLBACK_DEFAULTS);
    expect(fallbackSettings({ [FALLBACK_ENV.dailyRequests]: '', [FALLBACK_ENV.baseUrl]: ' ' })).toEqual(FALLBACK_DEFAULTS);
  });

  it('reads every value under its one name', () => {
    const env = {
      [FALLBACK_ENV.baseUrl]: 'http://127.0.0.1:9999/',
      [FALLBACK_ENV.dailyRequests]: '40',
      [FALLBACK_ENV.perRequestCap]: '7',
      [FALLBACK_ENV.timeoutMs]: '1500',
    };
    expect(fallbackSettings(env)).toEqual({ baseUrl: 'http://127.0.0.1:9999', dailyRequests: 40, perRequestCap: 7, timeoutMs: 1500 });
  });

  it.each([
    [FALLBACK_ENV.dailyRequests, '-3', /ASOF_FALLBACK_DAILY_REQUESTS must be a whole number above 0 \(got '-3'\)/],
    [FALLBACK_ENV.perRequestCap, '2.5', /ASOF_FALLBACK_PER_REQUEST must be a whole number above 0 \(got '2.5'\)/],
    [FALLBACK_ENV.timeoutMs, '0', /ASOF_FALLBACK_TIMEOUT_MS must be a whole number above 0/],
    [FALLBACK_ENV.timeoutMs, '1e3', /ASOF_FALLBACK_TIMEOUT_MS must be a whole number above 0/],
    [FALLBACK_ENV.dailyRequests, '99999999999999999999', /ASOF_FALLBACK_DAILY_REQUESTS must be a whole number above 0/],
    [FALLBACK_ENV.baseUrl, 'ftp://example.org', /ASOF_COURTLISTENER_BASE_URL must be an http\(s\) URL/],
    [FALLBACK_ENV.baseUrl, 'not a url', /ASOF_COURTLISTENER_BASE_URL must be an http\(s\) URL/],
  ])('refuses %s=%s, naming the variable, rather than falling back to a default', (name, value, message) => {
    expect(() => fallbackSettings({ [name]: value })).toThrow(message);
  });

  it('is no fallback without a token, and a provider on the budget with one', () => {
    expect(sharedTokenFallback(FALLBACK_DEFAULTS, null)).toBe(NO_FALLBACK);
    expect(sharedTokenFallback(FALLBACK_DEFAULTS, '')).toBe(NO_FALLBACK);
    const fallback = sharedTokenFallback({ ...FALLBACK_DEFAULTS, dailyRequests: 12, perRequestCap: 3 }, 'token');
    expect(fallback.provider).not.toBeNull();
    expect([fallback.dailyRequests, fallback.perRequestCap]).toEqual([12, 3]);
  });
});
