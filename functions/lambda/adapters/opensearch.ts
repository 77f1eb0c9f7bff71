import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { DEFAULT_SEARCH_INDEX, ENV, type LambdaEnv, regionOf } from '../env.ts';

/** A client of the domain at `node` whose requests are SigV4-signed with the function's role. */
export function signedOpenSearchClient(env: LambdaEnv, node: string, requestTimeout: number, maxRetries = 3): Client {
  return new Client({
    ...AwsSigv4Signer({ region: regionOf(env), service: 'es', getCredentials: defaultProvider() }),
    node,
    requestTimeout,
    maxRetries,
  });
}

/**
 * The OpenSearch SearchIndex of the stage's domain, requests signed with the function's role; null when not bound.
 * A request gives up after 4 s and is retried once (the client retries a timeout too, and each try is sent anew):
 * 8 s at most, inside a route function's 10 s, so a slow domain answers 503 rather than a function timeout. Giving
 * up closes the connection, on which OpenSearch cancels the search.
 */
export function openSearchIndex(env: LambdaEnv): OpenSearchSearchIndex | null {
  const node = env[ENV.searchUrl];
  if (!node) return null;
  return new OpenSearchSearchIndex(signedOpenSearchClient(env, node, 4_000, 1), env[ENV.searchIndex] ?? DEFAULT_SEARCH_INDEX);
}
