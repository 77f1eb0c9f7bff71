import type { Client } from '@opensearch-project/opensearch';
import { parseKeywords } from '#law/keywords.ts';
import { OPEN_END, OPEN_END_DATE } from '#law/model.ts';
import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import { HIT_CLOSE, HIT_OPEN, renderSnippet } from '#law/snippet.ts';
import { localDateOf } from '#shared/dates.ts';
import { StoreUnavailableError } from '#shared/errors.ts';

/**
 * The SearchIndex on OpenSearch (the production search in AWS). One document per version, id
 * `jurisdiction#corpus#key#validFrom`; validity as local calendar dates, so that the filter is the lookup's rule
 * (validFrom's date ≤ asOf < validTo's date). Every term must match: the words are one `cross_fields` multi_match with
 * operator AND over catchline (boosted) and body, each quoted phrase a `multi_match` of type phrase.
 */
export const INDEX_MAPPING = {
  settings: { index: { number_of_shards: 1, number_of_replicas: 1 }, analysis: { analyzer: { law: { type: 'english' } } } },
  mappings: {
    dynamic: 'strict',
    properties: {
      jurisdiction: { type: 'keyword' },
      corpus: { type: 'keyword' },
      key: { type: 'keyword' },
      catchline: { type: 'text', analyzer: 'law' },
      bodyText: { type: 'text', analyzer: 'law' },
      status: { type: 'keyword' },
      temporalBasis: { type: 'keyword' },
      validFrom: { type: 'keyword' },
      validTo: { type: 'keyword' },
      fromDate: { type: 'date', format: 'yyyy-MM-dd' },
      toDate: { type: 'date', format: 'yyyy-MM-dd' },
      citation: { type: 'object', enabled: false },
      provenance: { type: 'object', enabled: false },
    },
  },
} as const;

const CATCHLINE_BOOST = 4;
const SNIPPET = { fragment_size: 180, number_of_fragments: 2 };
const BULK_BATCH = 500;

type Source = Omit<SearchDocument, 'id'> & { jurisdiction: string; corpus: string; key: string; fromDate: string; toDate: string };

const endDate = (validTo: string) => (validTo === OPEN_END ? OPEN_END_DATE : localDateOf(validTo));

export function toSource(doc: SearchDocument): Source {
  const { id: _id, ...rest } = doc;
  return {
    ...rest,
    jurisdiction: doc.citation.jurisdiction,
    corpus: doc.citation.corpus,
    key: doc.citation.key,
    fromDate: localDateOf(doc.validFrom),
    toDate: endDate(doc.validTo),
  };
}

/** The search request for a query: exported so the unit tests read what is sent. */
export function searchRequest(query: SearchQuery): Record<string, unknown> {
  const { words, phrases } = parseKeywords(query.q);
  const fields = [`catchline^${CATCHLINE_BOOST}`, 'bodyText'];
  const must: unknown[] = [];
  if (words) must.push({ multi_match: { query: words.replace(/\s+/g, ' '), fields, type: 'cross_fields', operator: 'and' } });
  for (const phrase of phrases) must.push({ multi_match: { query: phrase, fields, type: 'phrase' } });
  const filter: unknown[] = [{ range: { fromDate: { lte: query.asOf } } }, { range: { toDate: { gt: query.asOf } } }];
  if (query.jurisdictions) filter.push({ terms: { jurisdiction: query.jurisdictions } });
  if (query.corpus) filter.push({ term: { corpus: query.corpus } });
  return {
    size: query.limit,
    track_total_hits: false,
    query: { bool: { must, filter } },
    sort: [{ _score: 'desc' }, { jurisdiction: 'asc' }, { key: 'asc' }],
    _source: ['citation', 'catchline', 'status', 'temporalBasis', 'provenance', 'bodyText'],
    highlight: {
      pre_tags: [HIT_OPEN],
      post_tags: [HIT_CLOSE],
      fields: { bodyText: SNIPPET, catchline: { number_of_fragments: 0 } },
      no_match_size: 120,
    },
  };
}

