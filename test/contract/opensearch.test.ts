/**
 * The OpenSearch SearchIndex adapter against a real cluster, when OPENSEARCH_URL points at one (no cluster runs on
 * this machine or in CI: there the adapter is checked on the requests it builds and the responses it parses,
 * test/unit/stores/opensearch.test.ts).
 */
import { Client } from '@opensearch-project/opensearch';
import { describe, it } from 'vitest';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { describeSearchIndexContract } from './search-index.contract.ts';

const OPENSEARCH_URL = process.env.OPENSEARCH_URL;

if (OPENSEARCH_URL) {
  const indexName = `asof-contract-${process.pid}`;
  describeSearchIndexContract('OpenSearch', {
    open: async () => {
      const client = new Client({ node: OPENSEARCH_URL });
      const index = new OpenSearchSearchIndex(client, indexName);
      await index.ensureIndex();
      return {
        index,
        clear: async () => {
          await client.deleteByQuery({ index: indexName, body: { query: { match_all: {} } } as never, refresh: true });
        },
        dispose: async () => {
          await client.indices.delete({ index: indexName });
          await client.close();
        },
      };
    },
    openClosed: async () => {
      const client = new Client({ node: OPENSEARCH_URL });
      await client.close();
      return new OpenSearchSearchIndex(client, indexName);
    },
  });
} else {
  describe('SearchIndex contract: OpenSearch', () => {
    it.skip('runs when OPENSEARCH_URL points at a cluster', () => undefined);
  });
}
