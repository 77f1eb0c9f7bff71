import { openPglite, closePglite } from './functions/stores/postgres/pglite.ts';
import { connectPostgres, pgliteClient, type SqlClient } from './functions/stores/postgres/sql-client.ts';
import { migrate } from './functions/stores/postgres/migrations.ts';
import { PostgresSearchIndex } from './functions/stores/postgres/search-index.ts';
import { loadSampleDocuments, searchDoc } from './test/contract/search-index.contract.ts';
import type { SearchDocument } from './functions/law/ports.ts';

const target = process.argv[2] ?? 'pglite';
const N = Number(process.argv[3] ?? 300_000);
// Deterministic PRNG
let seed = 42; const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const samples = loadSampleDocuments();
const sentences = [...new Set(samples.flatMap((d) => d.bodyText.split(/(?<=[.;:])\s+/)).filter((s) => s.length > 20))];
const catchlines = [...new Set(samples.map((d) => d.catchline))];
console.log('sentence pool', sentences.length, 'catchlines', catchlines.length);
const JUR = ['us', 'dc', 'nd', 'ca', 'ny', 'tx', 'fl', 'il', 'pa', 'oh', 'ga', 'nc', 'mi', 'nj', 'va', 'wa', 'az', 'ma', 'tn', 'in'];
function bodyLength(): number { const r = rnd(); if (r < 0.001) return 150_000; if (r < 0.02) return 10_000 + rnd() * 30_000; return Math.exp(Math.log(300) + rnd() * Math.log(20)); }
function makeDoc(i: number): SearchDocument {
  const len = bodyLength();
  let body = '';
  while (body.length < len) body += sentences[Math.floor(rnd() * sentences.length)] + ' ';
  body += ` term${Math.floor(rnd() * 50_000)} term${Math.floor(rnd() * 50_000)}`;
  const v = i % 3; // three versions per key
  const from = ['2012-01-01', '2018-06-01', '2022-03-01'][v]!; const to = v < 2 ? ['2018-06-01', '2022-03-01'][v]! : null;
  return searchDoc({ key: `k${Math.floor(i / 3)}`, jurisdiction: JUR[Math.floor(i / 3) % JUR.length]!, catchline: catchlines[Math.floor(rnd() * catchlines.length)]!, body, validFrom: `${from}T00:00:00-05:00`, ...(to ? { validTo: `${to}T00:00:00-05:00` } : {}) });
}

let client: SqlClient; let close: () => Promise<void>;
if (target === 'pglite') {
  const db = await openPglite('/tmp/pglite-300k');
  client = pgliteClient(db); close = () => closePglite(db);
} else {
  client = connectPostgres(process.env.DATABASE_URL!, { statementTimeoutMillis: 600_000 }); close = () => client.close();
}
const schema = 'bench300k';
await migrate(client, schema);
const index = new PostgresSearchIndex(client, { schema });
const have = await index.count();
if (have < N) {
  const t0 = performance.now(); let bytes = 0;
  for (let i = have; i < N; i += 2000) {
    const batch = Array.from({ length: Math.min(2000, N - i) }, (_, k) => makeDoc(i + k));
    bytes += batch.reduce((a, d) => a + d.bodyText.length, 0);
    await index.upsert(batch);
    if ((i / 2000) % 10 === 0) console.log(`${i + batch.length} docs, ${(bytes / 1e6).toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await client.query(`ANALYZE "${schema}".search_documents`);
  console.log('ingest s', ((performance.now() - t0) / 1000).toFixed(0));
}
console.log('count', await index.count());
const size = await client.query<any>(`select pg_size_pretty(pg_total_relation_size('"${schema}".search_documents')) t, pg_size_pretty(pg_relation_size('"${schema}".search_documents_tsv')) gin`);
console.log(size.rows[0]);
const queries: [string, string[] | null][] = [
  ['strangulation', null], ['vessel watercraft', null], ['debt collector', null], ['public record exemption', null], ['council approval', null],
  ['district', null], ['person', null], ['shall', null], ['court order', null], ['term123', null], ['term4567 term99', null],
  ['district', ['dc']], ['person', ['nd']], ['debt collector', ['ca', 'ny']], ['"security deposit"', null], ['mayor', ['us']],
];
for (const [q, j] of queries) {
  const times: number[] = []; let hits = 0;
  for (let i = 0; i < 7; i++) { const t = performance.now(); hits = (await index.search({ q, jurisdictions: j, corpus: null, asOf: '2023-06-01', limit: 10 })).length; times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  const matches = await client.query<any>(`select count(*)::int n from "${schema}".search_documents d where tsv @@ plainto_tsquery('english', $1) and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date ${j ? 'and jurisdiction = any($2)' : ''}`, j ? [q.replace(/"/g, ''), j] : [q.replace(/"/g, '')]);
  console.log(`${JSON.stringify(q).padEnd(26)} ${String(j ?? 'all').padEnd(6)} matches ${String(matches.rows[0].n).padStart(7)} hits ${hits} p50 ${times[3]!.toFixed(1)} ms min ${times[0]!.toFixed(1)} max ${times[6]!.toFixed(1)}`);
}
await close();
