import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { ftsQuery } from '#stores/sqlite/fts-query.ts';
import { SqliteSearchIndex, type SqliteSearchIndexOptions } from '#stores/sqlite/search-index.ts';
import { describeSearchIndexContract, searchDoc } from './search-index.contract.ts';

const dirs: string[] = [];
const tempFile = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'asof-sqlite-search-'));
  dirs.push(dir);
  return join(dir, 'search.sqlite');
};
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const sqliteFactory = (options: SqliteSearchIndexOptions) => ({
  open: async () => {
    const index = await SqliteSearchIndex.open(await tempFile(), options);
    return {
      index,
      clear: async () => {
        await index.workers.exec('DELETE FROM search_docs');
      },
      dispose: () => index.close(),
    };
  },
  openClosed: async () => {
    const index = await SqliteSearchIndex.open(await tempFile());
    await index.close();
    return index;
  },
});

describeSearchIndexContract('SQLite FTS5 in worker threads', sqliteFactory({}));
// Impact lists (and scored postings) on every word held by 2 documents, 4 documents long: the walks, their early stops,
// the postings where a walk cannot prove its answer or the query has several words, and the exact statement once a
// write made them stale all happen on the contract's small documents.
describeSearchIndexContract(
  'SQLite FTS5, impact lists on every frequent word',
  sqliteFactory({ impactLists: { minDocs: 2, prefix: 4, postingsBytes: 2 ** 20 } }),
);
describeSearchIndexContract('SQLite FTS5, no impact lists', sqliteFactory({ impactLists: false }));

const query = (q: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  q,
  jurisdictions: null,
  corpus: null,
  asOf: '2024-06-01',
  limit: 10,
  ...over,
});

describe('ftsQuery: keywords as FTS5 match expressions', () => {
  it('quotes every word, drops stop words and repeats, keeps phrases in order', () => {
    expect(ftsQuery('Notice of the APPEAL notice')).toEqual({
      all: '"notice" "appeal"',
      catchline: '{catchline} : ("notice" "appeal")',
      words: ['notice', 'appeal'],
      phrases: ['notice', 'appeal'],
    });
    expect(ftsQuery('"the notice of appeal" brief')).toMatchObject({
      all: '"brief" "notice of appeal"',
      words: [],
      phrases: ['brief', 'notice of appeal'],
    });
    expect(ftsQuery('"the notice" brief')).toMatchObject({ all: '"brief" "notice"', words: ['brief', 'notice'] });
  });

  it('reads no operator: OR, NOT, NEAR, *, :, ^ and quotes inside words are words or separators', () => {
    expect(ftsQuery('tenant OR lease NOT NEAR x* col:y ^z')?.all).toBe('"tenant" "lease" "near" "x" "col" "y" "z"');
  });

  it('gives null when nothing searchable is left', () => {
    for (const q of ['', 'the of and', '"the" "of"', '&|!():*']) expect(ftsQuery(q), q).toBeNull();
  });
});

describe('SqliteSearchIndex specifics', () => {
  it('answers a search while another search past its budget is given up, 503 timeout, and keeps answering after', async () => {
    const index = await SqliteSearchIndex.open(await tempFile(), { readers: 2, timeouts: { request: 300 } });
    try {
      await index.upsert([searchDoc({ key: 'a', body: 'Curfew hours apply.' })]);
      // A statement that runs for seconds on a reader, with the request budget: SQLite cannot be interrupted, so its
      // thread is given up at the deadline and a new one takes its place.
      const long = index.workers
        .all(
          'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 300000000)',
          [],
          'request',
        )
        .then(
          () => null,
          (err: unknown) => err,
        );

      const started = performance.now();
      const hits = await index.search(query('curfew'));
      const searchMs = performance.now() - started;
      const err = await long;

      expect(hits.map((h) => h.citation.key)).toEqual(['a']);
      expect(searchMs).toBeLessThan(250);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as StoreUnavailableError).reason).toBe('timeout');
      expect(index.workers.restarts).toBe(1);
      expect((await index.search(query('curfew'))).map((h) => h.citation.key)).toEqual(['a']);
    } finally {
      await index.close();
    }
  });

  it('answers 503 busy at once when too many statements wait', async () => {
    const index = await SqliteSearchIndex.open(await tempFile(), { readers: 1, maxWaiting: 2, timeouts: { request: 2_000 } });
    try {
      const slow = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 20000000)';
      const held = [1, 2, 3].map(() => index.workers.all(slow, [], 'request').catch((err: unknown) => err));

      const refused = await index.search(query('curfew')).catch((err: unknown) => err);

      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect((refused as StoreUnavailableError).reason).toBe('busy');
      await Promise.all(held);
    } finally {
      await index.close();
    }
  });

  it('keeps its documents across a close and a reopen, and marks a completed build', async () => {
    const file = await tempFile();
    const first = await SqliteSearchIndex.open(file);
    await first.upsert([searchDoc({ key: 'kept', body: 'Harbor pilots.' })]);
    expect(await first.isBuilt()).toBe(false);
    await first.markBuilt();
    await first.refresh();
    await first.close();

    const again = await SqliteSearchIndex.open(file);
    try {
      expect(await again.isBuilt()).toBe(true);
      expect((await again.search(query('harbor pilot'))).map((h) => h.citation.key)).toEqual(['kept']);
    } finally {
      await again.close();
    }
  });
});
