import { openPglite } from './functions/stores/postgres/pglite.ts';
import { pgliteClient } from './functions/stores/postgres/sql-client.ts';
import { migrate } from './functions/stores/postgres/migrations.ts';
import { PostgresSearchIndex } from './functions/stores/postgres/search-index.ts';
import { loadSampleDocuments } from './test/contract/search-index.contract.ts';
const db = await openPglite();
const c = pgliteClient(db);
await migrate(c, 's');
const idx = new PostgresSearchIndex(c, { schema: 's' });
await idx.upsert(loadSampleDocuments());
const queries = ['district', 'council', 'strangulation', 'debt collector', 'united states code', 'mayor', 'vessel', 'public record exemption', 'budget', 'person'];
const time = async (label: string, fn: (q: string) => Promise<unknown>) => {
  for (const q of queries) await fn(q);
  const out: string[] = [];
  const all: number[] = [];
  for (const q of queries) { let best = Infinity; for (let i = 0; i < 7; i++) { const t = performance.now(); await fn(q); const d = performance.now() - t; all.push(d); best = Math.min(best, d); } out.push(`${q}:${best.toFixed(1)}`); }
  all.sort((a, b) => a - b);
  console.log(label, 'p50', all[Math.floor(all.length / 2)]!.toFixed(2), out.join(' '));
};
await time('full', (q) => idx.search({ q, jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 }));
await time('nohl', (q) => db.query(`WITH q AS MATERIALIZED (SELECT plainto_tsquery('english', $1) AS q) SELECT d.id, (d.catchline_tsv @@ q.q)::int + ts_rank_cd('{0.1,0.2,0.4,1.0}', d.tsv, q.q, 33) AS score FROM q JOIN s.search_documents d ON d.tsv @@ q.q AND d.valid_from_date <= '2023-06-01' AND '2023-06-01' < d.valid_to_date ORDER BY score DESC LIMIT 10`, [q]));
await time('count', (q) => db.query(`SELECT count(*) FROM s.search_documents d WHERE d.tsv @@ plainto_tsquery('english', $1) AND d.valid_from_date <= '2023-06-01' AND '2023-06-01' < d.valid_to_date`, [q]));
await time('total', (q) => db.query(`SELECT count(*) FROM s.search_documents d WHERE d.tsv @@ plainto_tsquery('english', $1)`, [q]));
const r = await db.query(`SELECT count(*) n, sum(length(body)) b FROM s.search_documents d WHERE d.valid_from_date <= '2023-06-01' AND '2023-06-01' < d.valid_to_date`); console.log(r.rows);
const e = await db.query(`explain analyze WITH q AS MATERIALIZED (SELECT plainto_tsquery('english', 'district') AS q) SELECT d.id, (d.catchline_tsv @@ q.q)::int + ts_rank_cd('{0.1,0.2,0.4,1.0}', d.tsv, q.q, 33) AS score FROM q JOIN s.search_documents d ON d.tsv @@ q.q AND d.valid_from_date <= '2023-06-01' AND '2023-06-01' < d.valid_to_date ORDER BY score DESC LIMIT 10`);
console.log(e.rows.map((x: any) => x['QUERY PLAN']).join('\n'));
