/**
 * `npm run bench -- --only dc --dc-repo PATH`: the D.C. Code's whole history through `asof fetch dc-code` on the embedded
 * stores: a first run into a fresh data dir (the bundle imported first), then the same run again (nothing new: every
 * publication held). Each run is a child process of its own (bench/dc-code-worker.ts), so its peak RSS is its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DcCodeWorkerInput, DcCodeWorkerResult } from './dc-code-worker.ts';
import { runNode } from './proc.ts';

export interface DcCodeFigures {
  repo: string;
  loadAverage: number[];
  first: DcCodeWorkerResult & { wallMs: number };
  rerun: DcCodeWorkerResult & { wallMs: number };
}

async function runWorker(input: DcCodeWorkerInput, log: (line: string) => void): Promise<DcCodeWorkerResult & { wallMs: number }> {
  let shown = 0;
  const { stdout, ms } = await runNode(['--import', 'tsx', join('bench', 'dc-code-worker.ts'), JSON.stringify(input)], {
    onStderrLine: (line) => {
      // Every publication logs a line or two: show one line in 10 s, and every line that is not routine.
      if (Date.now() - shown > 10_000 || !/^(publication|\s+dc-code|\s+\d{4}-\d{2}-\d{2}: \d+ of)/.test(line)) {
        shown = Date.now();
        log(`    ${line}`);
      }
    },
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the D.C. Code worker printed no result:\n${stdout}`);
  return { ...(JSON.parse(line.slice('RESULT '.length)) as DcCodeWorkerResult), wallMs: ms };
}

export async function dcCodeFigures(repo: string, log: (line: string) => void): Promise<DcCodeFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-bench-dc-'));
  try {
    const input: DcCodeWorkerInput = { dataDir: join(dir, 'data'), repo: resolve(repo), cacheDir: join(dir, 'sources') };
    const loadAverage = loadavg();
    log('  first run: a fresh data dir, the whole history');
    const first = await runWorker(input, log);
    log(`  first run: ${first.versionsWritten} versions in ${(first.fetchMs / 1000).toFixed(1)} s; again, nothing new`);
    const rerun = await runWorker(input, log);
    return { repo, loadAverage, first, rerun };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
