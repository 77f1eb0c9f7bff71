/**
 * `npm run bench -- --only loaded --dc-repo PATH [--uslm-dir DIR] [--states-dir DIR]`: the real loaded corpus (issue
 * 17). One fresh data dir is loaded through the CLI as a user would: `asof serve`'s first start (the sample), `asof
 * ingest uslm` (every OLRC zip of the USLM directory), `asof fetch dc-code` (the Council's repository: the whole
 * history from a bundle or clone; the slice the repo carries when no --dc-repo is given), the same fetch again
 * (nothing new), `asof fetch state-code tn|ms` (every release of the states directory); each step timed, with its
 * peak RSS. Then the corpus's size, starts on the loaded data dir, and the lookup and search loads on `asof serve
 * --no-cache --no-meter` (what the issue targets) and on `asof serve --no-cache` (metered), against the sample
 * (measured on the same data dir before the rest was loaded) and a bare node:http server, in the same run.
 */
import { readdir, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { zipsUnder } from './federal.ts';
import { poolStats, probePaths, startBareServer } from './http-load.ts';
import type { LoadedCorpus } from './loaded-corpus-worker.ts';
import { type LoadSettings, type LoadTarget, measurePools, type PoolRuns } from './pool-runs.ts';
import { createKeys, REPO, type RunningServer, rotatingAuth, runNode, startServer } from './proc.ts';
import type { PoolStats } from './report.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { type StartupFigure, startupFigure, warmStarts } from './startup.ts';
import { sampleLookupPaths, sampleSearchPaths, searchPath } from './targets.ts';

/** The D.C. slice the repo carries (test data): what the section loads when no --dc-repo is given. */
export const DC_SLICE = 'data/dc-code-history/slice.bundle';
export const DEFAULT_STATES_DIR = 'data/states';
const STATES = ['tn', 'ms'] as const;

export interface LoadedSettings extends LoadSettings {
  warmStarts: number;
}

/** One step of the load, as a user runs it: `asof …` in a process of its own. */
export interface LoadStep {
  label: string;
  command: string;
  ms: number;
  peakRssBytes: number;
  /** What the step reports it did. */
  summary: string;
}

export type LoadedRuns = PoolRuns<'lookup' | 'broad' | 'narrow'>;
export type SampleRuns = PoolRuns<'lookup' | 'search'>;

export interface LoadedFigures {
  settings: LoadedSettings;
  loadAverage: { atStart: number[]; atLoads: number[] };
  sources: { uslmDir: string; zips: number; dcRepo: string; dcSlice: boolean; statesDir: string };
  steps: LoadStep[];
  dc: { publications: number; ingested: number; versionsWritten: number; sectionsEnded: number; firstMs: number; rerunMs: number };
  corpus: Omit<LoadedCorpus, 'lookups'> & { dataDirBytes: number };
  firstStart: StartupFigure;
  starts: StartupFigure[];
  pools: { lookup: PoolStats; broad: PoolStats; narrow: PoolStats; sampleLookup: PoolStats; sampleSearch: PoolStats };
  /** `asof serve --no-cache --no-meter` and `asof serve --no-cache`, on the sample alone and on the loaded corpus. */
  sample: { unmetered: SampleRuns; metered: SampleRuns };
  loaded: { unmetered: LoadedRuns; metered: LoadedRuns };
  /** A bare node:http server answering bodies of the mean size of the loaded corpus's lookup and search answers. */
  bare: SampleRuns & { bodyBytes: { lookup: number; search: number } };
}

const ASOF = join(REPO, 'bin', 'asof.js');
const shown = (path: string) => (path.startsWith(`${REPO}/`) ? path.slice(REPO.length + 1) : path);

/** `asof …` through bin/asof.js, to completion; with --json, the JSON it prints last is the result. */
async function asof(
  label: string,
  args: string[],
  log: (line: string) => void,
): Promise<{ step: Omit<LoadStep, 'summary'>; json: unknown }> {
  let shownAt = 0;
  const r = await runNode([ASOF, ...args], {
    // Progress lines: one in 10 s, so a long step shows it is alive without flooding the log.
    onStdoutLine: (line) => {
      if (Date.now() - shownAt > 10_000 && !/^[{}\s"[\]]/.test(line)) {
        shownAt = Date.now();
        log(`    ${line.slice(0, 200)}`);
      }
    },
  });
  // The JSON is printed last, pretty: its first line is a lone `{` or `[`.
  const lines = r.stdout.split('\n');
  const at = lines.findLastIndex((l) => l === '{' || l === '[');
  if (args.includes('--json') && at < 0) throw new Error(`asof ${args.join(' ')} printed no JSON:\n${r.stdout}`);
  const json = at >= 0 ? JSON.parse(lines.slice(at).join('\n')) : null;
  const command = `asof ${args.map((a) => (a.includes(REPO) ? shown(a) : a)).join(' ')}`.replace(/ --data-dir \S+/, '');
  return { step: { label, command, ms: r.ms, peakRssBytes: r.peakRssBytes }, json };
}

async function bytesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(join(e.parentPath, e.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

const target = (server: RunningServer): LoadTarget => ({ origin: new URL(server.url).origin, pid: server.pid, drains: true });

/** The same pools on `--no-cache --no-meter`, then on `--no-cache` (metered). */
async function bothServers<K extends string>(
  label: string,
  dataDir: string,
  headers: Record<string, string>,
  pools: Record<K, readonly string[]>,
  s: LoadSettings,
  log: (line: string) => void,
): Promise<{ unmetered: PoolRuns<K>; metered: PoolRuns<K> }> {
  const measure = async (meter: boolean) => {
    const flags = meter ? '--no-cache' : '--no-cache --no-meter';
    log(`  ${label}: \`asof serve ${flags}\``);
    const server = await startServer(dataDir, { cache: false, meter });
    try {
      return await measurePools(`${label}, ${flags}`, target(server), headers, pools, s, log);
    } finally {
      await server.stop();
    }
  };
  const unmetered = await measure(false);
  return { unmetered, metered: await measure(true) };
}

export async function loadedFigures(
  dirs: { dataDir: string; uslmDir: string; dcRepo: string | undefined; statesDir: string },
  s: LoadedSettings,
  log: (line: string) => void,
): Promise<LoadedFigures> {
  const atStart = loadavg();
  const { dataDir } = dirs;
  const uslmDir = resolve(REPO, dirs.uslmDir);
  const statesDir = resolve(REPO, dirs.statesDir);
  const dcRepo = resolve(REPO, dirs.dcRepo ?? DC_SLICE);
  if (!dirs.dcRepo)
    log(`  no --dc-repo: loading the D.C. slice the repo carries (${DC_SLICE}), not the whole history; give --dc-repo PATH for that`);
  const zips = await zipsUnder(uslmDir);
  if (!zips.length) throw new Error(`no OLRC zip under ${uslmDir}`);

  log(`  asof serve: first start on an empty data dir (${dataDir}), which loads the sample`);
  const first = await startServer(dataDir);
  let headers: Record<string, string>;
  const firstStart = startupFigure('first start, empty data dir (initdb + sample ingest)', first);
  try {
    log(`  healthy after ${(first.healthMs / 1000).toFixed(1)} s; issuing ${s.keys} keys`);
    headers = rotatingAuth(await createKeys(dataDir, s.keys));
  } finally {
    await first.stop();
  }
  const steps: LoadStep[] = [
    {
      label: 'first start (initdb, sample ingest) → healthy',
      command: 'asof serve',
      ms: firstStart.healthMs,
      peakRssBytes: firstStart.hwm,
      summary: `the sample: ${firstStart.lines.reduce((n, l) => n + Number(/(\d+) versions written/.exec(l)?.[1] ?? 0), 0)} versions written`,
    },
  ];

  const sampleDocs = await readSampleCorpus();
  const samplePools = { lookup: sampleLookupPaths(sampleDocs), search: sampleSearchPaths() };
  const sample = await bothServers('sample', dataDir, headers, samplePools, s, log);

  const dd = ['--data-dir', dataDir];
  log(`  asof ingest uslm: ${zips.length} zips under ${shown(uslmDir)}`);
  const uslm = await asof('federal titles', ['ingest', 'uslm', ...zips, '--json', ...dd], log);
  const editions = uslm.json as { documents: number; unchanged: boolean; writes: { put: number } }[];
  steps.push({
    ...uslm.step,
    command: `asof ingest uslm ${shown(uslmDir)}/…/*.zip (${zips.length} zips)`,
    summary:
      `${editions.length} editions (${editions.filter((e) => e.unchanged).length} already in the sample), ` +
      `${editions.reduce((n, e) => n + e.documents, 0)} sections read, ${editions.reduce((n, e) => n + e.writes.put, 0)} versions written`,
  });

  type DcResult = { publications: number; ingested: number; held: number; versionsWritten: number; sectionsEnded: number };
  log(`  asof fetch dc-code --repo ${shown(dcRepo)}`);
  const dcFirst = await asof('D.C. Code history', ['fetch', 'dc-code', '--repo', dcRepo, '--json', ...dd], log);
  const d1 = dcFirst.json as DcResult;
  steps.push({
    ...dcFirst.step,
    summary: `${d1.ingested} of ${d1.publications} publications, ${d1.versionsWritten} versions written, ${d1.sectionsEnded} sections ended`,
  });
  log(`    ${steps.at(-1)!.summary} in ${(dcFirst.step.ms / 1000).toFixed(1)} s; again, nothing new`);
  const dcAgain = await asof('D.C. Code, re-run (nothing new)', ['fetch', 'dc-code', '--repo', dcRepo, '--json', ...dd], log);
  const d2 = dcAgain.json as DcResult;
  steps.push({ ...dcAgain.step, summary: `${d2.ingested} of ${d2.publications} publications ingested, ${d2.held} held` });

  for (const state of STATES) {
    log(`  asof fetch state-code ${state} --source ${shown(statesDir)}`);
    const r = await asof(`state code, ${state}`, ['fetch', 'state-code', state, '--source', statesDir, '--json', ...dd], log);
    const j = r.json as { files: number; editions: number; changedEditions: number; failed: unknown[] };
    if (j.failed.length) throw new Error(`asof fetch state-code ${state}: ${j.failed.length} files failed`);
    steps.push({ ...r.step, summary: `${j.files} title files, ${j.editions} editions (${j.changedEditions} changed)` });
  }
  for (const step of steps.slice(1))
    log(`  ${step.label}: ${(step.ms / 1000).toFixed(1)} s, peak RSS ${(step.peakRssBytes / 2 ** 20).toFixed(0)} MiB ${step.summary}`);

  log('  the corpus: every version read once (bench/loaded-corpus-worker.ts)');
  const scan = await runNode(['--import', 'tsx', join('bench', 'loaded-corpus-worker.ts'), JSON.stringify({ dataDir })]);
  const line = scan.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the corpus worker printed no result:\n${scan.stdout}`);
  const { lookups, ...corpus } = JSON.parse(line.slice('RESULT '.length)) as LoadedCorpus;
  const dataDirBytes = await bytesUnder(dataDir);
  for (const [j, c] of Object.entries(corpus.byJurisdiction))
    log(`    ${j}: ${c.sections} sections, ${c.versions} versions, ${(c.textBytes / 1e6).toFixed(1)} MB of text`);
  log(`    broad ${corpus.broad.map((q) => `"${q}"`).join(', ')}; narrow ${corpus.narrow.map((q) => `"${q}"`).join(', ')}`);

  log(`  ${s.warmStarts} starts on the loaded data dir`);
  const starts = await warmStarts(dataDir, s.warmStarts, 'start, loaded data dir');
  for (const w of starts) log(`    ${w.label}: healthy after ${(w.healthMs / 1000).toFixed(2)} s`);

  const searches = (words: string[]) =>
    words.flatMap((q) => [
      ...[null, '2019-06-01', '2023-06-01'].map((date) => searchPath(q, date, null)),
      searchPath(q, '2023-06-01', 'dc'),
      searchPath(q, '2023-06-01', 'us'),
    ]);
  const loadedPools = { lookup: lookups, broad: searches(corpus.broad), narrow: searches(corpus.narrow) };
  const probe = await startServer(dataDir, { cache: false, meter: false });
  let pools: LoadedFigures['pools'];
  try {
    const origin = new URL(probe.url).origin;
    pools = {
      lookup: poolStats(await probePaths(origin, loadedPools.lookup, headers)),
      broad: poolStats(await probePaths(origin, loadedPools.broad, headers)),
      narrow: poolStats(await probePaths(origin, loadedPools.narrow, headers)),
      sampleLookup: poolStats(await probePaths(origin, samplePools.lookup, headers)),
      sampleSearch: poolStats(await probePaths(origin, samplePools.search, headers)),
    };
  } finally {
    await probe.stop();
  }
  const atLoads = loadavg();
  const loaded = await bothServers('loaded', dataDir, headers, loadedPools, s, log);

  // The bare server answers one fixed body of the mean size of the loaded corpus's answers.
  const bodyBytes = { lookup: pools.lookup.meanBytes, search: (pools.broad.meanBytes + pools.narrow.meanBytes) / 2 };
  const bareServer = await startBareServer(bodyBytes.lookup, bodyBytes.search);
  let bare: SampleRuns;
  try {
    const barePools = { lookup: lookups.map((_, i) => `/lookup/${i}`), search: loadedPools.broad.map((_, i) => `/search/${i}`) };
    bare = await measurePools('bare node:http', { origin: bareServer.origin, pid: bareServer.pid, drains: false }, {}, barePools, s, log);
  } finally {
    await bareServer.stop();
  }

  return {
    settings: s,
    loadAverage: { atStart, atLoads },
    sources: { uslmDir: shown(uslmDir), zips: zips.length, dcRepo: shown(dcRepo), dcSlice: !dirs.dcRepo, statesDir: shown(statesDir) },
    steps,
    dc: {
      publications: d1.publications,
      ingested: d1.ingested,
      versionsWritten: d1.versionsWritten,
      sectionsEnded: d1.sectionsEnded,
      firstMs: dcFirst.step.ms,
      rerunMs: dcAgain.step.ms,
    },
    corpus: { ...corpus, dataDirBytes },
    firstStart,
    starts,
    pools,
    sample,
    loaded,
    bare: { ...bare, bodyBytes },
  };
}
