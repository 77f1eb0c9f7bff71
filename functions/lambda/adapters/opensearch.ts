import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { DEFAULT_SEARCH_INDEX, ENV, regionOf, type LambdaEnv } from '../env.ts';

/** The OpenSearch SearchIndex of the stage's domain, requests signed with the function's role; null when not bound. */
export function openSearchIndex(env: LambdaEnv): OpenSearchSearchIndex | null {
  const node = env[ENV.searchUrl];
  if (!node) return null;
  const client = new Client({
    ...AwsSigv4Signer({ region: regionOf(env), service: 'es', getCredentials: defaultProvider() }),
    node,
    requestTimeout: 5_000,
  });
  return new OpenSearchSearchIndex(client, env[ENV.searchIndex] ?? DEFAULT_SEARCH_INDEX);
}
