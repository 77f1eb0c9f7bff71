import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { IngestWorkerResult } from './ingest-worker.ts';
import { runNode } from './proc.ts';
import { type OpsFigure, uslmParseFigure } from './pure.ts';
import { type SyntheticEdition, type TextPool, writeSyntheticTitle } from './synthetic-uslm.ts';

/** The scale corpus: three synthetic editions written to disk, then ingested through the real path in a child process. */

export interface ScaleIngest {
  sections: number;
  editions: SyntheticEdition[];
  generateMs: number;
  xmlBytes: number;
  parse: OpsFigure & { sections: number; ms: number; mbPerSec: number; meanBodyChars: number };
  worker: IngestWorkerResult;
  /** Wall time of the worker process, spawn to exit. */
  workerWallMs: number;
  versions: number;
  dataDirBytes: { dynamodb: number; postgres: number };
}

const duBytes = (path: string): number => {
  try {
    return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return NaN;
  }
};

export async function buildScaleStore(opts: {
  pool: TextPool;
  sections: number;
  xmlDir: string;
  dataDir: string;
  log: (line: string) => void;
}): Promise<ScaleIngest> {
  const { log } = opts;
  let t = performance.now();
  const editions = await writeSyntheticTitle(opts.pool, opts.xmlDir, opts.sections);
  const generateMs = performance.now() - t;
  const xmlBytes = editions.reduce((n, e) => n + e.bytes, 0);
  log(`  wrote ${editions.length} editions, ${(xmlBytes / 2 ** 20).toFixed(0)} MiB of XML, in ${(generateMs / 1000).toFixed(1)} s`);

  const parse = await uslmParseFigure(editions[0]!.file, editions[0]!.bytes);
  log(`  USLM reader alone: ${parse.opsPerSec.toFixed(0)} sections/s, ${parse.mbPerSec.toFixed(1)} MiB/s`);

  t = performance.now();
  const input = { dataDir: opts.dataDir, files: editions.map((e) => e.file), retrievedAt: new Date().toISOString() };
  const { stdout } = await runNode(['--import', 'tsx', join('bench', 'ingest-worker.ts'), JSON.stringify(input)], {
    onStderrLine: (l) => log(l),
  });
  const workerWallMs = performance.now() - t;
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the ingest worker printed no result:\n${stdout}`);
  const worker = JSON.parse(line.slice('RESULT '.length)) as IngestWorkerResult;
  const versions = worker.editions.reduce((n, e) => n + e.puts, 0);
  return {
    sections: opts.sections,
    editions,
    generateMs,
    xmlBytes,
    parse,
    worker,
    workerWallMs,
    versions,
    dataDirBytes: { dynamodb: duBytes(join(opts.dataDir, 'dynamodb')), postgres: duBytes(join(opts.dataDir, 'postgres')) },
  };
}
