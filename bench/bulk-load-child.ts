/** Child of bench/bulk-load.ts: loads one bulk file (BULK_FILE) into a fresh replica on PGlite and prints its figures. */
import { loadBulkFile } from '#ingest/courtlistener-bulk.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite, openPgliteThread } from '#stores/postgres/pglite.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';

const file = process.env.BULK_FILE;
if (!file) throw new Error('BULK_FILE is not set');
const db = await openPgliteThread();
const sql = pgliteClient(db, { store: 'caselaw' });
await migrateCaseLaw(sql);
const began = performance.now();
const report = await loadBulkFile(new PostgresCaseLawStore(sql), file);
const seconds = (performance.now() - began) / 1000;
await closePglite(db);
process.stdout.write(JSON.stringify({ rows: report.rows, seconds, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
