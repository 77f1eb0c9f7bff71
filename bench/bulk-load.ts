/**
 * The streaming load of CourtListener bulk-data CSV: a generated citation-map file (CourtListener's largest table
 * by rows) in its export format, loaded into the replica on PGlite in a worker thread, in a child process of its own
 * on disk as `asof serve` keeps it, so that its peak RSS is the load's. Reports rows/s, peak RSS and the loading
 * thread's peak heap at two sizes: memory must not grow with rows.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './proc.ts';

const run = promisify(execFile);

export interface BulkLoadFigure {
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSec: number;
  peakRssBytes: number;
  /** Peak JS heap of the loading thread: what the loader itself holds (PGlite's memory is in its own thread and WASM). */
  peakHeapBytes: number;
}

async function writeCitationMap(path: string, rows: number): Promise<number> {
  const out = createWriteStream(path);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((ok) => out.once('drain', ok)));
  await write('id,depth,cited_opinion_id,citing_opinion_id\n');
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk += `"${i}","${1 + (i % 3)}","${100_000 + (i % 50_000)}","${1_000_000 + i}"\n`;
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((ok, fail) => out.end((err?: Error | null) => (err ? fail(err) : ok())));
  return (await stat(path)).size;
}

export async function bulkLoadFigures(sizes: number[], log: (line: string) => void): Promise<BulkLoadFigure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-bench-bulk-'));
  try {
    const figures: BulkLoadFigure[] = [];
    for (const rows of sizes) {
      const file = join(dir, `citation-map-2026-01-01-${rows}.csv`);
      const bytes = await writeCitationMap(file, rows);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'bulk-load-child.ts')], {
        cwd: REPO,
        maxBuffer: 1 << 20,
        env: { ...process.env, BULK_FILE: file },
      });
      const r = JSON.parse(stdout) as { rows: number; seconds: number; peakRssBytes: number; peakHeapBytes: number };
      const figure = {
        rows: r.rows,
        bytes,
        seconds: r.seconds,
        rowsPerSec: r.rows / r.seconds,
        peakRssBytes: r.peakRssBytes,
        peakHeapBytes: r.peakHeapBytes,
      };
      log(
        `  ${rows.toLocaleString('en-US')} citation-map rows (${(bytes / 2 ** 20).toFixed(0)} MiB): ${figure.rowsPerSec.toFixed(0)} rows/s, ${figure.seconds.toFixed(1)} s, ` +
          `peak RSS ${(figure.peakRssBytes / 2 ** 20).toFixed(0)} MiB, peak loader heap ${(figure.peakHeapBytes / 2 ** 20).toFixed(0)} MiB`,
      );
      figures.push(figure);
      await rm(file);
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
