/**
 * The citation extractor (functions/caselaw/citations/): accuracy on the bundled opinions against CourtListener's
 * own markup, throughput next to @beshkenadze/eyecite (the TypeScript port of eyecite) on the same texts in the same
 * run, the first-call cost in a fresh process, and how the time grows on pathological inputs.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getCitations } from '@beshkenadze/eyecite';
import { createExtractor } from '#caselaw/citations/extract.ts';
import { parseRequest, resolveCitations } from '#caselaw/resolve.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';
import { SAMPLE_CASELAW_PATHS } from '../test/contract/caselaw-store.contract.ts';
import { type Accuracy, measureAccuracy } from '../test/support/citation-accuracy.ts';
import { bundledAnswerKeys } from '../test/support/courtlistener-html.ts';
import { REPO } from './proc.ts';

const run = promisify(execFile);

export interface ThroughputFigure {
  corpus: string;
  chars: number;
  /** Full case citations found, by each engine. */
  found: number;
  eyeciteFound: number;
  mbPerSec: number;
  eyeciteMbPerSec: number;
}

export interface GrowthFigure {
  input: string;
  /** [characters, ms] at growing sizes. */
  points: Array<[number, number]>;
}

export interface CitationResults {
  accuracy: { raw: Omit<Accuracy, 'missed' | 'extra'>; reviewed: Omit<Accuracy, 'missed' | 'extra'>; corrections: number };
  throughput: ThroughputFigure[];
  /** Fresh process: import, read reporters-db, build the trie, extract one sentence (median of runs). */
  coldMs: number;
  coldRuns: number[];
  growth: GrowthFigure[];
  /** Parse + resolve a text of 250 citations against the replica on PGlite (worker thread, as `asof serve` runs it). */
  resolve250: { runs: number; p50Ms: number; p90Ms: number; maxMs: number; statuses: Record<string, number> };
}

const MB = 1024 * 1024;
const CASELAW = join(REPO, 'data', 'sample', 'caselaw');

/** Runs `op` over `texts` until `minMs` has passed; MB/s of UTF-16 text (chars × 2 bytes would overstate it: chars). */
function mbPerSec(texts: string[], op: (t: string) => unknown, minMs: number): number {
  const chars = texts.reduce((n, t) => n + t.length, 0);
  for (const t of texts) op(t); // warm
  let rounds = 0;
  const began = performance.now();
  do {
    for (const t of texts) op(t);
    rounds++;
  } while (performance.now() - began < minMs);
  const seconds = (performance.now() - began) / 1000;
  return (chars * rounds) / MB / seconds;
}

const strip = ({ missed: _m, extra: _e, ...rest }: Accuracy) => rest;

/** A 64,000-character text as dense in citations as real briefs get: the citation-bearing sentences of the bundled opinions, end to end. */
function citationDenseText(length = 64_000): string {
  const sentences = bundledAnswerKeys()
    .flatMap((k) => k.text.split(/(?<=\.)\s+(?=[A-Z])/))
    .filter((s) => /\d+ [A-Z][A-Za-z.’' ]{1,20}\d+/.test(s) && s.length < 600)
    .map((s) => s.replace(/\s+/g, ' '));
  let text = '';
  for (let i = 0; text.length < length; i++) text += `${sentences[i % sentences.length]} `;
  return text.slice(0, length);
}

async function coldStart(runs: number): Promise<number[]> {
  const script = `
    const began = performance.now();
    const { extractCitations } = await import('#caselaw/citations/extract.ts');
    const found = extractCitations('Roe v. Wade, 410 U.S. 113 (1973).');
    if (found.length !== 1) throw new Error('cold extract found ' + found.length);
    process.stdout.write(String(performance.now() - began));`;
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO });
    out.push(Number(stdout));
  }
  return out;
}

function growth(extract: (t: string) => unknown): GrowthFigure[] {
  const inputs: Array<[string, (n: number) => string]> = [
    ['digits and dots', (n) => '1.2'.repeat(n).slice(0, n)],
    ['one giant line of volume-reporter pairs, no pages', (n) => '12 U.S. '.repeat(n).slice(0, n)],
    ['unbalanced parentheses after citations', (n) => '410 U.S. 113 ((('.repeat(n).slice(0, n)],
    ['citation-dense text', (n) => citationDenseText(n)],
  ];
  return inputs.map(([input, make]) => ({
    input,
    points: [16_000, 32_000, 64_000].map((n): [number, number] => {
      const text = make(n);
      extract(text);
      const began = performance.now();
      for (let i = 0; i < 20; i++) extract(text);
      return [n, (performance.now() - began) / 20];
    }),
  }));
}

