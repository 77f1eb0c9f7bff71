/**
 * The case-law fallback's configuration, read from the environment under one set of names and one set of defaults
 * for the local server and the deployed citation lookup alike. A value that is set but not valid is refused (the
 * server does not start; a function fails at load, so the deployment's first call shows it), never replaced by a default.
 */
export const FALLBACK_ENV = {
  /** The shared token itself (the local server). */
  token: 'COURTLISTENER_TOKEN',
  /** Secrets Manager id of the token (a deployed function; the CDK stack sets it). */
  tokenSecret: 'ASOF_COURTLISTENER_SECRET',
  baseUrl: 'ASOF_COURTLISTENER_BASE_URL',
  dailyRequests: 'ASOF_FALLBACK_DAILY_REQUESTS',
  perRequestCap: 'ASOF_FALLBACK_PER_REQUEST',
  timeoutMs: 'ASOF_FALLBACK_TIMEOUT_MS',
} as const;

export const FALLBACK_DEFAULTS = {
  baseUrl: 'https://www.courtlistener.com',
  /** Requests a UTC day on the shared token. */
  dailyRequests: 5_000,
  /** Citations looked up per request at most: CourtListener's citations per minute on one token. */
  perRequestCap: 60,
  timeoutMs: 4_000,
} as const;

export type FallbackSettings = {
  -readonly [K in keyof typeof FALLBACK_DEFAULTS]: (typeof FALLBACK_DEFAULTS)[K] extends number ? number : string;
};

type Env = Readonly<Record<string, string | undefined>>;

/** A configuration value that is set and wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function wholeAboveZero(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new ConfigError(`${name} must be a whole number above 0 (got '${raw}')`);
  return n;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (got '${raw}')`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`${name} must be an http(s) URL (got '${raw}')`);
  return raw.replace(/\/+$/, '');
}

/** The fallback's numbers and address from the environment; throws ConfigError naming the variable on a bad value. */
export function fallbackSettings(env: Env): FallbackSettings {
  return {
    baseUrl: httpUrl(env, FALLBACK_ENV.baseUrl, FALLBACK_DEFAULTS.baseUrl),
    dailyRequests: wholeAboveZero(env, FALLBACK_ENV.dailyRequests, FALLBACK_DEFAULTS.dailyRequests),
    perRequestCap: wholeAboveZero(env, FALLBACK_ENV.perRequestCap, FALLBACK_DEFAULTS.perRequestCap),
    timeoutMs: wholeAboveZero(env, FALLBACK_ENV.timeoutMs, FALLBACK_DEFAULTS.timeoutMs),
  };
}
