/**
 * What one search costs as its query grows (issue 15: a ~700 KB `q` held PGlite for twelve minutes), on the
 * PostgreSQL search adapter over an in-process PGlite: `node --import tsx bench/search-terms.ts [VERSIONS] [DATA_DIR]`
 * (default 300,000 versions, in memory; a data dir is filled once and reused). Not part of `npm run bench`: it builds
 * its own index (about two minutes at 300,000 versions) and measures one search at a time.
 *
 * The index is the scale benchmark's synthetic title (bench/synthetic-uslm.ts: real sentences of the sample,
 * recombined; three versions per section) written straight into the search table. The queries are the costly
 * shapes: the most frequent word repeated, many frequent words, eight long phrases, many rare words.
 */
import { OPEN_END } from '#law/model.ts';
import { type SearchDocument, searchDocumentId } from '#law/ports.ts';
import { migrate } from '#stores/postgres/migrations.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { PostgresSearchIndex } from '#stores/postgres/search-index.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';
import { machine } from './machine.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { EDITION_DATES, sectionText, type TextPool, textPool } from './synthetic-uslm.ts';

const versions = Number(process.argv[2] ?? 300_000);
const TERM_COUNTS = [1, 8, 16, 32, 64, 128];
const RUNS = 3;

function* documents(pool: TextPool, fromSection: number, sections: number): Generator<SearchDocument> {
  for (let section = fromSection; section <= sections; section++) {
    for (const [i, date] of EDITION_DATES.entries()) {
      const text = sectionText(pool, section, i + 1);
      const citation = {
        jurisdiction: 'us',
        corpus: 'statutes' as const,
        key: `99-${section}`,
        display: `99 U.S.C. § ${section}`,
        parts: {},
      };
      const validFrom = `${date}T00:00:00-05:00`;
      const next = EDITION_DATES[i + 1];
      yield {
        id: searchDocumentId(citation, validFrom),
        citation,
        catchline: text.heading,
        bodyText: text.subsections.map((s) => s.map((n) => pool.sentences[n]).join(' ')).join('\n'),
        status: 'active',
        temporalBasis: 'compiled-edition',
        provenance: {
          sourceUrl: 'https://example.test',
          retrievedAt: '2026-01-01T00:00:00Z',
          contentHash: 'sha256:0',
          sourceSystem: 'bench',
          versionLabel: `Bench@${i + 1}`,
        },
        validFrom,
        validTo: next ? `${next}T00:00:00-05:00` : OPEN_END,
      };
    }
  }
}

const pool = textPool(await readSampleCorpus());
const db = await openPglite(process.argv[3]);
try {
  const sql = pgliteClient(db);
  await migrate(sql);
  const index = new PostgresSearchIndex(sql);
  const built = performance.now();
  let batch: SearchDocument[] = [];
  for (const doc of documents(pool, (await index.count()) / 3 + 1, Math.floor(versions / 3))) {
    batch.push(doc);
    if (batch.length >= 3_000) {
      await index.upsert(batch);
      batch = [];
    }
  }
  if (batch.length) await index.upsert(batch);
  await index.refresh();
  console.log(`index: ${await index.count()} versions (${((performance.now() - built) / 1000).toFixed(0)} s to fill)`);

  // Words by the number of the pool's sentences holding them; words of 3 letters or fewer and stop words aside.
  const STOP = new Set([
    'the',
    'and',
    'shall',
    'any',
    'such',
    'that',
    'this',
    'with',
    'which',
    'from',
    'not',
    'are',
    'may',
    'under',
    'other',
    'than',
    'its',
    'all',
    'has',
    'have',
    'been',
    'each',
    'who',
    'was',
    'were',
    'their',
    'there',
    'these',
    'those',
    'into',
    'only',
    'after',
    'before',
    'between',
    'against',
    'for',
  ]);
  const frequency = new Map<string, number>();
  for (const s of pool.sentences) {
    for (const w of new Set(s.toLowerCase().match(/[a-z]{4,}/g) ?? [])) if (!STOP.has(w)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  }
  const byFrequency = [...frequency.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  const rare = [...byFrequency].reverse();
  const frequent = byFrequency[0]!;
  const shapes: Record<string, (k: number) => string> = {
    [`"${frequent}" repeated k times`]: (k) => Array(k).fill(frequent).join(' '),
    'the k most frequent words': (k) => byFrequency.slice(0, k).join(' '),
    '8 phrases of k/8 frequent words': (k) =>
      Array.from({ length: 8 }, (_, p) => `"${byFrequency.slice(p, p + Math.max(1, k / 8)).join(' ')}"`).join(' '),
    'k rare words': (k) => rare.slice(0, k).join(' '),
  };
  const m = machine();
  console.log(`${new Date().toISOString()}, ${m.cpuModel}, ${m.cores} cores, Node ${m.node}, ${m.commit}`);
  console.log(`| query | k = ${TERM_COUNTS.join(' | ')} |`);
  for (const [name, make] of Object.entries(shapes)) {
    const cells: string[] = [];
    for (const k of TERM_COUNTS) {
      const q = make(k);
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const start = performance.now();
        await index.search({ q, jurisdictions: null, corpus: null, asOf: '2024-06-01', limit: 10 });
        times.push(performance.now() - start);
      }
      cells.push(times.sort((a, b) => a - b)[1]!.toFixed(0));
    }
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
} finally {
  await closePglite(db);
}
