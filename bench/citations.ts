/**
 * The citation extractor (functions/caselaw/citations/): accuracy on the bundled opinions against CourtListener's
 * own markup, on held-out real opinions (`--caselaw-data`, bench/citation-held-out.ts) and per kind of form (the
 * held-out half of reporters-db's examples; the real sentences of test/support/real-citation-forms.ts), throughput
 * next to @beshkenadze/eyecite (the TypeScript port of eyecite) on the same texts in the same run, the first-call
 * cost in a fresh process, and how the time grows on pathological inputs. With `--baseline-commit REV` (the extractor of
 * another commit, read from git) or `--baseline-extractor PATH` (an extract.ts of another commit written out beside
 * its reporters.ts and abbreviation-trie.ts) every accuracy and throughput figure is given for it too, in the same run.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createExtractor, type FoundCitation } from '#caselaw/citations/extract.ts';
import { findStatuteCitations } from '#caselaw/citations/statutes.ts';
import { parseRequest, resolveCitations } from '#caselaw/resolve.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { pgliteClient } from '#stores/postgres/sql-client.ts';
import { SAMPLE_CASELAW_PATHS } from '../test/contract/caselaw-store.contract.ts';
import { type Accuracy, measureAccuracy } from '../test/support/citation-accuracy.ts';
import { formExamples, formText, measureForms } from '../test/support/citation-forms-suite.ts';
import { bundledAnswerKeys } from '../test/support/courtlistener-html.ts';
import { REAL_FORM_CASES } from '../test/support/real-citation-forms.ts';
import { REAL_STATUTE_SENTENCES } from '../test/support/real-statute-citations.ts';
import { type CaseNameFigure, measureCaseNames } from './case-name-accuracy.ts';
import { type HeldOutAccuracy, heldOutSet, measureHeldOut } from './citation-held-out.ts';
import { eyeciteThroughput } from './eyecite-port.ts';
import { mbPerSec } from './mb-per-sec.ts';
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
  /** The baseline extractor's, in the same run, when one was given. */
  baselineMbPerSec?: number;
  /** Ours in a process that has read nothing else (the dense text only). */
  freshProcessMbPerSec?: number;
}

/** Accuracy and throughput on one kind of citation form. */
export interface FormFigure {
  suite: 'reporters-db examples, held-out half' | 'sentences from real opinions';
  kind: string;
  examples: number;
  recall: number;
  precision: number;
  mbPerSec: number;
  baseline?: { recall: number; precision: number; mbPerSec: number };
}

export type HeldOutFigure = Omit<HeldOutAccuracy, 'missed' | 'wrong'> & {
  missed: string[];
  wrong: string[];
  baseline?: Omit<HeldOutAccuracy, 'missed' | 'wrong'>;
};

export interface GrowthFigure {
  input: string;
  /** [characters, ms] at growing sizes. */
  points: Array<[number, number]>;
}

/** Statute and court-rule citations (issue 18): accuracy and MB/s per kind of form, and what finding them costs. */
export interface StatuteFigures {
  forms: Array<{ form: string; examples: number; recall: number; precision: number; mbPerSec: number }>;
  /** Case extraction alone, and case extraction plus the statute finder, taking turns in one process on one text. */
  cost: Array<{ corpus: string; chars: number; statutes: number; casesOnlyMbPerSec: number; withStatutesMbPerSec: number; ratio: number }>;
}

export interface CitationResults {
  accuracy: { raw: Omit<Accuracy, 'missed' | 'extra'>; reviewed: Omit<Accuracy, 'missed' | 'extra'>; corrections: number };
  /** On the held-out real opinions of `--caselaw-data`; absent without it. */
  heldOut?: HeldOutFigure;
  /** Per kind of form; `baselineExtractor` names the extractor the `baseline` figures are of. */
  forms: FormFigure[];
  baselineExtractor?: string;
  throughput: ThroughputFigure[];
  /** Fresh process: import, read reporters-db, build the trie, extract one sentence (median of runs). */
  coldMs: number;
  coldRuns: number[];
  growth: GrowthFigure[];
  /** Parse + resolve a text of 250 citations against the replica on PGlite (worker thread, as `asof serve` runs it). */
  resolve250: { runs: number; p50Ms: number; p90Ms: number; maxMs: number; statuses: Record<string, number> };
  statutes?: StatuteFigures;
  /** Is it the case the text names? On the real opinions of `--caselaw-data` (bench/case-name-accuracy.ts); absent without it. */
  caseNames?: CaseNameFigure;
}

