import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { DEFAULT_SEARCH_INDEX, ENV, type LambdaEnv, regionOf } from '../env.ts';

/** A client of the domain at `node` whose requests are SigV4-signed with the function's role. */
export function signedOpenSearchClient(env: LambdaEnv, node: string, requestTimeout: number): Client {
  return new Client({
    ...AwsSigv4Signer({ region: regionOf(env), service: 'es', getCredentials: defaultProvider() }),
    node,
    requestTimeout,
  });
}

/** The OpenSearch SearchIndex of the stage's domain, requests signed with the function's role; null when not bound. */
export function openSearchIndex(env: LambdaEnv): OpenSearchSearchIndex | null {
  const node = env[ENV.searchUrl];
  if (!node) return null;
  return new OpenSearchSearchIndex(signedOpenSearchClient(env, node, 5_000), env[ENV.searchIndex] ?? DEFAULT_SEARCH_INDEX);
}
