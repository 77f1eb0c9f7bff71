import { mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { ftsQuery } from '#stores/sqlite/fts-query.ts';
import { isDamaged, RepairingSearchIndex } from '#stores/sqlite/repairing-index.ts';
import { SqliteSearchIndex, type SqliteSearchIndexOptions } from '#stores/sqlite/search-index.ts';
import { isDamage } from '#stores/sqlite/sqlite-workers.ts';
import { describeSearchIndexContract, loadSampleDocuments, searchDoc } from './search-index.contract.ts';

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

describe('SqliteSearchIndex: what a query means, on long bodies and on the sample', () => {
  const opened: SqliteSearchIndex[] = [];
  const fresh = async () => {
    const index = await SqliteSearchIndex.open(await tempFile());
    opened.push(index);
    return index;
  };
  afterAll(async () => {
    await Promise.all(opened.map((index) => index.close()));
  });
  const keys = (hits: { citation: { key: string } }[]) => hits.map((h) => h.citation.key);

  it('matches quoted phrases in order; `or` and `-` do not weaken AND', async () => {
    const index = await fresh();
    await index.upsert([
      searchDoc({ key: 'phrase', body: 'The security deposit shall be returned to the tenant.' }),
      searchDoc({ key: 'apart', body: 'A deposit of security is required of the tenant.' }),
    ]);

    expect(keys(await index.search(query('"security deposit"')))).toEqual(['phrase']);
    expect(keys(await index.search(query('"deposit security"')))).toEqual([]);
    expect(keys(await index.search(query('tenant or landlord')))).toEqual([]);
    expect(keys(await index.search(query('-security tenant'))).sort()).toEqual(['apart', 'phrase']);
  });

  it('counts a repeated word once: the same hits, ranks and snippets as the word said once', async () => {
    const index = await fresh();
    await index.upsert(loadSampleDocuments());
    await index.refresh();
    const hits = async (q: string) => (await index.search(query(q, { asOf: '2023-06-01' }))).map((h) => [h.citation.key, h.snippet]);

    const once = await hits('council');

    expect(once.length).toBeGreaterThan(1);
    expect(await hits('council Council councils council')).toEqual(once);
    expect(await hits(Array(32).fill('council').join(' '))).toEqual(once);
  });

  it('stems as Porter does: strangled and strangulation are different words, strangulations the same', async () => {
    const index = await fresh();
    await index.upsert([searchDoc({ key: 'noun', body: 'Strangulation is a felony.' })]);

    expect(await index.search(query('strangled'))).toEqual([]);
    expect(keys(await index.search(query('strangulations')))).toEqual(['noun']);
  });

  it('stores 150 KB bodies (an upsert again is no change) and highlights a match near their end', async () => {
    const index = await fresh();
    const real = loadSampleDocuments().find((d) => d.citation.key === '28-3814')!.bodyText;
    const body = `${real} ${real} ${real} ${real}`.slice(0, 150_000);
    const docs = Array.from({ length: 12 }, (_, i) => searchDoc({ key: `big-${String(i).padStart(2, '0')}`, body: `${body} zygote${i}` }));

    await index.upsert(docs);
    await index.upsert(docs);

    expect(await index.count()).toBe(12);
    const [hit] = await index.search(query('zygote7'));
    expect(hit?.citation.key).toBe('big-07');
    expect(hit?.snippet).toContain('<b>zygote7</b>');
  });

  it('finds the snippet of a long body after words that only look like the term', async () => {
    const index = await fresh();
    const filler = 'The Council shall publish the annual report of the Office. '.repeat(60);
    await index.upsert([
      // "citizens" begins like "city" but is another word: the snippet is around the word that matched.
      searchDoc({ key: 'deep', body: `All citizens may apply. ${filler} The city shall maintain the register.` }),
      // Matched on the catchline only: the snippet is the body's first words.
      searchDoc({ key: 'title', catchline: 'City register.', body: filler }),
    ]);

    const hits = await index.search(query('city'));

    expect(keys(hits)).toEqual(['title', 'deep']);
    expect(hits[1]!.snippet).toContain('The <b>city</b> shall maintain the register');
    expect(hits[0]!.snippet).toMatch(/^The Council shall publish/);
    expect(hits[0]!.snippet).not.toContain('<b>');
  });

  it('answers on the sample corpus fast enough', async () => {
    const index = await fresh();
    await index.upsert(loadSampleDocuments());
    await index.refresh();
    const queries = [
      'district',
      'council',
      'strangulation',
      'debt collector',
      'united states code',
      'mayor',
      'vessel',
      'public record exemption',
      'budget',
      'person',
    ];
    for (const q of queries) await index.search(query(q, { asOf: '2023-06-01' }));

    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const q of queries) {
        const start = performance.now();
        await index.search(query(q, { asOf: '2023-06-01', limit: 10 }));
        times.push(performance.now() - start);
      }
    }
    times.sort((a, b) => a - b);

    expect(times[Math.floor(times.length / 2)]!).toBeLessThan(50);
  });
});

