import { describe, expect, it } from 'vitest';
import { HIT_CLOSE, HIT_OPEN } from '#law/snippet.ts';
import { INDEX_MAPPING, parseHits, searchRequest, toSource } from '#stores/opensearch/search-index.ts';

const citation = { jurisdiction: 'dc', corpus: 'statutes' as const, key: '22-404.05', display: 'D.C. Code § 22-404.05', parts: {} };
const provenance = {
  sourceUrl: 'https://code.dccouncil.gov/us/dc/council/code/sections/22-404.05',
  retrievedAt: '2026-11-22T07:25:00Z',
  contentHash: 'sha256:x',
  sourceSystem: 'DC',
  versionLabel: 'D.C. Law 25-175',
};

describe('the OpenSearch search request', () => {
  it('ANDs the words across catchline and body, each quoted phrase as a phrase, filtered by validity on the date', () => {
    const req = searchRequest({
      q: 'strangulation "bodily injury" assault',
      jurisdictions: ['dc'],
      corpus: 'statutes',
      asOf: '2024-04-01',
      limit: 10,
    }) as any;
    expect(req.size).toBe(10);
    expect(req.query.bool.must).toEqual([
      { multi_match: { query: 'strangulation assault', fields: ['catchline^4', 'bodyText'], type: 'cross_fields', operator: 'and' } },
      { multi_match: { query: 'bodily injury', fields: ['catchline^4', 'bodyText'], type: 'phrase' } },
    ]);
    expect(req.query.bool.filter).toEqual([
      { range: { fromDate: { lte: '2024-04-01' } } },
      { range: { toDate: { gt: '2024-04-01' } } },
      { terms: { jurisdiction: ['dc'] } },
      { term: { corpus: 'statutes' } },
    ]);
    expect(req.sort).toEqual([{ _score: 'desc' }, { jurisdiction: 'asc' }, { key: 'asc' }]);
    expect(req.highlight.pre_tags).toEqual([HIT_OPEN]);
    expect(req.highlight.post_tags).toEqual([HIT_CLOSE]);
  });

  it('searches every jurisdiction and corpus when none is named', () => {
    const req = searchRequest({ q: 'words', jurisdictions: null, corpus: null, asOf: '2020-01-01', limit: 5 }) as any;
    expect(req.query.bool.filter).toHaveLength(2);
  });
});

describe('documents and hits', () => {
  it('indexes validity as local calendar dates, the open end as 9999-12-31, with no field the strict mapping lacks', () => {
    const source = toSource({
      id: 'dc#statutes#22-404.05#2024-03-18T00:00:00-04:00',
      citation,
      catchline: 'Strangulation.',
      bodyText: 'A person commits…',
      status: 'active',
      temporalBasis: 'effective-date',
      provenance,
      validFrom: '2024-03-18T00:00:00-04:00',
      validTo: '9999-12-31T23:59:59Z',
    });
    expect(source).toMatchObject({
      jurisdiction: 'dc',
      corpus: 'statutes',
      key: '22-404.05',
      fromDate: '2024-03-18',
      toDate: '9999-12-31',
    });
    expect(Object.keys(source).filter((k) => !(k in INDEX_MAPPING.mappings.properties))).toEqual([]);
  });

  it('turns highlights into escaped snippets with <b> around the matched terms', () => {
    const hits = parseHits({
      hits: {
        hits: [
          {
            _source: {
              citation,
              catchline: 'Strangulation.',
              status: 'active',
              temporalBasis: 'effective-date',
              provenance,
              bodyText: 'unused',
            },
            highlight: { bodyText: [`a <script> ${HIT_OPEN}strangulation${HIT_CLOSE} & more`] },
          },
          {
            _source: {
              citation,
              catchline: 'Only the catchline',
              status: 'active',
              temporalBasis: 'effective-date',
              provenance,
              bodyText: 'Body <i>start</i>',
            },
          },
        ],
      },
    });
    expect(hits[0]).toMatchObject({
      snippet: 'a &lt;script&gt; <b>strangulation</b> &amp; more',
      versionLabel: 'D.C. Law 25-175',
      citation,
    });
    expect(hits[1]!.snippet).toBe('Body &lt;i&gt;start&lt;/i&gt;');
  });
});
