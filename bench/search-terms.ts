/**
 * What one search costs as its query grows (issue 15: a ~700 KB `q` held PGlite for twelve minutes), on the data
 * dir's search index of a stopped server (SQLite FTS5 since issue 17, else PostgreSQL on an in-process PGlite), with
 * no budget that stops it: every query runs to its end, so queries the API refuses are measured too. Part of
 * `npm run bench` (the scale store); alone on a data dir kept by `npm run bench -- --keep`:
 * `node --import tsx bench/search-terms.ts DATA_DIR`.
 *
 * The queries are the costly shapes, built from the words of the synthetic title (bench/synthetic-uslm.ts: the
 * sample's sentences, recombined) by how many of its sentences hold them: the most frequent word repeated, many
 * frequent words, eight long phrases, eight phrases repeating the most frequent word, many rare words.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SearchIndex } from '#law/ports.ts';
import { queryTooLong, queryWordCount } from '#law/search.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { PostgresSearchIndex } from '#stores/postgres/search-index.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { type TextPool, textPool } from './synthetic-uslm.ts';

export const TERM_COUNTS = [1, 8, 16, 32, 64, 128];
/** The date the searches ask for (synthetic edition 2 in force). */
export const TERMS_AS_OF = '2024-06-01';
const RUNS = 3;
/** A cell whose first run takes longer than this is run once. */
const ONE_RUN_PAST_MS = 10_000;

export interface SearchTermCell {
  /** Words as the API's limit counts them. */
  words: number;
  q: string;
  /** Whether the API accepts this `q` (else 400 query_too_long). */
  accepted: boolean;
  medianMs: number;
  timesMs: number[];
  hits: number;
}

export interface SearchTermCosts {
  documents: number;
  asOf: string;
  termCounts: number[];
  shapes: { name: string; cells: SearchTermCell[] }[];
}

// Words of 3 letters or fewer aside, and these: they are stop words or nearly so.
const STOP = new Set(
  'the and shall any such that this with which from not are may under other than its all has have been each who was were their there these those into only after before between against for'.split(
    ' ',
  ),
);

/** The query shapes, each a function of k (the number of words). */
export function queryShapes(pool: TextPool): Record<string, (k: number) => string> {
  const frequency = new Map<string, number>();
  for (const s of pool.sentences) {
    for (const w of new Set(s.toLowerCase().match(/[a-z]{4,}/g) ?? [])) if (!STOP.has(w)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  }
  const byFrequency = [...frequency.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  const rare = [...byFrequency].reverse();
  const top = byFrequency[0]!;
  // At most 8 phrases count as phrases (the adapter's MAX_PHRASES): k words as min(8, k) phrases of k / that many.
  const phrases = (k: number, words: (p: number, n: number) => string[]) => {
    const count = Math.min(8, k);
    return Array.from({ length: count }, (_, p) => `"${words(p, k / count).join(' ')}"`).join(' ');
  };
  return {
    [`"${top}" repeated k times`]: (k) => Array(k).fill(top).join(' '),
    'the k most frequent words': (k) => byFrequency.slice(0, k).join(' '),
    '8 phrases of k/8 frequent words': (k) => phrases(k, (p, n) => byFrequency.slice(p, p + n)),
    [`8 phrases of "${top}" repeated k/8 times`]: (k) => phrases(k, (_, n) => Array(n).fill(top)),
    'k rare words': (k) => rare.slice(0, k).join(' '),
  };
}

/** Each shape at each k, searched RUNS times one at a time (the median kept), after one search to warm the data dir. */
export async function searchTermCosts(
  dataDir: string,
  pool: TextPool,
  log: (line: string) => void = () => undefined,
): Promise<SearchTermCosts> {
  const { index, close } = await openDataDirSearch(dataDir);
  try {
    const documents = await index.count();
    const search = async (q: string) => {
      const began = performance.now();
      const hits = await index.search({ q, jurisdictions: null, corpus: null, asOf: TERMS_AS_OF, limit: 10 });
      return { ms: performance.now() - began, hits: hits.length };
    };
    const shapes = queryShapes(pool);
    await search(shapes['the k most frequent words']!(1));
    const out: SearchTermCosts['shapes'] = [];
    for (const [name, make] of Object.entries(shapes)) {
      const cells: SearchTermCell[] = [];
      for (const k of TERM_COUNTS) {
        const q = make(k);
        const first = await search(q);
        const timesMs = [first.ms];
        while (timesMs.length < RUNS && first.ms <= ONE_RUN_PAST_MS) timesMs.push((await search(q)).ms);
        const sorted = [...timesMs].sort((a, b) => a - b);
        cells.push({
          words: queryWordCount(q),
          q,
          accepted: queryTooLong(q) === null,
          medianMs: sorted[Math.floor((sorted.length - 1) / 2)]!,
          timesMs,
          hits: first.hits,
        });
      }
      log(`  ${name}: ${cells.map((c) => `${c.medianMs.toFixed(0)}`).join(' / ')} ms`);
      out.push({ name, cells });
    }
    return { documents, asOf: TERMS_AS_OF, termCounts: TERM_COUNTS, shapes: out };
  } finally {
    await close();
  }
}

/** The data dir's search index as `asof serve` uses it: SQLite when the data dir has its file, else PGlite's (no budget). */
async function openDataDirSearch(dataDir: string): Promise<{ index: SearchIndex; close: () => Promise<void> }> {
  const file = join(dataDir, 'search', 'search.sqlite');
  if (existsSync(file)) {
    const index = await SqliteSearchIndex.open(file, { timeouts: { request: 10 * 60_000 } });
    return { index, close: () => index.close() };
  }
  const db = await openPglite(join(dataDir, 'postgres'));
  return { index: new PostgresSearchIndex(pgliteClient(db)), close: () => closePglite(db) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: node --import tsx bench/search-terms.ts DATA_DIR (a data dir no server is running on)');
  const { searchTermsSection } = await import('./report.ts');
  const costs = await searchTermCosts(dataDir, textPool(await readSampleCorpus()), console.log);
  console.log(searchTermsSection(costs).join('\n'));
}
