import { type SearchIndex, toSearchDocument, type VersionStore } from '#law/ports.ts';

/** Versions written to the index per batch while it is built. */
const BATCH = 1_000;
/** A progress line at most this often. */
const PROGRESS_EVERY_MS = 2_000;

/**
 * Fills an empty search index from the version store: a data dir made before the index existed (or with an index of
 * another layout) gets every version it holds, without an ingest. Returns the versions written.
 */
export async function buildSearchIndex(versions: VersionStore, index: SearchIndex, log: (line: string) => void): Promise<number> {
  const started = performance.now();
  let last = started;
  let written = 0;
  let batch = [];
  for await (const version of versions.scanVersions()) {
    batch.push(toSearchDocument(version));
    if (batch.length < BATCH) continue;
    await index.upsert(batch);
    written += batch.length;
    batch = [];
    if (performance.now() - last >= PROGRESS_EVERY_MS) {
      last = performance.now();
      log(`asof: building the search index: ${written.toLocaleString('en-US')} versions so far`);
    }
  }
  await index.upsert(batch);
  written += batch.length;
  await index.refresh();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (written > 0) log(`asof: search index built: ${written.toLocaleString('en-US')} versions in ${seconds} s`);
  return written;
}
