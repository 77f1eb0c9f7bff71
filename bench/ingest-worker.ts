/**
 * Child process of the scale benchmark: ingests USLM files into a data dir through the real path (openLocalStores →
 * runIngest, then the coverage refresh and audit `asof ingest` runs after it), alone in its process so its peak RSS
 * is its own. Progress goes to stderr; the result is one `RESULT {json}` line on stdout.
 *
 *   node --import tsx bench/ingest-worker.ts '{"dataDir": "...", "files": ["..."], "retrievedAt": "..."}'
 */
import { writeFileSync } from 'node:fs';
import { runIngest } from '#ingest/jobs.ts';
import type { VersionStore } from '#law/ports.ts';
import { openLocalStores } from '#local/local-runtime.ts';
import { runAudit } from '#ops/audit.ts';
import { CoverageService } from '#ops/coverage.ts';
import { procStatus } from './proc.ts';

export interface IngestWorkerInput {
  dataDir: string;
  files: string[];
  retrievedAt: string;
  /** Run the coverage refresh and the audit after the ingest, as `asof ingest` does (default true). */
  after?: boolean;
}

export interface IngestWorkerResult {
  /** ms from process start (performance.timeOrigin) to the opening of the stores: module loading. */
  startedAtMs?: number;
  openMs: number;
  ingestMs: number;
  editions: {
    label: string;
    date: string;
    /** The file the edition was read from. */
    source?: string;
    documents: number;
    changedKeys: number;
    puts: number;
    setValidTo: number;
    /** Skipped: unchanged since its last complete ingest. */
    unchanged?: boolean;
    ms: number;
  }[];
  coverageMs: number;
  coverageError: string | null;
  auditMs: number;
  auditSummary: string;
  /** The audit's findings (non-passing checks), shortened. */
  auditFindings: string[];
  /** Set when the audit threw (the ingest itself had completed). */
  auditError: string | null;
  closeMs: number;
  peakRssBytes: number;
  /** CPU time (user + system, every thread of the process) during runIngest: unlike wall time, barely moved by other work on the machine. */
  ingestCpuMs?: number;
  /** Peak RSS (VmHWM) when the stores were open (PGlite's initdb on a new data dir). */
  peakRssOpenBytes?: number;
  /** Peak RSS (VmHWM) when runIngest returned: the ingest's own, VmHWM having been reset after the stores opened (Linux). */
  peakRssAfterIngestBytes?: number;
  /** Highest JS heap of the main thread seen by a 50 ms sampler during runIngest: what the ingest itself holds. */
  peakHeapDuringIngestBytes?: number;
  /** Highest RSS seen by the 1 s sampler during runIngest alone. */
  peakRssDuringIngestBytes: number;
  cpuUserMs: number;
  cpuSystemMs: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as IngestWorkerInput;
const t0 = performance.now();
const startedAtMs = t0;
const stores = await openLocalStores({ dataDir: input.dataDir });
const openMs = performance.now() - t0;
// The peak of opening the stores (PGlite's initdb on a new data dir) is its own figure: reset VmHWM to the current RSS
// (Linux: writing 5 to clear_refs), so the peak read after runIngest is the ingest's.
const peakRssOpenBytes = procStatus(process.pid).hwm;
try {
  writeFileSync('/proc/self/clear_refs', '5');
} catch {
  // not Linux, or not allowed: the ingest's peak then includes the opening's
}

// Count version puts as they happen, for the progress line only (the store itself is the product's).
let puts = 0;
const versions = stores.versions;
const counted: VersionStore = Object.create(versions) as VersionStore;
counted.applyWrites = async (writes) => {
  await versions.applyWrites(writes);
  puts += writes.filter((w) => w.kind === 'put').length;
};

let peakDuringIngest = 0;
// What the ingest itself holds (batches, the checked documents of an edition): the main thread's JS heap, sampled.
let peakHeapBytes = 0;
const heapSampler = setInterval(() => (peakHeapBytes = Math.max(peakHeapBytes, process.memoryUsage().heapUsed)), 50);
const cpuBefore = process.cpuUsage();
const began = performance.now();
const sampler = setInterval(() => {
  const rss = procStatus(process.pid).rss;
  peakDuringIngest = Math.max(peakDuringIngest, rss);
  const s = (performance.now() - began) / 1000;
  if (Math.round(s) % 10 === 0) {
    process.stderr.write(
      `  ingest: ${puts} versions written in ${s.toFixed(0)} s (${(puts / s).toFixed(0)}/s), RSS ${(rss / 2 ** 20).toFixed(0)} MiB\n`,
    );
  }
}, 1000);

const editions: IngestWorkerResult['editions'] = [];
let last = performance.now();
const reports = await runIngest(
  { ...stores, versions: counted },
  { kind: 'uslm', files: input.files, retrievedAt: input.retrievedAt },
  (line) => {
    process.stderr.write(`  ${line}\n`);
    const now = performance.now();
    editions.push({ label: '', date: '', documents: 0, changedKeys: 0, puts: 0, setValidTo: 0, ms: now - last });
    last = now;
  },
);
const ingestMs = performance.now() - began;
const cpuOfIngest = process.cpuUsage(cpuBefore);
clearInterval(heapSampler);
const peakRssAfterIngestBytes = procStatus(process.pid).hwm;
clearInterval(sampler);
reports.forEach((r, i) => {
  Object.assign(editions[i]!, {
    label: r.edition.label,
    date: r.edition.date,
    source: r.edition.source,
    unchanged: r.unchanged,
    documents: r.documents,
    changedKeys: r.changedKeys,
    puts: r.writes.put,
    setValidTo: r.writes.setValidTo,
  });
});

// What `asof ingest` runs next. A failure here is recorded, not fatal: the versions are in the store either way.
const failure = (err: unknown) =>
  err instanceof Error ? `${err.name}: ${err.message} (${err.stack?.split('\n')[1]?.trim() ?? ''})` : String(err);
let t = performance.now();
let coverageError: string | null = null;
let auditSummary = 'no audit run';
let auditError: string | null = null;
const auditFindings: string[] = [];
if (input.after ?? true) {
  await new CoverageService({ ...stores, refreshBehind: () => undefined }).refresh().catch((err: unknown) => {
    coverageError = failure(err);
    process.stderr.write(`  coverage refresh FAILED: ${coverageError}\n`);
  });
}
const coverageMs = performance.now() - t;
t = performance.now();
if (input.after ?? true) {
  try {
    const runs = await runAudit(stores, 'ingest');
    const all = runs.find((r) => r.run.jurisdiction === 'all');
    if (all) {
      auditSummary = `${all.run.passed}/${all.run.totalChecks} checks passed, ${all.run.warned} warned, ${all.run.failed} failed`;
      auditFindings.push(...all.findings.map((f) => `${f.status} ${f.scope} ${f.checkName}: ${f.detail.slice(0, 240)}`));
    }
  } catch (err) {
    auditError = failure(err);
    auditSummary = 'audit FAILED';
    process.stderr.write(`  audit FAILED: ${auditError}\n`);
  }
}
const auditMs = performance.now() - t;
t = performance.now();
await stores.close();
const closeMs = performance.now() - t;

const usage = process.resourceUsage();
const result: IngestWorkerResult = {
  startedAtMs,
  openMs,
  ingestMs,
  editions,
  coverageMs,
  coverageError,
  auditMs,
  auditSummary,
  auditFindings,
  auditError,
  closeMs,
  peakRssBytes: procStatus(process.pid).hwm,
  peakRssOpenBytes,
  peakRssAfterIngestBytes,
  ingestCpuMs: (cpuOfIngest.user + cpuOfIngest.system) / 1000,
  peakHeapDuringIngestBytes: peakHeapBytes,
  peakRssDuringIngestBytes: peakDuringIngest,
  cpuUserMs: usage.userCPUTime / 1000,
  cpuSystemMs: usage.systemCPUTime / 1000,
};
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
