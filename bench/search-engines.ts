/**
 * The embedded search engine candidates side by side (issue 17), on the same synthetic versions as the bench's scale
 * store (bench/synthetic-uslm.ts: 3 editions of N sections, real sentences of the sample recombined), fed directly
 * as SearchDocuments (no XML, no version store), in one process per engine so that each RSS is its own:
 *
 *   node --import tsx bench/search-engines.ts ENGINE [SECTIONS] [DIR]
 *
 * ENGINE: sqlite (FTS5 with impact lists, the default) | sqlite-exact (FTS5 ranking every match, as before the
 * lists) | minisearch. The PostgreSQL search on PGlite, measured here for issue 17, is gone (issue 30).
 *
 * Prints one `RESULT {json}` line: build time, size on disk, RSS, reopen time, and search latency (broad and narrow
 * queries, 1 and 32 at a time, through the adapter, no HTTP). `bench/search-engines.sh`-style driving is left to the
 * caller: each engine is one run.
 */
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { OPEN_END } from '#law/model.ts';
import { type SearchDocument, type SearchIndex, type SearchQuery, searchDocumentId } from '#law/ports.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { EDITION_DATES, sectionText, type TextPool, textPool } from './synthetic-uslm.ts';

const AS_OF = '2024-06-01';
const RUNS_ALONE = 40;
const CONCURRENT = 32;
const CONCURRENT_ROUNDS = 3;

/** The synthetic versions, edition by edition (each section's version i ends where version i+1 starts). */
function* syntheticDocuments(pool: TextPool, sections: number): Generator<SearchDocument> {
  for (let e = 1; e <= EDITION_DATES.length; e++) {
    const validFrom = `${EDITION_DATES[e - 1]}T00:00:00-05:00`;
    const validTo = e < EDITION_DATES.length ? `${EDITION_DATES[e]}T00:00:00-05:00` : OPEN_END;
    for (let s = 1; s <= sections; s++) {
      const { heading, subsections } = sectionText(pool, s, e);
      const citation = {
        jurisdiction: 'us',
        corpus: 'statutes' as const,
        key: `99-${s}`,
        display: `99 U.S.C. § ${s}`,
        parts: { title: '99', section: String(s) },
      };
      yield {
        id: searchDocumentId(citation, validFrom),
        citation,
        catchline: heading,
        bodyText: subsections.map((ss, i) => `(${'abcdef'[i]}) ${ss.map((n) => pool.sentences[n]).join(' ')}`).join('\n'),
        status: 'active',
        temporalBasis: 'compiled-edition',
        provenance: {
          sourceUrl: `https://example.test/usc99/${s}`,
          retrievedAt: '2026-11-24T00:00:00Z',
          contentHash: `sha256:${s}-${e}`,
          sourceSystem: 'bench-synthetic',
          versionLabel: `Bench@${e}`,
        },
        validFrom,
        validTo,
      };
    }
  }
}

const STOP = new Set(
  'the and shall any such that this with which from not are may under other than its all has have been each who was were their there these those into only after before between against for'.split(
    ' ',
  ),
);

/** Broad: the 3 words in most sentences of the pool, and the first two together; narrow: 4 words of one sentence. */
function queries(pool: TextPool): { broad: string[]; narrow: string[] } {
  const df = new Map<string, number>();
  for (const s of pool.sentences)
    for (const w of new Set(s.toLowerCase().match(/[a-z]{4,}/g) ?? [])) if (!STOP.has(w)) df.set(w, (df.get(w) ?? 0) + 1);
  const byDf = [...df.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const broad = byDf.slice(0, 3).map(([w]) => w);
  broad.push(`${broad[0]} ${broad[1]}`);
  const once = byDf.filter(([, n]) => n === 1).map(([w]) => w);
  const narrow = [0.2, 0.4, 0.6, 0.8].map((f) => once[Math.floor(f * once.length)]!);
  return { broad, narrow };
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

type Search = (q: SearchQuery) => Promise<unknown[]>;

async function latency(search: Search, qs: string[]) {
  const query = (q: string): SearchQuery => ({ q, jurisdictions: null, corpus: null, asOf: AS_OF, limit: 10 });
  for (const q of qs) await search(query(q));
  const alone: number[] = [];
  let hits = 0;
  for (let i = 0; i < RUNS_ALONE; i++) {
    const t = performance.now();
    hits += (await search(query(qs[i % qs.length]!))).length;
    alone.push(performance.now() - t);
  }
  const together: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
    await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const t = performance.now();
        // A search the engine gives up (503: too busy, past its budget) counts as failed, its time as measured.
        await search(query(qs[(r + i) % qs.length]!)).catch(() => failed++);
        together.push(performance.now() - t);
      }),
    );
  }
  const wall = performance.now() - t0;
  return {
    alone: { p50: percentile(alone, 50), p99: percentile(alone, 99) },
    concurrent: { p50: percentile(together, 50), p99: percentile(together, 99), perSec: together.length / (wall / 1000), failed },
    meanHits: hits / RUNS_ALONE,
  };
}

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

