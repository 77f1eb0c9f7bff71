import { openPglite } from './functions/stores/postgres/pglite.ts';
import { pgliteClient } from './functions/stores/postgres/sql-client.ts';
import { migrate } from './functions/stores/postgres/migrations.ts';
import { PostgresSearchIndex } from './functions/stores/postgres/search-index.ts';
const db = await openPglite();
const c = pgliteClient(db);
console.log(await migrate(c, 'tst'), await migrate(c, 'tst'));
const idx = new PostgresSearchIndex(c, { schema: 'tst' });
const mk = (key: string, catchline: string, body: string, j = 'dc') => ({ id: `${j}#statutes#${key}#2024-01-01`, citation: { jurisdiction: j, corpus: 'statutes' as const, key, display: key, parts: {} }, catchline, bodyText: body, status: 'active' as const, temporalBasis: 'effective-date' as const, provenance: { sourceUrl: 'x', retrievedAt: 'x', contentHash: 'x', sourceSystem: 'x', versionLabel: 'v1' }, validFrom: '2024-01-01T00:00:00-05:00', validTo: '9999-12-31T23:59:59Z' });
await idx.upsert([mk('a', 'Strangulation.', 'Forfeiture applies: <script>alert(1)</script> & "x" forever. strangulation'), mk('b', 'Other', 'strangulation and strangulation')]);
console.log(await idx.count());
console.log(await idx.search({ q: 'strangulation', jurisdictions: null, corpus: null, asOf: '2024-05-01', limit: 10 }));
console.log(await idx.search({ q: 'forfeiture', jurisdictions: ['dc'], corpus: 'statutes', asOf: '2024-05-01', limit: 10 }));
console.log(await idx.search({ q: 'the', jurisdictions: ['dc'], corpus: 'statutes', asOf: '2024-05-01', limit: 10 }));
const r = await db.query(`explain analyze WITH q AS MATERIALIZED (SELECT plainto_tsquery('english', 'strangulation') AS q) SELECT d.id FROM q JOIN tst.search_documents d ON d.tsv @@ q.q AND d.valid_from_date <= '2024-05-01' WHERE numnode(q.q) > 0`);
console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'));
await db.close();
try { await idx.search({ q: 'x', jurisdictions: null, corpus: null, asOf: '2024-05-01', limit: 1 }) } catch (e) { console.log(e) }
