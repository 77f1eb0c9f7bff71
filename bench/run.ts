/**
 * `npm run bench [-- --quick] [-- --only lookups,metered,…] [-- --versions N] [-- --dc-repo PATH] [-- --uslm-dir DIR]
 * [-- --states-dir DIR] [-- --caselaw-data DIR] [-- --baseline-commit REV | --baseline-extractor FILE] [-- --keep]`:
 * the benchmark suite. Runs the scenarios of bench/scenarios.ts (all, or those `--only` names), records each in
 * bench/results.json (replacing that scenario's entry, keeping the others) and rewrites the figures block of
 * bench/RESULTS.md from it (bench/render-table.ts); the words around the block are written by hand.
 *
 * `--quick`: a check in a few minutes, at a small scale and short loads. `--versions N`: the synthetic corpus's size
 * (three editions of N/3 sections). `--dc-repo`: the D.C. Council's law-xml-codified (bundle or clone) for the `dc`
 * scenario, skipped without it. `--uslm-dir`, `--states-dir`: real OLRC files and state codes to ingest too
 * (`ingest`). `--caselaw-data`, `--baseline-*`: held-out opinions and another extractor (`citations`). `--keep`: the
 * temp data dirs are left in place.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from './machine.ts';
import { createKeys, REPO, rotatingAuth, startServer } from './proc.ts';
import { renderFigures, replaceFigures } from './render-table.ts';
import { type BenchResults, emptyResults, type Figure, mergeScenario, parseResults } from './results.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { buildScaleStore, type ScaleIngest } from './scale.ts';
import { type Context, SCENARIOS, type Settings } from './scenarios.ts';
import { textPool } from './synthetic-uslm.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    versions: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'dc-repo': { type: 'string' },
    'uslm-dir': { type: 'string' },
    'states-dir': { type: 'string' },
    'caselaw-data': { type: 'string' },
    'baseline-commit': { type: 'string' },
    'baseline-extractor': { type: 'string' },
  },
});

const quick = args.quick!;
const versions = Number(args.versions ?? (quick ? 30_000 : 2_000_000));
if (!Number.isInteger(versions) || versions < 3) throw new Error(`--versions must be a whole number of at least 3 (got ${args.versions})`);
const settings: Settings = {
  connections: 32,
  warmupS: quick ? 1 : 3,
  durationS: quick ? 5 : 20,
  versions,
  sections: Math.ceil(versions / 3),
  keys: 4_000,
  starts: quick ? 2 : 3,
  hostileClients: quick ? [16] : [16, 32, 128],
  availabilityS: quick ? 10 : 30,
};

const known = SCENARIOS.map((s) => s.id);
const only = args.only?.split(',').map((s) => s.trim());
for (const id of only ?? []) if (!known.includes(id)) throw new Error(`--only knows these scenarios: ${known.join(', ')} (got '${id}')`);
const selected = SCENARIOS.filter((s) => !only || only.includes(s.id));

const began = performance.now();
const log = (line: string) => process.stdout.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s] ${line}\n`);
const command = `npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const temps: string[] = [];
const temp = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `asof-bench-${name}-`));
  temps.push(dir);
  return dir;
};
const once = <T>(make: () => Promise<T>): (() => Promise<T>) => {
  let made: Promise<T> | null = null;
  return () => (made ??= make());
};

const sampleDocs = await readSampleCorpus();
const pool = textPool(sampleDocs);
const keysByDir = new Map<string, Promise<Record<string, string>>>();
const ctx: Context = {
  quick,
  settings,
  log,
  temp,
  running: [],
  args: {
    ...(args['dc-repo'] && { dcRepo: args['dc-repo'] }),
    ...(args['uslm-dir'] && { uslmDir: args['uslm-dir'] }),
    ...(args['states-dir'] && { statesDir: args['states-dir'] }),
    ...(args['caselaw-data'] && { caselawData: args['caselaw-data'] }),
    ...(args['baseline-commit'] && { baselineCommit: args['baseline-commit'] }),
    ...(args['baseline-extractor'] && { baselineExtractor: args['baseline-extractor'] }),
  },
  sampleDocs,
  pool,
  sample: once(async () => {
    const dir = await temp('sample');
    log(`sample corpus: first start of asof serve on an empty data dir (${dir})`);
    const server = await startServer(dir);
    log(`  healthy after ${server.healthMs.toFixed(0)} ms`);
    await server.stop();
    return { dir };
  }),
  scale: once(async (): Promise<{ dir: string; ingest: ScaleIngest }> => {
    const xmlDir = await temp('xml');
    const dir = await temp('scale');
    log(`scale: ${settings.sections.toLocaleString('en-US')} synthetic sections × 3 editions through the ingest (${dir})`);
    const ingest = await buildScaleStore({ pool, sections: settings.sections, xmlDir, dataDir: dir, log });
    log(`  ${ingest.versions.toLocaleString('en-US')} versions in ${(ingest.worker.ingestMs / 1000).toFixed(1)} s`);
    return { dir, ingest };
  }),
  headers: (dir) => {
    let made = keysByDir.get(dir);
    if (!made) {
      log(`  ${settings.keys.toLocaleString('en-US')} keys for ${dir}`);
      made = createKeys(dir, settings.keys).then(rotatingAuth);
      keysByDir.set(dir, made);
    }
    return made;
  },
};

const resultsFile = join(REPO, 'bench', 'results.json');
const reportFile = join(REPO, 'bench', 'RESULTS.md');
let results: BenchResults;
try {
  results = parseResults(await readFile(resultsFile, 'utf8'));
} catch {
  results = emptyResults();
}

log(
  `asof bench, ${quick ? 'quick' : 'full'} mode: ${selected.map((s) => s.id).join(', ')}; ${versions.toLocaleString('en-US')} versions at scale; loads of ${settings.durationS} s at ${settings.connections} connections`,
);
try {
  for (const scenario of selected) {
    const skipped = scenario.skip?.(ctx);
    if (skipped) {
      if (only) throw new Error(`--only ${scenario.id} ${skipped}`);
      log(`${scenario.id}: skipped (${skipped}); its entry in bench/results.json stays as it was`);
      continue;
    }
    log(`== ${scenario.id}: ${scenario.what(ctx)}`);
    const t = performance.now();
    const loadAverage = loadavg()[0]!;
    const figures: Figure[] = [];
    let error: string | undefined;
    try {
      await scenario.run(ctx, figures);
    } catch (err) {
      error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${scenario.id} FAILED: ${error}`);
      process.exitCode = 1;
      await Promise.allSettled(ctx.running.splice(0).map((s) => s.stop()));
    }
    results = mergeScenario(
      results,
      {
        id: scenario.id,
        what: scenario.what(ctx),
        command,
        mode: quick ? 'quick' : 'full',
        date: new Date().toISOString(),
        wallMs: performance.now() - t,
        loadAverage,
        machine: machine(),
        settings: { ...settings },
        figures,
        ...(error && { error }),
      },
      known,
    );
    await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(reportFile, replaceFigures(await readFile(reportFile, 'utf8'), renderFigures(results)));
    log(`${scenario.id}: ${figures.length} figures written to bench/results.json and the figures block of bench/RESULTS.md`);
  }
} finally {
  await Promise.allSettled(ctx.running.splice(0).map((s) => s.stop()));
  if (args.keep) log(`kept ${temps.join(', ')}`);
  else await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
  log(`done in ${((performance.now() - began) / 60_000).toFixed(1)} min`);
}
