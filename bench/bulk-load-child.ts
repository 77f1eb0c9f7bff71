/** Child of bench/bulk-load.ts: loads one bulk file (BULK_FILE) into a fresh on-disk replica on PGlite and prints its figures. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBulkFile } from '#ingest/courtlistener-bulk.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';

const file = process.env.BULK_FILE;
if (!file) throw new Error('BULK_FILE is not set');
// On disk, as `asof serve` keeps its replica: an in-memory database would hold every loaded row in RAM.
const dataDir = await mkdtemp(join(tmpdir(), 'asof-bench-bulk-db-'));
const db = await openPgliteThread(dataDir);
let peakHeapBytes = 0;
const sampler = setInterval(() => (peakHeapBytes = Math.max(peakHeapBytes, process.memoryUsage().heapUsed)), 50);
const sql = pgliteClient(db, { store: 'caselaw' });
await migrateCaseLaw(sql);
const began = performance.now();
const report = await loadBulkFile(new PostgresCaseLawStore(sql), file);
const seconds = (performance.now() - began) / 1000;
clearInterval(sampler);
await closePglite(db);
await rm(dataDir, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ rows: report.rows, seconds, peakRssBytes: process.resourceUsage().maxRSS * 1024, peakHeapBytes }));
