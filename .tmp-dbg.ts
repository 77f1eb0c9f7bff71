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
for (const q of ['district', 'public record exemption']) {
const hits = await idx.search({ q, jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 });
const r = await db.query<any>(`select key, length(body) len, strpos(body, $1) pos, valid_from_date from s.search_documents where key = any($2) and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date`, [q.split(' ')[0], hits.map(h => h.citation.key)]);
console.log(hits.map(h => [h.citation.key, h.snippet.slice(0, 80)]), r.rows);
}
const opts = `StartSel=\u0001, StopSel=\u0002, MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;
for (const key of ['28-3814', '22-4234', '2-534', '1-204']) {
  const sql = `select strpos(h, E'\\x01') > 0 as hit from (select ts_headline('english', regexp_replace(left(body, 3000), '\\S+$', ''), plainto_tsquery('english', 'district'), $2) h from s.search_documents where key = $1 and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date) x`;
  const sql2 = `select length(regexp_replace(left(body, 3000), '\\S+$', '')) from s.search_documents where key = $1 and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date`;
  for (const s of [sql, sql2]) {
    const r = await db.query<any>(s, [key, opts].slice(0, s.includes('$2') ? 2 : 1));
    const t = performance.now(); for (let i = 0; i < 5; i++) await db.query(s, [key, opts].slice(0, s.includes('$2') ? 2 : 1));
    console.log(key, JSON.stringify(r.rows[0]), ((performance.now() - t) / 5).toFixed(2));
  }
}
