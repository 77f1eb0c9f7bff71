import { openPglite } from './functions/stores/postgres/pglite.ts';
import { loadSampleDocuments } from './test/contract/search-index.contract.ts';
const db = await openPglite();
const docs = loadSampleDocuments();
const big = docs.filter(d => d.citation.key === '28-3814').at(-1)!.bodyText;
await db.query('create table b(body text)'); await db.query('insert into b values ($1)', [big]);
const opts = (mf: number) => `StartSel=\u0001, StopSel=\u0002, MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=${mf}, FragmentDelimiter=" … "`;
const t = async (label: string, sql: string, p: unknown[]) => { await db.query(sql, p); const s = performance.now(); for (let i = 0; i < 10; i++) await db.query(sql, p); console.log(label, ((performance.now() - s) / 10).toFixed(2), 'ms'); };
console.log('len', big.length);
for (const q of ['district', 'debt collector', 'zebra', 'consumer']) {
  await t(`${q} frag2`, `select ts_headline('english', body, plainto_tsquery('english',$1), $2) from b`, [q, opts(2)]);
  await t(`${q} frag0`, `select ts_headline('english', body, plainto_tsquery('english',$1), $2) from b`, [q, opts(0)]);
  await t(`${q} frag2 left4000`, `select ts_headline('english', left(body, 4000), plainto_tsquery('english',$1), $2) from b`, [q, opts(2)]);
  await t(`${q} to_tsvector`, `select to_tsvector('english', body) from b`, []);
}
await t('noop', 'select 1', []);
