import { fallbackSettings } from '#app/fallback.ts';
import { type FallbackConfig, NO_FALLBACK } from '#caselaw/fallback.ts';
import { sharedTokenFallback } from '#stores/courtlistener/citation-provider.ts';
import { ENV, type LambdaEnv, regionOf } from '../env.ts';
import { captureClient } from '../powertools.ts';

/**
 * The CourtListener fallback on the shared token, kept in Secrets Manager and read on first use (a read that fails
 * makes that call's fallback `unavailable`, never the call). No secret bound: no fallback. The settings are parsed
 * as the local server parses them (a bad value fails the function at load). The Secrets Manager client is loaded
 * with the first read, not at module load: most calls never ask for the fallback, and a function reads the token once.
 */
export function courtListenerFallback(env: LambdaEnv): FallbackConfig {
  const settings = fallbackSettings(env);
  const secretId = env[ENV.courtListenerSecret];
  if (!secretId) return NO_FALLBACK;
  const region = regionOf(env);
  const token = async () => {
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const out = await captureClient(new SecretsManagerClient({ region })).send(new GetSecretValueCommand({ SecretId: secretId }));
    const value = out.SecretString?.trim();
    if (!value) throw new Error(`the secret ${secretId} holds no token`);
    return value;
  };
  return sharedTokenFallback(settings, token);
}
