import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { IngestWorkerResult } from './ingest-worker.ts';
import { runNode } from './proc.ts';
import { type SyntheticEdition, type TextPool, writeSyntheticTitle } from './synthetic-uslm.ts';

/**
 * The scale corpus: three synthetic editions written to disk, then ingested through the real path in a child process
 * (bench/ingest-worker.ts). The same worker run again on the same files is the unchanged re-run.
 */

export interface ScaleIngest {
  sections: number;
  editions: SyntheticEdition[];
  generateMs: number;
  xmlBytes: number;
  worker: IngestWorkerResult;
  /** Wall time of the worker process, spawn to exit. */
  workerWallMs: number;
  versions: number;
  /** Everything under the data dir afterwards, whichever store engine wrote it. */
  dataDirBytes: number;
}

const duBytes = (path: string): number => {
  try {
    return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return NaN;
  }
};

/** Runs the ingest worker on `files` into `dataDir`; `after`: the coverage refresh and audit `asof ingest` runs next. */
export async function runIngestWorker(
  dataDir: string,
  files: string[],
  log: (line: string) => void,
  after = true,
): Promise<{ worker: IngestWorkerResult; wallMs: number }> {
  const began = performance.now();
  const input = { dataDir, files, retrievedAt: new Date().toISOString(), after };
  const { stdout } = await runNode(['--import', 'tsx', join('bench', 'ingest-worker.ts'), JSON.stringify(input)], {
    onStderrLine: (l) => log(l),
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the ingest worker printed no result:\n${stdout}`);
  return { worker: JSON.parse(line.slice('RESULT '.length)) as IngestWorkerResult, wallMs: performance.now() - began };
}

export async function buildScaleStore(opts: {
  pool: TextPool;
  sections: number;
  xmlDir: string;
  dataDir: string;
  log: (line: string) => void;
}): Promise<ScaleIngest> {
  const { log } = opts;
  const t = performance.now();
  const editions = await writeSyntheticTitle(opts.pool, opts.xmlDir, opts.sections);
  const generateMs = performance.now() - t;
  const xmlBytes = editions.reduce((n, e) => n + e.bytes, 0);
  log(`  wrote ${editions.length} editions, ${(xmlBytes / 2 ** 20).toFixed(0)} MiB of XML, in ${(generateMs / 1000).toFixed(1)} s`);
  const { worker, wallMs } = await runIngestWorker(
    opts.dataDir,
    editions.map((e) => e.file),
    log,
  );
  return {
    sections: opts.sections,
    editions,
    generateMs,
    xmlBytes,
    worker,
    workerWallMs: wallMs,
    versions: worker.editions.reduce((n, e) => n + e.puts, 0),
    dataDirBytes: duBytes(opts.dataDir),
  };
}
