import type { CaseLawStore } from '#caselaw/ports.ts';
import { type BulkFileReport, loadBulkFiles } from './courtlistener-bulk.ts';
import { type CourtListenerLoadReport, loadCourtListenerFiles } from './courtlistener-load.ts';

/** Bulk-data CSV files (CourtListener's bulk exports) by name; everything else is read as API records or fixtures. */
const isBulkFile = (path: string): boolean => /\.csv(\.gz|\.bz2)?$/i.test(path);

export type CourtListenerIngestReport =
  | BulkFileReport[]
  | CourtListenerLoadReport
  | { bulk: BulkFileReport[]; records: CourtListenerLoadReport };

/**
 * CourtListener data into the case-law replica, as `asof ingest courtlistener` and the ingest job take it: bulk-data
 * CSV files streamed in batches, and API records or fixture folders read whole. Every write is an upsert, so a rerun
 * over the same files changes nothing and completes one that failed midway.
 */
export async function ingestCourtListener(
  store: CaseLawStore,
  paths: readonly string[],
  log: (line: string) => void = () => undefined,
): Promise<CourtListenerIngestReport> {
  const bulk = paths.filter(isBulkFile);
  const others = paths.filter((p) => !isBulkFile(p));
  const bulkReports = bulk.length ? await loadBulkFiles(store, bulk, log) : [];
  if (!others.length) return bulkReports;
  const report = await loadCourtListenerFiles(store, others);
  log(
    `courtlistener: ${report.files} files: ${report.courts} courts, ${report.clusters} clusters, ${report.citations} citations, ` +
      `${report.opinions} opinions, ${report.opinionsCited} citing edges; data as of ${report.dataAsOf ?? 'unchanged'}`,
  );
  for (const s of report.skipped) log(`  not read as a citation: ${s}`);
  return bulk.length ? { bulk: bulkReports, records: report } : report;
}
