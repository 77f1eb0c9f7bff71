import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Corpus } from '#law/model.ts';
import type { SearchDocument, SearchQuery } from '#law/ports.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { loadSampleDocuments } from './search-index.contract.ts';

/**
 * The scored postings (search-index.ts, postings.mjs) against the exact statement on real law texts (data/sample: D.C.
 * Code sections through their publications, U.S. Code Title 1 at two release points): random searches of two or
 * three frequent words at random dates and filters must get the same hits, in the same order, snippets included.
 */
const samples = loadSampleDocuments();
const DATES = ['2013-07-26', '2016-01-01', '2022-01-26', '2022-01-27', '2023-03-01', '2024-03-20', '2024-06-01', '2025-06-01'];

const dirs: string[] = [];
let listed: SqliteSearchIndex;
let exact: SqliteSearchIndex;
/** The listed tokens (each its own stem, so it can be asked for as a word). */
let terms: string[];

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'asof-postings-'));
  dirs.push(dir);
  // Short lists (one-word searches need the postings too), and room for a few tokens' postings only.
  listed = await SqliteSearchIndex.open(join(dir, 'listed.sqlite'), { impactLists: { minDocs: 8, prefix: 2, postingsBytes: 20_000 } });
  exact = await SqliteSearchIndex.open(join(dir, 'exact.sqlite'), { impactLists: false });
  for (const index of [listed, exact]) {
    await index.upsert(samples);
    await index.refresh();
  }
  terms = (await listed.workers.all<{ term: string }>('SELECT term FROM search_impact_terms ORDER BY term')).map((r) => r.term);
});
afterAll(async () => {
  await Promise.all([listed?.close(), exact?.close()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const queries = () =>
  fc.record({
    q: fc.array(fc.constantFrom(...terms), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
    asOf: fc.constantFrom(...DATES),
    jurisdictions: fc.constantFrom<string[] | null>(null, ['dc'], ['us'], ['dc', 'us'], ['tn']),
    corpus: fc.constantFrom<Corpus | null>(null, 'statutes', 'rules'),
    limit: fc.integer({ min: 1, max: 50 }),
  });

const sameAsExact = async (runs: number) => {
  await fc.assert(
    fc.asyncProperty(queries(), async (query: SearchQuery) => {
      expect(await listed.search(query), JSON.stringify(query)).toEqual(await exact.search(query));
    }),
    { numRuns: runs },
  );
};

describe('SQLite scored postings on real law texts', () => {
  it('lists enough of the sample to mean something', () => {
    expect(terms.length).toBeGreaterThan(300);
  });

  it('answer random searches of frequent words as the exact statement does', { timeout: 120_000 }, async () => {
    const before = listed.answeredBy.postings;
    await sameAsExact(1_000);
    expect(listed.answeredBy.postings - before).toBeGreaterThan(200);
  });

  it('stay exact after versions are ended (validity read again), and give way to the exact statement after a rewrite', {
    timeout: 120_000,
  }, async () => {
    const ended = samples.filter((_, i) => i % 7 === 0);
    for (const index of [listed, exact]) for (const d of ended) await index.setValidTo(d.id, '2023-03-01T00:00:00-05:00');
    const before = { ...listed.answeredBy };
    await sameAsExact(150);
    expect(listed.answeredBy.postings).toBeGreaterThan(before.postings + 50);

    const rewritten: SearchDocument[] = samples.slice(0, 5).map((d) => ({ ...d, bodyText: `${d.bodyText} district council rewritten` }));
    for (const index of [listed, exact]) await index.upsert(rewritten);
    const stale = { ...listed.answeredBy };
    await sameAsExact(60);
    expect(listed.answeredBy.postings).toBe(stale.postings);

    await listed.refresh();
    await exact.refresh();
    await sameAsExact(150);
    expect(listed.answeredBy.postings).toBeGreaterThan(stale.postings + 50);
  });
});