interface RawHit {
  _source: Pick<Source, 'citation' | 'catchline' | 'status' | 'temporalBasis' | 'provenance' | 'bodyText'>;
  highlight?: { bodyText?: string[]; catchline?: string[] };
}

/** A response's hits as the port answers them: snippets escaped, matched terms in <b>. */
export function parseHits(body: { hits?: { hits?: RawHit[] } }): SearchHit[] {
  return (body.hits?.hits ?? []).map(({ _source: s, highlight }) => {
    const marked = highlight?.bodyText?.join(' … ') ?? highlight?.catchline?.[0] ?? s.bodyText.slice(0, 120);
    return {
      citation: s.citation,
      catchline: s.catchline,
      snippet: renderSnippet(marked),
      status: s.status,
      temporalBasis: s.temporalBasis,
      versionLabel: s.provenance.versionLabel,
      provenance: s.provenance,
    };
  });
}

const unavailable = (err: unknown): never => {
  const name = (err as { name?: string })?.name ?? '';
  if (/ConnectionError|TimeoutError|NoLivingConnectionsError/.test(name)) {
    throw new StoreUnavailableError('search', `the search index cannot be reached (${(err as Error).message})`, { cause: err });
  }
  throw err;
};

export class OpenSearchSearchIndex implements SearchIndex {
  constructor(
    private readonly client: Client,
    private readonly index: string,
  ) {}

  /** Creates the index with its mapping when it does not exist. */
  async ensureIndex(): Promise<void> {
    const exists = await this.client.indices.exists({ index: this.index }).catch(unavailable);
    if (!exists.body) await this.client.indices.create({ index: this.index, body: INDEX_MAPPING as never }).catch(unavailable);
  }

  private async bulk(operations: unknown[]): Promise<void> {
    if (!operations.length) return;
    // wait_for: the port promises a write is searchable once it returns (refresh() only tunes).
    const res = await this.client.bulk({ body: operations as never, refresh: 'wait_for' }).catch(unavailable);
    const body = res.body as { errors?: boolean; items?: Record<string, { status: number; error?: unknown }>[] };
    if (body.errors) {
      const failed = (body.items ?? []).map((i) => Object.values(i)[0]!).filter((r) => r.status >= 300 && r.status !== 404);
      if (failed.length) throw new Error(`OpenSearch bulk: ${failed.length} operations failed, first: ${JSON.stringify(failed[0]!.error)}`);
    }
  }

  async upsert(docs: readonly SearchDocument[]): Promise<void> {
    for (let i = 0; i < docs.length; i += BULK_BATCH) {
      await this.bulk(docs.slice(i, i + BULK_BATCH).flatMap((d) => [{ index: { _index: this.index, _id: d.id } }, toSource(d)]));
    }
  }

  async setValidTo(id: string, validTo: string): Promise<void> {
    await this.bulk([{ update: { _index: this.index, _id: id } }, { doc: { validTo, toDate: endDate(validTo) } }]);
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += BULK_BATCH)
      await this.bulk(ids.slice(i, i + BULK_BATCH).map((id) => ({ delete: { _index: this.index, _id: id } })));
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    if (query.limit < 1 || query.jurisdictions?.length === 0 || !query.q.trim()) return [];
    const res = await this.client.search({ index: this.index, body: searchRequest(query) as never }).catch(unavailable);
    return parseHits(res.body as never);
  }

  async refresh(): Promise<void> {
    await this.client.indices.refresh({ index: this.index }).catch(unavailable);
  }

  async count(): Promise<number> {
    const res = await this.client.count({ index: this.index }).catch(unavailable);
    return (res.body as { count: number }).count;
  }

  async ping(): Promise<void> {
    await this.client.cluster.health({ index: this.index, timeout: '2s' }).catch(unavailable);
  }
}