/** 250 citations: the replica's own (found), and real citations of the bundled opinions it does not hold (404). */
function text250(): string {
  const held = ['267 Ga. 9', '471 S.E.2d 836', '97 F.3d 553', '916 A.2d 231', '2007 ME 30', '864 F.2d 222', '984 So. 2d 418'];
  const cited = bundledAnswerKeys().flatMap((k) => k.citations.map((c) => `${c.volume} ${c.reporter} ${c.page}`));
  const parts: string[] = [];
  for (let i = 0; parts.length < 250; i++) parts.push(i % 3 === 0 ? held[i % held.length]! : cited[i % cited.length]!);
  return parts.map((c, i) => `See Case ${i} v. Other, ${c} (1999).`).join(' ');
}

async function resolveFigure(runs: number): Promise<CitationResults['resolve250']> {
  const db = await openPgliteThread();
  try {
    const sql = pgliteClient(db, { store: 'caselaw' });
    await migrateCaseLaw(sql);
    const store = new PostgresCaseLawStore(sql);
    await loadCourtListenerFiles(store, SAMPLE_CASELAW_PATHS);
    const text = text250();
    const statuses: Record<string, number> = {};
    const times: number[] = [];
    for (let i = 0; i < runs + 5; i++) {
      const began = performance.now();
      const parsed = parseRequest({ text });
      if (parsed.length !== 250) throw new Error(`the 250-citation text parsed as ${parsed.length}`);
      const resolved = await resolveCitations(store, parsed);
      if (i >= 5) times.push(performance.now() - began);
      if (i === 0) for (const r of resolved) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    return { runs, p50Ms: at(0.5), p90Ms: at(0.9), maxMs: times[times.length - 1]!, statuses };
  } finally {
    await closePglite(db);
  }
}

export async function citationFigures(opts: { quick: boolean; log: (line: string) => void }): Promise<CitationResults> {
  const extractor = createExtractor();
  const extract = (t: string) => extractor.extract(t);
  const raw = measureAccuracy(extract, false);
  const reviewed = measureAccuracy(extract, true);
  const corrections = (
    JSON.parse(readFileSync(join(REPO, 'test', 'support', 'answer-key-review.json'), 'utf8')) as { corrections: unknown[] }
  ).corrections.length;
  opts.log(
    `  accuracy on ${raw.opinions} opinions: recall ${(raw.recall * 100).toFixed(1)} %, precision ${(raw.precision * 100).toFixed(1)} % against the key as it is; ${(reviewed.recall * 100).toFixed(1)} % / ${(reviewed.precision * 100).toFixed(1)} % with ${corrections} reviewed corrections`,
  );

  const corpora: Array<[string, string[]]> = [
    ['the 25 bundled CourtListener opinions (text of html_with_citations)', bundledAnswerKeys().map((k) => k.text)],
    [
      'the two bundled slip opinions (Fisher v. Texas, Ideal Electronic v. Int’l Fidelity)',
      readdirSync(join(CASELAW, 'opinion-texts'))
        .sort()
        .map((f) => readFileSync(join(CASELAW, 'opinion-texts', f), 'utf8')),
    ],
    ['64,000 characters, citation-dense', [citationDenseText()]],
  ];
  const minMs = opts.quick ? 500 : 3000;
  const throughput: ThroughputFigure[] = [];
  for (const [corpus, texts] of corpora) {
    const found = texts.reduce((n, t) => n + extract(t).filter((c) => c.kind === 'full').length, 0);
    const eyeciteFound = texts.reduce((n, t) => n + getCitations(t).filter((c) => c.constructor.name === 'FullCaseCitation').length, 0);
    const ours = mbPerSec(texts, extract, minMs);
    const theirs = mbPerSec(texts, (t) => getCitations(t), opts.quick ? 1 : minMs);
    const chars = texts.reduce((n, t) => n + t.length, 0);
    throughput.push({ corpus, chars, found, eyeciteFound, mbPerSec: ours, eyeciteMbPerSec: theirs });
    opts.log(
      `  ${corpus}: ${ours.toFixed(1)} MB/s (${found} full citations) vs eyecite port ${theirs.toFixed(3)} MB/s (${eyeciteFound}): ${(ours / theirs).toFixed(0)}×`,
    );
  }
  const coldRuns = await coldStart(opts.quick ? 3 : 7);
  const coldMs = [...coldRuns].sort((a, b) => a - b)[Math.floor(coldRuns.length / 2)]!;
  opts.log(
    `  first call in a fresh process (import, reporters-db, trie, one extract): ${coldMs.toFixed(0)} ms (median of ${coldRuns.length})`,
  );
  const grown = growth(extract);
  for (const g of grown) opts.log(`  ${g.input}: ${g.points.map(([n, ms]) => `${n / 1000}k ${ms.toFixed(2)} ms`).join(', ')}`);
  const resolve250 = await resolveFigure(opts.quick ? 20 : 100);
  opts.log(
    `  parse + resolve 250 citations on PGlite: p50 ${resolve250.p50Ms.toFixed(1)} ms, p90 ${resolve250.p90Ms.toFixed(1)} ms (${JSON.stringify(resolve250.statuses)})`,
  );
  return { accuracy: { raw: strip(raw), reviewed: strip(reviewed), corrections }, throughput, coldMs, coldRuns, growth: grown, resolve250 };
}
