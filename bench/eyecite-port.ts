import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNode } from './proc.ts';

/** The eyecite port over `corpora` in a process of its own (bench/eyecite-child.ts): full case citations found, MB/s. */
export const eyeciteThroughput = (corpora: string[][], minMs: number) =>
  inChild<Array<{ found: number; mbPerSec: number }>>({ mode: 'throughput', corpora, minMs });

/** Per text, where the eyecite port starts a full case citation, read in a process of its own. */
export const eyeciteStarts = (texts: string[]) => inChild<number[][]>({ mode: 'starts', texts });

async function inChild<T>(input: object): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-eyecite-'));
  try {
    const file = join(dir, 'input.json');
    await writeFile(file, JSON.stringify(input));
    const { stdout } = await runNode(['--import', 'tsx', join('bench', 'eyecite-child.ts'), file]);
    return JSON.parse(stdout) as T;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