const CASELAW = join(REPO, 'data', 'sample', 'caselaw');

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

/** Ours on `text` in a process of its own that reads nothing else, beside what the bench process reads after its accuracy runs. */
async function freshProcessMbPerSec(text: string, minMs: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-dense-'));
  try {
    const file = join(dir, 'text.txt');
    await writeFile(file, text);
    const script = `
      import { readFileSync } from 'node:fs';
      const { createExtractor } = await import('#caselaw/citations/extract.ts');
      const { mbPerSec } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'bench', 'mb-per-sec.ts')).href)});
      const extractor = createExtractor();
      const text = readFileSync(${JSON.stringify(file)}, 'utf8');
      process.stdout.write(String(mbPerSec([text], (t) => extractor.extract(t), ${minMs})));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO });
    return Number(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Extract = (text: string) => FoundCitation[];

/** Per kind: the held-out half of reporters-db's examples, then the real sentences, with MB/s on each kind's text. */
function formFigures(extract: Extract, baseline: Extract | undefined, minMs: number): FormFigure[] {
  const examples = formExamples('held-out');
  const figures: FormFigure[] = [];
  const repeated = (text: string) => text.repeat(Math.max(1, Math.ceil(16_000 / text.length)));
  const theirs = baseline ? measureForms(baseline, examples) : [];
  for (const ours of measureForms(extract, examples)) {
    const text = repeated(formText(ours.kind === 'all' ? examples : examples.filter((e) => e.kind === ours.kind)));
    const base = theirs.find((t) => t.kind === ours.kind);
    figures.push({
      suite: 'reporters-db examples, held-out half',
      kind: ours.kind,
      examples: ours.examples,
      recall: ours.recall,
      precision: ours.precision,
      mbPerSec: mbPerSec([text], extract, minMs),
      ...(baseline &&
        base && { baseline: { recall: base.recall, precision: base.precision, mbPerSec: mbPerSec([text], baseline, minMs) } }),
    });
  }
  const kinds = [...new Set(REAL_FORM_CASES.map((c) => c.form))];
  for (const kind of kinds) {
    const cases = REAL_FORM_CASES.filter((c) => c.form === kind);
    const score = (ex: Extract) => {
      let expected = 0;
      let found = 0;
      let right = 0;
      for (const c of cases) {
        const got = ex(c.text)
          .filter((x) => x.kind === 'full')
          .map((x) => x.text);
        expected += c.full.length;
        found += got.length;
        right += got.filter((t) => c.full.includes(t)).length;
      }
      return { recall: right / expected, precision: found === 0 ? 1 : right / found, examples: expected };
    };
    const text = repeated(cases.map((c) => c.text).join(' '));
    const ours = score(extract);
    figures.push({
      suite: 'sentences from real opinions',
      kind,
      examples: ours.examples,
      recall: ours.recall,
      precision: ours.precision,
      mbPerSec: mbPerSec([text], extract, minMs),
      ...(baseline && { baseline: { ...score(baseline), mbPerSec: mbPerSec([text], baseline, minMs) } }),
    });
  }
  return figures;
}

/** The sentences of test/support/real-statute-citations.ts per kind of form, and the forms issue 18 lists, in a sentence. */
const ISSUE_FORMS: ReadonlyArray<[string, string | null]> = [
  ['28 U.S.C. § 1291', '28-1291'],
  ['28 U.S.C. 1291', '28-1291'],
  ['section 1291 of title 28', '28-1291'],
  ['42 U.S.C. § 1983 note', '42-1983'],
  ['D.C. Code § 22-404.05', '22-404.05'],
  ['Fed. R. App. P. 32(a)(7)', 'frap-32'],
  ['Tenn. Code Ann. § 39-13-101', '39-13-101'],
  ['Miss. Code Ann. § 1-3-1', '1-3-1'],
  ['Mass. Gen. Laws ch. 93A, § 2', null],
];

function statuteFigures(extract: Extract, minMs: number, denseText: string): StatuteFigures {
  const suites = new Map<string, Array<{ text: string; expected: Array<{ printed: string; key: string | null }> }>>();
  for (const s of REAL_STATUTE_SENTENCES) suites.set(s.form, [...(suites.get(s.form) ?? []), s]);
  suites.set(
    'forms listed in issue 18 (in a sentence)',
    ISSUE_FORMS.map(([printed, key]) => ({ text: `As held, see ${printed}, the rule applies.`, expected: [{ printed, key }] })),
  );
  const repeated = (text: string) => text.repeat(Math.max(1, Math.ceil(16_000 / text.length)));
  const forms = [...suites].map(([form, cases]) => {
    let expected = 0;
    let found = 0;
    let right = 0;
    for (const c of cases) {
      const got = findStatuteCitations(c.text);
      expected += c.expected.length;
      found += got.length;
      right += got.filter((g) => c.expected.some((e) => e.printed === g.text && e.key === g.key)).length;
    }
    const text = repeated(cases.map((c) => c.text).join(' '));
    return {
      form,
      examples: expected,
      recall: right / expected,
      precision: found === 0 ? 1 : right / found,
      mbPerSec: mbPerSec([text], findStatuteCitations, minMs),
    };
  });
  const statuteDense = (() => {
    let text = '';
    for (let i = 0; text.length < 64_000; i++) text += `${REAL_STATUTE_SENTENCES[i % REAL_STATUTE_SENTENCES.length]!.text} `;
    return text.slice(0, 64_000);
  })();
  const both = (t: string) => {
    extract(t);
    return findStatuteCitations(t);
  };
  const cost = (
    [
      ['64,000 characters, citation-dense (the case benchmark’s text)', denseText],
      ['64,000 characters of the real statute sentences, repeated', statuteDense],
    ] as const
  ).map(([corpus, text]) => {
    // Taking turns, three rounds each: the machine is shared, so the two are measured under the same load.
    const alone: number[] = [];
    const withStatutes: number[] = [];
    for (let round = 0; round < 3; round++) {
      alone.push(mbPerSec([text], extract, minMs));
      withStatutes.push(mbPerSec([text], both, minMs));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const casesOnlyMbPerSec = median(alone);
    const withStatutesMbPerSec = median(withStatutes);
    return {
      corpus,
      chars: text.length,
      statutes: findStatuteCitations(text).length,
      casesOnlyMbPerSec,
      withStatutesMbPerSec,
      ratio: withStatutesMbPerSec / casesOnlyMbPerSec,
    };
  });
  return { forms, cost };
}

const exec = promisify(execFile);

/** An extractor module's extract, built (reporters-db read, trie made) when loaded. */
async function extractorOf(file: string): Promise<Extract> {
  const module = (await import(pathToFileURL(resolve(file)).href)) as { createExtractor(): { extract: Extract } };
  const extractor = module.createExtractor();
  return (text) => extractor.extract(text);
}

/**
 * The extractor of another commit: its `functions/` tree written into a folder beside this one's (`.bench-baseline-<sha>/`,
 * at the same depth, so that its relative paths, reporters-db's under layers/ included, resolve as they did there),
 * loaded, and the folder removed again.
 */
async function extractorOfCommit(rev: string): Promise<{ extract: Extract; label: string }> {
  const sha = (await exec('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: REPO })).stdout.trim();
  const dir = join(REPO, `.bench-baseline-${sha}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    await exec('sh', ['-c', `git archive ${sha}:functions | tar -x -C '${dir}'`], { cwd: REPO });
    return { extract: await extractorOf(join(dir, 'caselaw', 'citations', 'extract.ts')), label: `the extractor of commit ${sha}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function loadBaseline(opts: { file?: string; commit?: string }): Promise<{ extract: Extract; label: string } | undefined> {
  if (opts.commit) return extractorOfCommit(opts.commit);
  return opts.file ? { extract: await extractorOf(opts.file), label: opts.file } : undefined;
}

export async function citationFigures(opts: {
  quick: boolean;
  log: (line: string) => void;
  /** CourtListener API v3 records (…/courtlistener-api-v3) to draw the held-out opinions from. */
  caselawDir?: string;
  /** An extract.ts to measure beside the current one. */
  baselineExtractor?: string;
  /** A commit whose extractor to measure beside the current one. */
  baselineCommit?: string;
}): Promise<CitationResults> {
  const extractor = createExtractor();
  const extract = (t: string) => extractor.extract(t);
  const before = await loadBaseline({
    ...(opts.baselineExtractor && { file: opts.baselineExtractor }),
    ...(opts.baselineCommit && { commit: opts.baselineCommit }),
  });
  const baseline = before?.extract;
  const raw = measureAccuracy(extract, false);
  const reviewed = measureAccuracy(extract, true);
  const corrections = (
    JSON.parse(readFileSync(join(REPO, 'test', 'support', 'answer-key-review.json'), 'utf8')) as { corrections: unknown[] }
  ).corrections.length;
  opts.log(
    `  accuracy on ${raw.opinions} opinions: recall ${(raw.recall * 100).toFixed(1)} %, precision ${(raw.precision * 100).toFixed(1)} % against the key as it is; ${(reviewed.recall * 100).toFixed(1)} % / ${(reviewed.precision * 100).toFixed(1)} % with ${corrections} reviewed corrections`,
  );
  const pc = (v: number) => `${(v * 100).toFixed(2)} %`;
  let heldOut: HeldOutFigure | undefined;
  if (opts.caselawDir) {
    opts.log(`  held-out opinions of ${opts.caselawDir}: reading them with the eyecite port (slow the first time)`);
    const set = await heldOutSet(opts.caselawDir);
    const ours = measureHeldOut(set, extract);
    const theirs = baseline ? measureHeldOut(set, baseline) : undefined;
    const { missed: _missed, wrong: _wrong, ...baselineFigures } = theirs ?? ({} as HeldOutAccuracy);
    heldOut = { ...ours, ...(theirs && { baseline: baselineFigures }) };
    opts.log(
      `  held-out: ${ours.opinions} opinions, ${ours.keyed} keyed: recall ${pc(ours.recall)}, precision ${pc(ours.precision)} (${ours.confirmedByEyecite} extras confirmed by the eyecite port, ${ours.confirmedByReview} by review, ${ours.wrong.length} not)` +
        (theirs ? `; baseline ${pc(theirs.recall)} / ${pc(theirs.precision)}` : ''),
    );
    for (const line of [...ours.missed.map((m) => `missed ${m}`), ...ours.wrong.map((w) => `wrong ${w}`)]) opts.log(`    ${line}`);
  }
  const caseNames = opts.caselawDir ? measureCaseNames(opts.caselawDir) : undefined;
  if (caseNames) {
    for (const [half, f] of [
      ['development', caseNames.development],
      ['held-out', caseNames.heldOut],
    ] as const) {
      opts.log(
        `  case names, ${half} half: ${f.named} named of ${f.linked} linked; real names match ${pc(f.matchRate)} (${f.byCluster.matched}/${f.byCluster.named} against cluster names, ${f.bySlug.matched}/${f.bySlug.named} against slugs; apart: ${f.slugCut} cut slugs, ${f.slugNoName} slugs that are no name, ${f.trueMismatches} reviewed mismatches); swapped ${pc(f.swapped.rate)} (${f.swapped.matched}/${f.swapped.pairs}, ${f.swapped.sameName} same-party pairs apart)`,
      );
      for (const m of f.misses) opts.log(`    miss ${m}`);
      for (const m of f.swappedMatches) opts.log(`    swapped ${m}`);
    }
  }
  const minMs = opts.quick ? 500 : 3000;
  const forms = formFigures(extract, baseline, opts.quick ? 200 : 1000);
  for (const f of forms) {
    opts.log(
      `  ${f.suite} / ${f.kind} (${f.examples}): ${pc(f.recall)} / ${pc(f.precision)}, ${f.mbPerSec.toFixed(1)} MB/s` +
        (f.baseline ? `; baseline ${pc(f.baseline.recall)} / ${pc(f.baseline.precision)}, ${f.baseline.mbPerSec.toFixed(1)} MB/s` : ''),
    );
  }

  const dense = [citationDenseText()];
  const corpora: Array<[string, string[]]> = [
    ['the 25 bundled CourtListener opinions (text of html_with_citations)', bundledAnswerKeys().map((k) => k.text)],
    [
      'the two bundled slip opinions (Fisher v. Texas, Ideal Electronic v. Int’l Fidelity)',
      readdirSync(join(CASELAW, 'opinion-texts'))
        .sort()
        .map((f) => readFileSync(join(CASELAW, 'opinion-texts', f), 'utf8')),
    ],
    ['64,000 characters, citation-dense', dense],
  ];
  const throughput: ThroughputFigure[] = [];
  const port = await eyeciteThroughput(
    corpora.map(([, texts]) => texts),
    opts.quick ? 1 : minMs,
  );
  for (const [i, [corpus, texts]] of corpora.entries()) {
    const found = texts.reduce((n, t) => n + extract(t).filter((c) => c.kind === 'full').length, 0);
    const { found: eyeciteFound, mbPerSec: theirs } = port[i]!;
    const ours = mbPerSec(texts, extract, minMs);
    const before = baseline ? mbPerSec(texts, baseline, minMs) : undefined;
    const fresh = texts === dense ? await freshProcessMbPerSec(dense[0]!, minMs) : undefined;
    const chars = texts.reduce((n, t) => n + t.length, 0);
    throughput.push({
      corpus,
      chars,
      found,
      eyeciteFound,
      mbPerSec: ours,
      eyeciteMbPerSec: theirs,
      ...(before !== undefined && { baselineMbPerSec: before }),
      ...(fresh !== undefined && { freshProcessMbPerSec: fresh }),
    });
    opts.log(
      `  ${corpus}: ${ours.toFixed(1)} MB/s (${found} full citations) vs eyecite port ${theirs.toFixed(3)} MB/s (${eyeciteFound}): ${(ours / theirs).toFixed(0)}×` +
        (before !== undefined ? `; baseline ${before.toFixed(1)} MB/s (${(ours / before).toFixed(2)}×)` : ''),
    );
  }
  const statutes = statuteFigures(extract, opts.quick ? 300 : 1500, dense[0]!);
  for (const f of statutes.forms) {
    opts.log(`  statutes / ${f.form} (${f.examples}): ${pc(f.recall)} / ${pc(f.precision)}, ${f.mbPerSec.toFixed(1)} MB/s`);
  }
  for (const c of statutes.cost) {
    opts.log(
      `  ${c.corpus} (${c.statutes} statute citations): cases alone ${c.casesOnlyMbPerSec.toFixed(1)} MB/s, with statutes ${c.withStatutesMbPerSec.toFixed(1)} MB/s (${c.ratio.toFixed(2)}×)`,
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
  return {
    accuracy: { raw: strip(raw), reviewed: strip(reviewed), corrections },
    ...(heldOut && { heldOut }),
    forms,
    ...(before && { baselineExtractor: before.label }),
    throughput,
    coldMs,
    coldRuns,
    growth: grown,
    resolve250,
    statutes,
    ...(caseNames && { caseNames }),
  };
}
