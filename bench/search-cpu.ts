/**
 * CPU per search on a loaded data dir's search index, in process, no HTTP (issue 17): the bench's broad pool (§ 1i)
 * run one search at a time, then, with `--check N`, N random searches of two or three listed words compared hit for
 * hit with the exact statement's answers on the same file.
 *
 *   node --import tsx bench/search-cpu.ts DIR/search/search.sqlite [ROUNDS] [--check N] [--module PATH]
 *
 * CPU is process.cpuUsage() over the runs (every thread of the process: the reader threads and the event loop), so
 * it is what a search costs wherever it runs, and less noisy than latency on a shared machine. `--module` loads
 * another build of search-index.ts (a baseline copied from another commit) to compare in the same session.
 */
import { parseArgs } from 'node:util';
import type { SearchQuery } from '#law/ports.ts';
import type { SqliteSearchIndex as Index } from '#stores/sqlite/search-index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { check: { type: 'string', default: '0' }, module: { type: 'string' }, 'postings-bytes': { type: 'string' } },
});
const file = positionals[0]!;
const rounds = Number(positionals[1] ?? 20);
const modulePath = values.module ?? '#stores/sqlite/search-index.ts';
const { SqliteSearchIndex, DEFAULT_IMPACT_LISTS } = (await import(modulePath)) as typeof import('#stores/sqlite/search-index.ts');

const today = new Date().toISOString().slice(0, 10);
const broad = ['district', 'provided', 'columbia', 'district provided'].flatMap((q) =>
  [
    { asOf: today, jurisdictions: null },
    { asOf: '2019-06-01', jurisdictions: null },
    { asOf: '2023-06-01', jurisdictions: null },
    { asOf: '2023-06-01', jurisdictions: ['dc'] },
    { asOf: '2023-06-01', jurisdictions: ['us'] },
  ].map((f): SearchQuery => ({ q, corpus: null, limit: 10, ...f })),
);

const postingsBytes = values['postings-bytes'];
const impactLists = postingsBytes === undefined ? DEFAULT_IMPACT_LISTS : { ...DEFAULT_IMPACT_LISTS, postingsBytes: Number(postingsBytes) };
const index = await SqliteSearchIndex.open(file, { readers: 1, impactLists });
try {
  const cpuMs = async (queries: SearchQuery[], times: number) => {
    const before = process.cpuUsage();
    const started = performance.now();
    for (let r = 0; r < times; r++) for (const q of queries) await index.search(q);
    const { user, system } = process.cpuUsage(before);
    const n = queries.length * times;
    return { cpu: (user + system) / 1000 / n, wall: (performance.now() - started) / n };
  };
  await cpuMs(broad, 2);
  const all = await cpuMs(broad, rounds);
  console.log(
    `RESULT broad pool: ${all.cpu.toFixed(2)} ms CPU, ${all.wall.toFixed(2)} ms wall a search (${broad.length * rounds} searches)`,
  );
  for (const q of ['district', 'provided', 'columbia', 'district provided']) {
    const one = await cpuMs(
      broad.filter((b) => b.q === q),
      rounds,
    );
    console.log(`RESULT "${q}": ${one.cpu.toFixed(2)} ms CPU a search`);
  }
  const rss = () => `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`;
  console.log(`answered by ${JSON.stringify(index.answeredBy)}; RSS ${rss()}`);
  // Every listed token's postings read once (two words a search: the postings path), as far as the memory allows.
  const terms = (await index.workers.all<{ term: string }>('SELECT term FROM search_impact_terms')).map((r) => r.term);
  for (const [i, term] of terms.entries()) await index.search({ ...broad[0]!, q: `${term} ${terms[(i + 1) % terms.length]}` });
  console.log(`RSS after reading all ${terms.length} listed tokens' postings ${rss()}`);
  const checks = Number(values.check);
  if (checks > 0) {
    await check(index, checks);
    console.log(`RSS after the check ${rss()}`);
  }
} finally {
  await index.close();
}

/** Random searches of listed words against the exact statement on the same file (a second index, lists off). */
async function check(index: Index, n: number): Promise<void> {
  const exact = await SqliteSearchIndex.open(file, { readers: 1, impactLists: false });
  try {
    const terms = (await exact.workers.all<{ term: string }>('SELECT term FROM search_impact_terms ORDER BY term')).map((r) => r.term);
    let seed = 17;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const jurisdictions = [null, ['dc'], ['us'], ['dc', 'us'], ['tn'], ['ms']];
    let hits = 0;
    const before = { ...index.answeredBy };
    for (let i = 0; i < n; i++) {
      const words = Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => pick(terms));
      const year = 2013 + Math.floor(rnd() * 14);
      const query: SearchQuery = {
        q: words.join(' '),
        asOf: `${year}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-15`,
        jurisdictions: pick(jurisdictions),
        corpus: rnd() < 0.2 ? 'statutes' : null,
        limit: 1 + Math.floor(rnd() * 50),
      };
      const [got, expected] = [await index.search(query), await exact.search(query)];
      if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`differs from the exact statement: ${JSON.stringify(query)}`);
      hits += got.length;
    }
    const paths = Object.fromEntries(Object.entries(index.answeredBy).map(([k, v]) => [k, v - before[k as keyof typeof before]]));
    console.log(
      `RESULT check: ${n} random searches of 2–3 listed words, ${hits} hits, all equal to the exact statement's (${JSON.stringify(paths)})`,
    );
  } finally {
    await exact.close();
  }
}
