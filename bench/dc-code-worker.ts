/**
 * Child process of the D.C. Code benchmark: `asof fetch dc-code` on a data dir through the real path (openLocalStores →
 * fetchDcCode with the local jobs, the steps after the ingest included), alone in its process so its peak RSS is its
 * own. Progress goes to stderr; the result is one `RESULT {json}` line on stdout.
 *
 *   node --import tsx bench/dc-code-worker.ts '{"dataDir": "...", "repo": "...bundle", "cacheDir": "..."}'
 */
import { writeFileSync } from 'node:fs';
import { fetchDcCode } from '#ingest/dc-git/fetch-dc-code.ts';
import { openDcRepository } from '#ingest/dc-git/repository.ts';
import { localJobs, openLocalStores } from '#local/local-runtime.ts';
import { procStatus } from './proc.ts';

export interface DcCodeWorkerInput {
  dataDir: string;
  repo: string;
  cacheDir: string;
}

export interface DcCodeWorkerResult {
  /** Opening (importing, on the first run) the repository: the bundle's pack written and indexed. */
  openRepoMs: number;
  /** fetchDcCode from start to end, the steps after the ingest (formats, coverage, audit) included. */
  fetchMs: number;
  afterIngestMs: number;
  publications: number;
  ingested: number;
  held: number;
  versionsWritten: number;
  sectionsEnded: number;
  /** What the store holds for D.C. afterwards. */
  sections: number;
  versions: number;
  bodyBytes: number;
  auditSummary: string;
  auditFindings: string[];
  /** Peak RSS of the fetch (reset after the stores opened), and when the stores were open. */
  peakRssBytes: number;
  peakRssOpenBytes: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as DcCodeWorkerInput;
const log = (line: string) => process.stderr.write(`${line}\n`);
const stores = await openLocalStores({ dataDir: input.dataDir });
// PGlite's initdb on a new data dir peaks at most of a GB: reset the peak (Linux) so that the figure is the fetch's own.
const peakRssOpenBytes = procStatus(process.pid).hwm;
try {
  writeFileSync('/proc/self/clear_refs', '5');
} catch {
  // not Linux: the peak then includes the opening
}
try {
  const jobs = localJobs(stores);
  let began = performance.now();
  await openDcRepository(input.repo, input.cacheDir, log);
  const openRepoMs = performance.now() - began;
  let afterIngestMs = 0;
  let auditSummary = 'not run (nothing changed)';
  let auditFindings: string[] = [];
  began = performance.now();
  const result = await fetchDcCode(
    { repo: input.repo, cacheDir: input.cacheDir },
    {
      ingest: async (request, ingestLog) => (await jobs.ingest(request, ingestLog, { afterwards: false })).reports,
      afterIngest: async (afterLog) => {
        const t = performance.now();
        const after = await jobs.afterIngest(afterLog);
        afterIngestMs = performance.now() - t;
        const run = after.audit;
        if (run) auditSummary = `${run.passed}/${run.totalChecks} passed, ${run.warned} warned, ${run.failed} failed`;
        return after;
      },
      markers: stores.ops,
      now: stores.now,
    },
    log,
  );
  const fetchMs = performance.now() - began;
  if (result.ingested) {
    const runs = await jobs.audit('manual');
    auditFindings = runs
      .filter((r) => r.run.jurisdiction === 'dc')
      .flatMap((r) => r.findings.map((f) => `${f.status} ${f.checkName}: ${f.detail.slice(0, 300)}`));
  }
  const keys = new Set<string>();
  let versions = 0;
  let bodyBytes = 0;
  for await (const v of stores.versions.scanVersions()) {
    if (v.citation.jurisdiction !== 'dc') continue;
    keys.add(v.citation.key);
    versions++;
    bodyBytes += Buffer.byteLength(v.bodyText);
  }
  const out: DcCodeWorkerResult = {
    openRepoMs,
    fetchMs,
    afterIngestMs,
    publications: result.publications,
    ingested: result.ingested,
    held: result.held,
    versionsWritten: result.versionsWritten,
    sectionsEnded: result.sectionsEnded,
    sections: keys.size,
    versions,
    bodyBytes,
    auditSummary,
    auditFindings,
    peakRssBytes: procStatus(process.pid).hwm,
    peakRssOpenBytes,
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
} finally {
  await stores.close();
}