/** What a search (or any call) failed with, or null when it answered. */
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (err: unknown) => err,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HARBOR = [
  searchDoc({ key: 'harbor', body: 'Harbor pilots shall be licensed.' }),
  searchDoc({ key: 'levee', body: 'Levee districts.' }),
];

/** An index on a file of its own holding HARBOR, folded back into the main file (nothing left in the WAL). */
async function filledIndex(): Promise<{ file: string; index: SqliteSearchIndex }> {
  const file = await tempFile();
  const index = await SqliteSearchIndex.open(file);
  await index.upsert(HARBOR);
  await index.refresh();
  return { file, index };
}

describe('SQLite failures that mean a damaged or missing file', () => {
  it('are told apart from a wrong statement by their code (extended codes included) or a missing layout table', () => {
    for (const code of [
      'SQLITE_CORRUPT',
      'SQLITE_CORRUPT_VTAB',
      'SQLITE_NOTADB',
      'SQLITE_CANTOPEN',
      'SQLITE_IOERR_SHORT_READ',
      'SQLITE_IOERR',
    ])
      expect(isDamage({ code, message: 'x' }), code).toBe(true);
    expect(isDamage({ code: 'SQLITE_READONLY_DBMOVED', message: 'x' })).toBe(true);
    expect(isDamage({ code: 'ASOF_FILE_GONE', message: 'the database file was removed' })).toBe(true);
    expect(isDamage({ code: 'SQLITE_ERROR', message: 'no such table: search_docs' })).toBe(true);
    expect(isDamage({ code: 'SQLITE_ERROR', message: 'no such table: main.search_meta' })).toBe(true);

    for (const code of ['SQLITE_BUSY', 'SQLITE_FULL', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_MISMATCH', 'SQLITE_INTERRUPT'])
      expect(isDamage({ code, message: 'x' }), code).toBe(false);
    expect(isDamage({ code: 'SQLITE_ERROR', message: 'near "x": syntax error' })).toBe(false);
    expect(isDamage({ code: 'SQLITE_ERROR', message: 'no such table: elsewhere' })).toBe(false);
    expect(isDamage({ message: 'no such table: search_docs' })).toBe(false);
  });

  it('a file truncated to nothing under the open index: search and ping fail as a damaged store, not a crash', async () => {
    const { file, index } = await filledIndex();
    try {
      expect((await index.search(query('harbor'))).map((h) => h.citation.key)).toEqual(['harbor']);

      await truncate(file, 0);
      const searched = await failureOf(index.search(query('levee')));
      const pinged = await failureOf(index.ping());

      for (const err of [searched, pinged]) {
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect(err).toMatchObject({ store: 'search', reason: 'damaged' });
      }
      expect((searched as Error).message).toMatch(/damaged or missing \(ASOF_FILE_GONE: the database file was truncated\)/);
    } finally {
      await index.close();
    }
  });

  it('a file removed under the open index (its connections would go on reading the old inode) fails as damaged', async () => {
    const { file, index } = await filledIndex();
    try {
      await rm(file);

      const searched = await failureOf(index.search(query('harbor')));
      const written = await failureOf(index.upsert([searchDoc({ key: 'lost', body: 'Written to a removed file.' })]));

      expect(searched).toMatchObject({ name: 'StoreUnavailableError', reason: 'damaged' });
      expect((searched as Error).message).toMatch(/was removed/);
      expect(written).toMatchObject({ name: 'StoreUnavailableError', reason: 'damaged' });
    } finally {
      await index.close();
    }
  });

  it('a file whose pages are overwritten with garbage fails as damaged (SQLITE_CORRUPT or SQLITE_NOTADB)', async () => {
    const { file, index } = await filledIndex();
    try {
      const handle = await open(file, 'r+');
      await handle.write(Buffer.alloc(64 * 1024, 0x5a), 0, 64 * 1024, 0);
      await handle.close();

      const searched = await failureOf(index.search(query('pilots')));

      expect(searched).toMatchObject({ name: 'StoreUnavailableError', reason: 'damaged' });
      expect((searched as Error).message).toMatch(/SQLITE_(CORRUPT|NOTADB)/);
    } finally {
      await index.close();
    }
  });

  it('a wrong statement is not damage: it stays a plain error', async () => {
    const { index } = await filledIndex();
    try {
      const err = await failureOf(index.workers.all('SELECT no_such_column FROM search_docs'));
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await index.close();
    }
  });
});

describe('RepairingSearchIndex: a damaged index rebuilt in place', () => {
  /** A repairing index on a file of its own, filled with HARBOR, whose rebuild writes HARBOR again and counts itself. */
  async function repairing(repair: { delayMs?: number; spacingMs?: number } = {}, failFirst = 0) {
    const file = await tempFile();
    const lines: string[] = [];
    const index = await RepairingSearchIndex.open(file, { repair, log: (line) => lines.push(line) });
    await index.upsert(HARBOR);
    await index.refresh();
    const rebuilds: number[] = [];
    let failures = failFirst;
    index.rebuildWith(async (fresh) => {
      if (failures-- > 0) throw new Error('the version store is unreachable');
      await fresh.upsert(HARBOR);
      await fresh.refresh();
    });
    const events: string[] = [];
    index.onRepair((event) => {
      events.push(event.kind);
      if (event.kind === 'rebuilding') rebuilds.push(performance.now());
    });
    return { file, index, rebuilds, events, lines };
  }

  const answers = async (index: RepairingSearchIndex, q: string, withinMs: number) => {
    const deadline = performance.now() + withinMs;
    for (;;) {
      const hits = await index.search(query(q)).catch((err: unknown) => (isDamaged(err) ? null : Promise.reject(err)));
      if (hits) return hits;
      if (performance.now() > deadline) throw new Error(`no answer to ${q} within ${withinMs} ms`);
      await sleep(50);
    }
  };

  it('many searches that find the damage start one rebuild; searches meanwhile are refused at once; then it answers', async () => {
    const { file, index, rebuilds, events, lines } = await repairing({ delayMs: 300 });
    try {
      await truncate(file, 0);

      const first = await Promise.all(Array.from({ length: 20 }, () => failureOf(index.search(query('harbor')))));
      const started = performance.now();
      const during = await failureOf(index.search(query('levee')));
      const refusedInMs = performance.now() - started;

      expect(first.every((err) => isDamaged(err))).toBe(true);
      expect(isDamaged(during)).toBe(true);
      expect((during as Error).message).toMatch(/being rebuilt/);
      expect(refusedInMs).toBeLessThan(50);
      expect(index.repairing).toBe(true);
      const hits = await answers(index, 'harbor', 10_000);
      expect(hits.map((h) => h.citation.key)).toEqual(['harbor']);
      expect(rebuilds).toHaveLength(1);
      expect(index.repairs).toBe(1);
      expect(events).toEqual(['damaged', 'rebuilding', 'repaired']);
      expect(lines.join('\n')).toMatch(/damaged or missing .*rebuilding it from the version store[\s\S]*rebuilt in \d+ ms/);
      expect(await index.count()).toBe(HARBOR.length);
    } finally {
      await index.close();
    }
  });

  it('a write during the repair waits for it and lands in the rebuilt index', async () => {
    const { file, index } = await repairing({ delayMs: 300 });
    try {
      await rm(file);
      expect(isDamaged(await failureOf(index.search(query('harbor'))))).toBe(true);

      await index.upsert([searchDoc({ key: 'ferry', body: 'Ferry landings.' })]);

      expect(index.repairing).toBe(false);
      expect((await index.search(query('ferry'))).map((h) => h.citation.key)).toEqual(['ferry']);
      expect(await index.count()).toBe(HARBOR.length + 1);
    } finally {
      await index.close();
    }
  });

  it('its whole folder removed: the folder is made again and the index rebuilt in it', async () => {
    const { file, index } = await repairing();
    try {
      await rm(dirname(file), { recursive: true });

      expect(isDamaged(await failureOf(index.search(query('harbor'))))).toBe(true);

      expect((await answers(index, 'harbor', 10_000)).map((h) => h.citation.key)).toEqual(['harbor']);
      expect(index.repairs).toBe(1);
    } finally {
      await index.close();
    }
  });

  it('damage again soon after a rebuild waits for the spacing; a failed rebuild is tried again later', async () => {
    const SPACING_MS = 1_500;
    const { file, index, rebuilds } = await repairing({ spacingMs: SPACING_MS }, 1);
    try {
      await truncate(file, 0);
      await failureOf(index.search(query('harbor')));
      await answers(index, 'harbor', 15_000);
      expect(rebuilds).toHaveLength(2);
      expect(rebuilds[1]! - rebuilds[0]!).toBeGreaterThanOrEqual(SPACING_MS * 2 - 50);

      await rm(file);
      await failureOf(index.search(query('harbor')));
      await answers(index, 'harbor', 15_000);

      expect(rebuilds).toHaveLength(3);
      expect(rebuilds[2]! - rebuilds[1]!).toBeGreaterThanOrEqual(SPACING_MS - 50);
    } finally {
      await index.close();
    }
  });

  it('a file found damaged as it opens is replaced by a new, empty one, not built, instead of failing the start', async () => {
    const file = await tempFile();
    await writeFile(file, Buffer.alloc(64 * 1024, 0x5a));
    const lines: string[] = [];

    const index = await RepairingSearchIndex.open(file, { log: (line) => lines.push(line) });
    try {
      expect(await index.isBuilt()).toBe(false);
      expect(await index.count()).toBe(0);
      expect(lines.join('\n')).toMatch(/search index is damaged or missing \(.*SQLITE_NOTADB.*\); making a new one/);
      await index.upsert(HARBOR);
      expect((await index.search(query('harbor'))).map((h) => h.citation.key)).toEqual(['harbor']);
    } finally {
      await index.close();
    }
    // The plain index, as before: such a file fails its open, as a damaged store.
    const garbage = await tempFile();
    await writeFile(garbage, Buffer.alloc(8192, 0x5a));
    await expect(SqliteSearchIndex.open(garbage)).rejects.toMatchObject({ reason: 'damaged' });
  });

  it('without a way to rebuild (or once closing) damage is reported and nothing is rebuilt', async () => {
    const file = await tempFile();
    const index = await RepairingSearchIndex.open(file);
    await index.upsert(HARBOR);
    await index.refresh();
    await truncate(file, 0);

    expect(isDamaged(await failureOf(index.search(query('harbor'))))).toBe(true);
    expect(index.repairing).toBe(false);
    expect(index.repairs).toBe(0);
    const started = performance.now();
    await index.close();
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('closes at once while a rebuild waits', async () => {
    const { file, index, rebuilds } = await repairing({ delayMs: 60_000 });
    await truncate(file, 0);
    await failureOf(index.search(query('harbor')));
    expect(index.repairing).toBe(true);

    const started = performance.now();
    await index.close();

    expect(performance.now() - started).toBeLessThan(3_000);
    expect(rebuilds).toHaveLength(0);
  });
});
