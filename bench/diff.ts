/**
 * `--only diff`: the diff of two versions (issue 19) on the longest real section with more than one version, D.C.
 * Code § 51-103 (65,000 characters, test/fixtures/dc-code-51-103), in process. Beside it, in the same run: the
 * baseline (the SHA-256 content hash of both texts, which every version already costs), jsdiff's own diffWords on the
 * whole pair, and a pathological pair (§ 51-103 against § 28-3814, two long, wholly different real texts) through the
 * bounded diff and, once, unbounded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffWords } from 'diff';
import { parseDcSection } from '#ingest/dc-code.ts';
import { DIFF_BUDGET, diffText } from '#law/diff.ts';
import { contentHash } from '#shared/hash.ts';
import { REPO } from './proc.ts';

export interface DiffTiming {
  runs: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

export interface DiffFigures {
  pair: { what: string; chars: [number, number]; words: { kept: number; removed: number; added: number }; wordLevel: boolean };
  baselineHash: DiffTiming;
  bounded: DiffTiming;
  jsdiffWords: DiffTiming;
  pathological: { what: string; chars: [number, number]; bounded: DiffTiming; wordLevel: boolean; unboundedMs: number | null };
  budget: typeof DIFF_BUDGET;
  loadAverage: number[];
}

const section = (path: string) => parseDcSection(readFileSync(join(REPO, path), 'utf8'), path).bodyText;

function time(runs: number, op: () => unknown): DiffTiming {
  for (let i = 0; i < 3; i++) op(); // warm up (JIT)
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    op();
    ms.push(performance.now() - began);
  }
  ms.sort((a, b) => a - b);
  return { runs, medianMs: ms[Math.floor(runs / 2)]!, p95Ms: ms[Math.min(runs - 1, Math.floor(runs * 0.95))]!, maxMs: ms.at(-1)! };
}

export async function diffFigures(opts: { quick: boolean; unbounded: boolean }, log: (line: string) => void): Promise<DiffFigures> {
  const { loadavg } = await import('node:os');
  const before = section('test/fixtures/dc-code-51-103/2022-04-13_e0df84be.xml');
  const after = section('test/fixtures/dc-code-51-103/2022-12-14_dd4db1ec.xml');
  const other = section('data/sample/dc-code/28-3814/2024-04-22_e351c11c.xml');
  const labels = { from: 'dc/statutes/51-103@2022-04-13', to: 'dc/statutes/51-103@2022-12-14' };
  const runs = opts.quick ? 20 : 100;

  const result = diffText(before, after, labels);
  log(`diff: § 51-103 ${before.length} → ${after.length} characters, ${runs} runs each`);
  const baselineHash = time(runs, () => [contentHash(before), contentHash(after)]);
  const bounded = time(runs, () => diffText(before, after, labels));
  const jsdiffWords = time(runs, () => diffWords(before, after));
  log(`diff: bounded median ${bounded.medianMs.toFixed(1)} ms, hash baseline ${baselineHash.medianMs.toFixed(2)} ms`);

  const hostile = diffText(before, other, { from: 'a', to: 'b' });
  const pathological = time(opts.quick ? 5 : 20, () => diffText(before, other, { from: 'a', to: 'b' }));
  let unboundedMs: number | null = null;
  if (opts.unbounded) {
    log('diff: the pathological pair unbounded (jsdiff diffWords, about half a minute)');
    const began = performance.now();
    diffWords(before, other);
    unboundedMs = performance.now() - began;
  }
  return {
    pair: {
      what: 'D.C. Code § 51-103, publications of 2022-04-13 and 2022-12-14',
      chars: [before.length, after.length],
      words: result.words,
      wordLevel: result.wordLevel,
    },
    baselineHash,
    bounded,
    jsdiffWords,
    pathological: {
      what: 'D.C. Code § 51-103 (2022-04-13) against § 28-3814 (2024-04-22)',
      chars: [before.length, other.length],
      bounded: pathological,
      wordLevel: hostile.wordLevel,
      unboundedMs,
    },
    budget: DIFF_BUDGET,
    loadAverage: loadavg(),
  };
}
