import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Corpus } from '#law/model.ts';
import type { SearchQuery } from '#law/ports.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { searchDoc } from './search-index.contract.ts';

/**
 * The impact lists (search-index.ts) against the exact statement: the same documents in two indexes, one with lists
 * on nearly every word, one without, must answer every search alike, hit for hit, snippets included.
 */
// `purposes` and `considerations` are indexed as tokens that are not their own porter stem (`purpos`, `consider`).
const VOCABULARY = ['rent', 'rents', 'court', 'notice', 'tenant', 'lorem', 'board', 'the', 'purposes', 'considerations'];
const DATES = ['2019-01-01', '2020-01-01', '2021-06-01', '2023-01-01'];

const dirs: string[] = [];
/** Short lists (most one-word answers need the postings) and long ones (most lists hold every version). */
let pruned: SqliteSearchIndex;
let long: SqliteSearchIndex;
let exact: SqliteSearchIndex;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'asof-impact-lists-'));
  dirs.push(dir);
  // No memory for postings: each search reads them again (and gives up the others it held).
  pruned = await SqliteSearchIndex.open(join(dir, 'pruned.sqlite'), { impactLists: { minDocs: 2, prefix: 4, postingsBytes: 0 } });
  long = await SqliteSearchIndex.open(join(dir, 'long.sqlite'), { impactLists: { minDocs: 2, prefix: 12, postingsBytes: 2 ** 20 } });
  exact = await SqliteSearchIndex.open(join(dir, 'exact.sqlite'), { impactLists: false });
});
afterAll(async () => {
  await Promise.all([pruned?.close(), long?.close(), exact?.close()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const words = (min: number, max: number) =>
  fc.array(fc.constantFrom(...VOCABULARY), { minLength: min, maxLength: max }).map((w) => w.join(' '));

const docSpec = fc.record({
  jurisdiction: fc.constantFrom('dc', 'us'),
  corpus: fc.constantFrom<Corpus>('statutes', 'rules'),
  catchline: words(0, 3),
  body: words(1, 12),
  from: fc.integer({ min: 0, max: DATES.length - 2 }),
  span: fc.integer({ min: 1, max: DATES.length }),
});

const querySpec = fc.record({
  q: fc.oneof(
    { arbitrary: fc.constantFrom(...VOCABULARY), weight: 3 },
    { arbitrary: words(2, 3), weight: 3 },
    fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...VOCABULARY)).map(([a, b]) => `"${a} ${b}"`),
  ),
  asOf: fc.constantFrom('2019-06-01', '2020-06-01', '2022-01-01', '2024-01-01'),
  jurisdictions: fc.constantFrom<string[] | null>(null, ['dc'], ['us'], ['dc', 'us']),
  corpus: fc.constantFrom<Corpus | null>(null, 'statutes', 'rules'),
  limit: fc.integer({ min: 1, max: 5 }),
});

describe('SQLite impact lists', () => {
  // 150 random corpora of up to 24 documents, each searched up to 8 times before and after a later write: ~20 s.
  it('answer every search as the exact statement does, on random small corpora', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(docSpec, { minLength: 1, maxLength: 24 }),
        fc.array(querySpec, { minLength: 1, maxLength: 8 }),
        fc.array(docSpec, { maxLength: 3 }),
        async (specs, queries, later) => {
          const docs = specs.map((s, i) =>
            searchDoc({
              key: `k${i % 5}`,
              jurisdiction: s.jurisdiction,
              corpus: s.corpus,
              catchline: s.catchline,
              body: s.body,
              validFrom: `${DATES[s.from]}T00:00:00-05:00`,
              ...(s.from + s.span < DATES.length && { validTo: `${DATES[s.from + s.span]}T00:00:00-05:00` }),
            }),
          );
          for (const index of [pruned, long, exact]) {
            await index.workers.exec('DELETE FROM search_docs');
            await index.upsert(docs);
            await index.refresh();
          }
          const compare = async () => {
            for (const q of queries) {
              const query: SearchQuery = { ...q };
              const expected = await exact.search(query);
              expect(await pruned.search(query), JSON.stringify(query)).toEqual(expected);
              expect(await long.search(query), JSON.stringify(query)).toEqual(expected);
            }
          };
          await compare();
          // Documents written after the lists were built: the lists are stale until the next refresh.
          const more = later.map((s, i) =>
            searchDoc({ key: `later${i}`, jurisdiction: s.jurisdiction, catchline: s.catchline, body: s.body }),
          );
          await Promise.all([pruned.upsert(more), long.upsert(more), exact.upsert(more)]);
          await compare();
        },
      ),
      { numRuns: 150 },
    );
    // The property means something only if the lists answered a good share of the searches.
    expect(pruned.answeredBy.oneWord).toBeGreaterThan(pruned.answeredBy.exact / 10);
    expect(pruned.answeredBy.postings).toBeGreaterThan(pruned.answeredBy.exact / 10);
    expect(long.answeredBy.postings).toBeGreaterThan(long.answeredBy.exact / 10);
  });

  it('answers a one-word search from the list after a refresh, and by the exact statement once a write made it stale', async () => {
    await pruned.workers.exec('DELETE FROM search_docs');
    await pruned.upsert(['a', 'b', 'c', 'd'].map((key, i) => searchDoc({ key, body: `rent ${'lorem '.repeat(i)}` })));
    await pruned.refresh();
    const { oneWord, exact: exactBefore } = pruned.answeredBy;

    const listed = await pruned.search({ q: 'rent', asOf: '2024-01-01', jurisdictions: null, corpus: null, limit: 2 });
    expect(pruned.answeredBy.oneWord).toBe(oneWord + 1);
    await pruned.upsert([searchDoc({ key: 'e', catchline: 'Rent.', body: 'lorem' })]);
    const after = await pruned.search({ q: 'rent', asOf: '2024-01-01', jurisdictions: null, corpus: null, limit: 2 });

    expect(listed.map((h) => h.citation.key)).toEqual(['a', 'b']);
    expect(after.map((h) => h.citation.key)).toEqual(['e', 'a']);
    expect(pruned.answeredBy.exact).toBe(exactBefore + 1);
  });

  it('lists a token that is not its own stem (asked for by a word of its text) and answers as the exact statement', async () => {
    // porter(`purposes`) is `purpos`, and porter(`purpos`) is `purpo`: the token cannot be asked for as itself.
    const docs = [1, 2, 3, 4, 5].map((n) =>
      searchDoc({
        key: `p${n}`,
        catchline: n === 3 ? 'Purposes' : 'Lorem',
        body: `${'purposes '.repeat(n)}for the Purpose ${'lorem '.repeat(6 - n)}`,
      }),
    );
    for (const index of [pruned, exact]) {
      await index.workers.exec('DELETE FROM search_docs');
      await index.upsert([...docs, searchDoc({ key: 'r', body: 'rent only' })]);
      await index.refresh();
    }
    const listed = await pruned.workers.writerAll<{ term: string }>('SELECT term FROM search_impact_terms ORDER BY term');
    expect(listed.map((r) => r.term)).toContain('purpos');
    for (const q of ['purpose', 'purposes', 'PURPOSE lorem']) {
      const query: SearchQuery = { q, asOf: '2024-01-01', jurisdictions: null, corpus: null, limit: 3 };
      const before = { ...pruned.answeredBy };
      const hits = await pruned.search(query);
      expect(pruned.answeredBy.exact, q).toBe(before.exact);
      expect(hits, q).toEqual(await exact.search(query));
      expect(hits.length, q).toBe(3);
    }
  });

  it('answers several words from their scored postings', async () => {
    const docs = [1, 2, 3, 4, 5].map((n) => searchDoc({ key: `k${n}`, body: `${'rent '.repeat(n)}${'board '.repeat(6 - n)}lorem` }));
    for (const index of [long, exact]) {
      await index.workers.exec('DELETE FROM search_docs');
      await index.upsert([...docs, searchDoc({ key: 'r', body: 'rent only' })]);
      await index.refresh();
    }
    const before = long.answeredBy.postings;
    const query: SearchQuery = { q: 'board rent', asOf: '2024-01-01', jurisdictions: null, corpus: null, limit: 3 };

    const hits = await long.search(query);

    expect(long.answeredBy.postings).toBe(before + 1);
    expect(hits).toEqual(await exact.search(query));
    expect(hits.map((h) => h.citation.key)).toHaveLength(3);
  });
});
