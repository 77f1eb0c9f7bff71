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
let captured: [string, unknown[]] | undefined;
const spy = { ...c, query: async (sql: string, p?: readonly unknown[]) => { captured = [sql, [...(p ?? [])]]; return c.query(sql, p) } } as any;
const idx2 = new PostgresSearchIndex(spy, { schema: 's' });
for (const q of ['debt collector', 'district', 'united states code']) {
  await idx2.search({ q, jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 });
  const sql = captured![0].replace('AS marked\n      FROM top', `AS marked, length(b.body) len, strpos(head.marked, $5) > 0 AS inwin, q.pattern, top.key AS k\n      FROM top`);
  const r = await db.query<any>(sql, captured![1]);
  console.log(q, r.rows.map((x) => `${x.k}:${x.len}:${x.inwin}`).join(' '), r.rows[0]?.pattern);
  const N = 20; const src = `select count(ts_headline('english', s.headline_source(body, $2, 1200), plainto_tsquery('english', $1), 'MaxFragments=2')) from (select body || '' body from s.search_documents where key = $3 and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date) d, generate_series(1, ${N})`;
  for (const x of r.rows.slice(0, 10)) { await db.query(src, [q, x.pattern, x.k]); let best = Infinity; for (let i = 0; i < 3; i++) { const t = performance.now(); await db.query(src, [q, x.pattern, x.k]); best = Math.min(best, performance.now() - t); } process.stdout.write(`${x.k}=${(best / N * 1000).toFixed(0)}µs `); }
  console.log();
}
for (const q of ['debt collector', 'district']) {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) { const t = performance.now(); await idx.search({ q, jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 }); times.push(performance.now() - t); }
  console.log(q, times.map((x) => x.toFixed(1)).join(' '));
  await idx2.search({ q, jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 });
  for (let i = 0; i < 3; i++) {
    const e2 = await db.query<any>('explain (analyze, summary) ' + captured![0], captured![1]);
    console.log(e2.rows.map((x) => x['QUERY PLAN']).filter((l: string) => /Time/.test(l)).join(' | '));
  }
}
