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
const t = async (label: string, sql: string, p: unknown[]) => { const r = await db.query<any>(sql, p); const s = performance.now(); for (let i = 0; i < 5; i++) await db.query(sql, p); console.log(label, ((performance.now() - s) / 5).toFixed(2), 'ms', JSON.stringify(r.rows[0]).slice(0, 150)); };
const W = `key = '28-3814' and valid_from_date <= '2023-06-01' and '2023-06-01' < valid_to_date`;
await t('src', `select length(s.headline_source(body, 'district', 3000)) from s.search_documents where ${W}`, []);
await t('instr i', `select regexp_instr(body, '\\m(district)', 1, 1, 0, 'i') from s.search_documents where ${W}`, []);
await t('instr', `select regexp_instr(body, '\\m(district)', 1, 1, 0, '') from s.search_documents where ${W}`, []);
await t('instr lower', `select strpos(lower(body), 'district') from s.search_documents where ${W}`, []);
await t('len', `select length(body) from s.search_documents where ${W}`, []);
await t('pattern', `select (SELECT coalesce(string_agg(regexp_replace(replace(m[1], '''''', ''''), '([^[:alnum:]])', '\\\\\\1', 'g'), '|'), '') FROM regexp_matches(q::text, '''((?:[^'']|'''')*)''', 'g') AS m) from (select plainto_tsquery('english', $1) q) x`, ["u.s.c. district's o'brien"]);
let captured: [string, unknown[]] | undefined;
const spy = { ...c, query: async (sql: string, p?: readonly unknown[]) => { captured = [sql, [...(p ?? [])]]; return c.query(sql, p) } } as any;
const idx2 = new PostgresSearchIndex(spy, { schema: 's' });
await idx2.search({ q: 'district', jurisdictions: null, corpus: null, asOf: '2023-06-01', limit: 10 });
const e = await db.query<any>('explain (analyze, verbose) ' + captured![0], captured![1]);
console.log(e.rows.map((x) => x['QUERY PLAN']).join('\n'));
for (let i = 0; i < 3; i++) {
const e2 = await db.query<any>('explain (analyze, summary) ' + captured![0], captured![1]);
console.log(e2.rows.map((x) => x['QUERY PLAN']).filter((l: string) => /Time/.test(l)).join(' | '));
}