async function dirBytes(path: string): Promise<number> {
  const s = await stat(path);
  if (!s.isDirectory()) return s.size;
  let n = 0;
  for (const e of await readdir(path)) n += await dirBytes(join(path, e));
  return n;
}

async function fill(index: SearchIndex, docs: Iterable<SearchDocument>, batch: number): Promise<number> {
  let chunk: SearchDocument[] = [];
  let n = 0;
  for (const d of docs) {
    chunk.push(d);
    if (chunk.length === batch) {
      await index.upsert(chunk);
      n += chunk.length;
      chunk = [];
    }
  }
  await index.upsert(chunk);
  await index.refresh();
  return n + chunk.length;
}

async function main(): Promise<void> {
  const [engine = 'sqlite', sectionsArg = '100000', dirArg] = process.argv.slice(2);
  const sections = Number(sectionsArg);
  const dir = dirArg ?? join('/tmp', `asof-engines-${engine}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const pool = textPool(await readSampleCorpus());
  const { broad, narrow } = queries(pool);
  const rssBefore = rssMiB();
  const out: Record<string, unknown> = { engine, sections, versions: sections * EDITION_DATES.length, broad, narrow };
  let t = performance.now();

  if (engine === 'sqlite' || engine === 'sqlite-exact') {
    const file = join(dir, 'search.sqlite');
    const options = { timeouts: { request: 60_000 }, ...(engine === 'sqlite-exact' && { impactLists: false as const }) };
    const index = await SqliteSearchIndex.open(file, options);
    out.versions = await fill(index, syntheticDocuments(pool, sections), 2_000);
    out.buildMs = performance.now() - t;
    await index.close();
    out.bytes = await dirBytes(dir);
    t = performance.now();
    const reopened = await SqliteSearchIndex.open(file, options);
    out.openMs = performance.now() - t;
    const search: Search = (q) => reopened.search(q);
    console.error(`PHASE ${JSON.stringify(out)}`);
    out.broadLatency = await latency(search, broad);
    console.error(`PHASE ${JSON.stringify(out)}`);
    out.narrowLatency = await latency(search, narrow);
    out.rssMiB = rssMiB() - rssBefore;
    out.answeredBy = reopened.answeredBy;
    const [lists] = await reopened.workers.all<{ terms: number; rows: number }>(
      'SELECT (SELECT count(*) FROM search_impact_terms) AS terms, (SELECT count(*) FROM search_impacts) AS rows',
    );
    out.impactLists = lists;
    await reopened.close();
  } else if (engine === 'minisearch') {
    // In memory, serialized to disk as JSON; validity and the AND of terms as MiniSearch offers them (no snippets).
    const fields = { fields: ['catchline', 'body'], storeFields: ['from', 'to', 'jurisdiction', 'corpus'], idField: 'id' };
    const mini = new MiniSearch(fields);
    let n = 0;
    for (const d of syntheticDocuments(pool, sections)) {
      mini.add({ id: d.id, catchline: d.catchline, body: d.bodyText, from: d.validFrom.slice(0, 10), to: d.validTo.slice(0, 10) });
      n++;
    }
    out.versions = n;
    const json = JSON.stringify(mini);
    await writeFile(join(dir, 'index.json'), json);
    out.buildMs = performance.now() - t;
    out.bytes = Buffer.byteLength(json);
    out.rssMiB = rssMiB() - rssBefore;
    t = performance.now();
    const loaded = MiniSearch.loadJSON(json, fields);
    out.openMs = performance.now() - t;
    const search: Search = async (q) =>
      loaded
        .search(q.q, {
          combineWith: 'AND',
          boost: { catchline: 2.5 },
          filter: (r) => r.from <= q.asOf && q.asOf < r.to,
        })
        .slice(0, q.limit);
    console.error(`PHASE ${JSON.stringify(out)}`);
    out.broadLatency = await latency(search, broad);
    console.error(`PHASE ${JSON.stringify(out)}`);
    out.narrowLatency = await latency(search, narrow);
  } else throw new Error(`unknown engine ${engine}`);

  out.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(`RESULT ${JSON.stringify(out)}`);
  if (!process.env.KEEP) await rm(dir, { recursive: true, force: true });
}

await main();
