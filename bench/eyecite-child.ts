/**
 * The eyecite port (@beshkenadze/eyecite) measured in a process of its own (bench/citations.ts starts it): it reads
 * about 0.02 MB/s and leaves the heap full of its garbage, which the extractor measured after it in the same process
 * would pay for. Input: a JSON file (argv[2]); output: JSON on stdout.
 * - `{ mode: 'throughput', corpora: string[][], minMs }` → per corpus `{ found, mbPerSec }` (full case citations);
 * - `{ mode: 'starts', texts: string[] }` → per text, where the port starts a full case citation.
 */
import { readFileSync } from 'node:fs';
import { getCitations } from '@beshkenadze/eyecite';
import { mbPerSec } from './mb-per-sec.ts';

type Input = { mode: 'throughput'; corpora: string[][]; minMs: number } | { mode: 'starts'; texts: string[] };

const fullCases = (text: string) => getCitations(text).filter((c) => c.constructor.name === 'FullCaseCitation');

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Input;
const output =
  input.mode === 'throughput'
    ? input.corpora.map((texts) => ({
        found: texts.reduce((n, t) => n + fullCases(t).length, 0),
        mbPerSec: mbPerSec(texts, (t) => getCitations(t), input.minMs),
      }))
    : input.texts.map((text) => fullCases(text).map((c) => (c as unknown as { span(): { start: number } }).span().start));
process.stdout.write(JSON.stringify(output));
