import { openPglite } from './functions/stores/postgres/pglite.ts';
import { loadSampleDocuments } from './test/contract/search-index.contract.ts';
const db = await openPglite();
const body = loadSampleDocuments().filter(d => d.citation.key === '28-3814').at(-1)!.bodyText;
await db.exec(`create table c(body text); create table e(body text); alter table e alter column body set storage external;`);
await db.query('insert into c values ($1)', [body]); await db.query('insert into e values ($1)', [body]);
await db.exec(String.raw`
create function f1(body text) returns int language plpgsql immutable as $$ begin return length(body) + regexp_instr(body, '\m(district)', 1, 1, 0, 'i') + length(substr(body, 11000, 1200)); end $$;
create function f2(body text) returns int language plpgsql immutable as $$ declare b text := body; begin return length(b) + regexp_instr(b, '\m(district)', 1, 1, 0, 'i') + length(substr(b, 11000, 1200)); end $$;
create function f3(body text) returns int language plpgsql immutable as $$ begin return octet_length(body) + strpos(body, 'District') + strpos(body, 'district'); end $$;
`);
const N = 50;
const t = async (label: string, tbl: string, expr: string) => {
  const sql = `select count(${expr}) from ${tbl}, generate_series(1, ${N}), (select plainto_tsquery('english', 'district') q) q`;
  let best = Infinity;
  for (let i = 0; i < 7; i++) { const s = performance.now(); await db.query(sql); best = Math.min(best, performance.now() - s); }
  console.log(label.padEnd(24), tbl, (best / N * 1000).toFixed(0), 'µs per call');
};
await t('nothing', 'c', '1');
for (const tbl of ['c', 'e']) {
  await t('substr', tbl, `substr(body, 11000, 1200)`);
  await t('length', tbl, `length(body)`);
  await t('instr i', tbl, String.raw`regexp_instr(body, '\m(district)', 1, 1, 0, 'i')`);
  await t('instr', tbl, String.raw`regexp_instr(body, '\m(district)', 1, 1, 0, '')`);
  await t('f1', tbl, `f1(body)`);
  await t('f2', tbl, `f2(body)`);
  await t('f3 strpos', tbl, `f3(body)`);
}
