/**
 * `npm run bench [-- --quick] [-- --sections N] [-- --keep] [-- --only bulk|bundles|ingest|federal|dc|loaded|citations|diff]
 * [-- --uslm-dir DIR] [-- --dc-repo PATH] [-- --states-dir DIR] [-- --caselaw-data DIR] [-- --baseline-commit REV]
 * [-- --baseline-extractor FILE]`: the
 * benchmark suite. Writes bench/RESULTS.md and bench/results.json. See bench/report.ts for what each figure means. `--only
 * ingest` runs the USLM ingest on real files alone (`--uslm-dir`: a directory of OLRC zips or USLM XML, default
 * data/uslm/olrc); `--only federal` lookup and search on the federal corpus of those zips next to the sample, alone;
 * `--only loaded` the whole loaded corpus (those zips, the D.C. history of `--dc-repo`, the state codes of
 * `--states-dir`, default data/states) through the CLI, then its lookup and search loads (bench/loaded.ts); `--only
 * citations` the citation extractor alone (`--caselaw-data`: CourtListener API v3 records to draw held-out opinions
 * from; `--baseline-commit`: another commit's extractor, read from git, or `--baseline-extractor`: another commit's
 * extract.ts, measured beside it); `--only diff` the diff of two versions
 * (issue 19) on the longest real D.C. section and a pathological pair, in process (bench/diff.ts).
 */

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureAvailability } from './availability.ts';
import { bulkLoadFigures } from './bulk-load.ts';
import { bundleFigures } from './bundles.ts';
import { citationFigures } from './citations.ts';
import { dcCodeFigures } from './dc-code.ts';
import { diffFigures } from './diff.ts';
import { federalFigures } from './federal.ts';
import {
  type BareServer,
  type LoadOptions,
  type LoadResult,
  poolStats,
  probePaths,
  runLoad,
  runSequentialDuring,
  startBareServer,
  timeSequential,
} from './http-load.ts';
import { DEFAULT_STATES_DIR, loadedFigures } from './loaded.ts';
import { machine } from './machine.ts';
import { createKeys, procStatus, REPO, type RunningServer, rotatingAuth, startServer } from './proc.ts';
import { type CpuBreakdown, profileIngest, profileLoad } from './profile.ts';
import { pureFigures } from './pure.ts';
import { type BareResults, type BenchResults, costliestAccepted, type MeterResults, renderReport, type SizeHttp } from './report.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { buildScaleStore } from './scale.ts';
import { searchMatches } from './search-matches.ts';
import { searchTermCosts, TERMS_AS_OF } from './search-terms.ts';
import { cliFloorMs, startupFigure, warmStarts } from './startup.ts';
import { textPool } from './synthetic-uslm.ts';
import {
  MATCHES_AS_OF,
  SEARCH_QUERIES,
  sampleLookupPaths,
  sampleSearchPaths,
  searchPath,
  syntheticLookupPaths,
  syntheticSearchPaths,
} from './targets.ts';
import { DEFAULT_USLM_DIR, uslmIngestFigures } from './uslm-ingest.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sections: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-profile': { type: 'boolean', default: false },
    only: { type: 'string' },
    'caselaw-data': { type: 'string' },
    'baseline-extractor': { type: 'string' },
    'baseline-commit': { type: 'string' },
    'uslm-dir': { type: 'string' },
    'dc-repo': { type: 'string' },
    'states-dir': { type: 'string' },
  },
});

const quick = args.quick!;
const settings = {
  connections: 32,
  warmupS: quick ? 1 : 3,
  durationS: quick ? 5 : 20,
  c1DurationS: quick ? 3 : 10,
  profileS: quick ? 5 : 10,
  warmStarts: quick ? 2 : 3,
  sections: Number(args.sections ?? (quick ? 10_000 : 100_000)),
  /**
   * Keys a load spreads its requests over. A key may make 120 requests a minute (the edge limit and the highest
   * per-minute ceiling), so a metered server answers up to `keys / 2` requests a second before any call meets a
   * ceiling; the statuses of every run are reported, so a 429 would show.
   */
  keys: 4_000,
  /** § 7: hostile clients of each phase after the baseline, and how long each phase lasts. */
  hostileClients: quick ? [16] : [16, 32, 128],
  availabilityS: quick ? 10 : 30,
};
/** § 1f: the federal corpus next to the sample (shorter loads: sixteen runs). */
const federalSettings = {
  connections: settings.connections,
  durationS: quick ? 5 : 10,
  c1DurationS: quick ? 3 : 10,
  warmupS: quick ? 1 : 2,
  keys: settings.keys,
};
/** § 1i: the loaded corpus (twenty-four loads). */
const loadedSettings = { ...federalSettings, warmStarts: settings.warmStarts };
if (!Number.isInteger(settings.sections) || settings.sections < 1)
  throw new Error(`--sections must be a positive integer (got ${args.sections})`);

const BULK_SIZES = quick ? [20_000, 100_000] : [1_000_000, 4_000_000];

const began = performance.now();
const startedAt = new Date();
const log = (line: string) => process.stdout.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(5)} s] ${line}\n`);
const temps: string[] = [];
const temp = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `asof-bench-${name}-`));
  temps.push(dir);
  return dir;
};

function loadedSources(dataDir: string) {
  return {
    dataDir,
    uslmDir: args['uslm-dir'] ?? DEFAULT_USLM_DIR,
    dcRepo: args['dc-repo'],
    statesDir: args['states-dir'] ?? DEFAULT_STATES_DIR,
  };
}

/** The meter's cost: the same lookup loads on a server with the meter and on one started with `--no-meter`. */
async function measureMeter(
  dataDir: string,
  lookupPaths: string[],
  searchPaths: string[],
  headers: Record<string, string>,
  metered: { lookup: LoadResult; lookupC1: LoadResult },
): Promise<MeterResults> {
  log('sample corpus: the lookup and search loads on `asof serve --no-meter` (keys checked, nothing counted)');
  const server = await startServer(dataDir, { meter: false });
  running.push(server);
  try {
    const origin = new URL(server.url).origin;
    await probePaths(origin, lookupPaths, headers);
    const base = { origin, paths: lookupPaths, headers, serverPid: server.pid };
    const lookup = await runLoad({
      ...base,
      name: 'asof lookup (sample, --no-meter)',
      connections: settings.connections,
      durationS: settings.durationS,
      warmupS: settings.warmupS,
    });
    const lookupC1 = await runLoad({
      ...base,
      name: 'asof lookup, 1 connection (sample, --no-meter)',
      connections: 1,
      durationS: settings.c1DurationS,
      warmupS: 1,
    });
    await probePaths(origin, searchPaths, headers);
    const search = await runLoad({
      ...base,
      paths: searchPaths,
      name: 'asof search (sample, --no-meter)',
      connections: settings.connections,
      durationS: settings.durationS,
      warmupS: settings.warmupS,
    });
    for (const r of [lookup, lookupC1, search])
      log(`  ${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms`);
    return { metered, unmetered: { lookup, lookupC1, search } };
  } finally {
    await server.stop();
    running.length = 0;
  }
}

/** Measured loads against one running server: lookup and search at 32 connections, then one connection. */
async function measureServer(
  label: string,
  server: RunningServer,
  headers: Record<string, string>,
  lookupPaths: string[],
  searchPaths: string[],
  withBare: boolean,
): Promise<{ http: SizeHttp; bare: BareResults | null }> {
  const origin = new URL(server.url).origin;
  const rssIdle = procStatus(server.pid);
  log(`${label}: probing ${lookupPaths.length} lookup and ${searchPaths.length} search requests once each`);
  const lookupPool = poolStats(await probePaths(origin, lookupPaths, headers));
  const searchPool = poolStats(await probePaths(origin, searchPaths, headers));
  // The bare server answers one fixed JSON body of the mean size of asof's answers to the same pool.
  const bare: BareServer | null = withBare ? await startBareServer(lookupPool.meanBytes, searchPool.meanBytes) : null;
  if (bare) running.push(bare);
  try {
    const base = { headers, connections: settings.connections, durationS: settings.durationS, warmupS: settings.warmupS };
    // A load's clients stop at the end of the run, but the server still works off what they queued (a slow search
    // queue can take many seconds): wait for it before the next run, so no run measures the previous one's tail.
    const drain = async () => {
      const began = performance.now();
      const res = await fetch(`${origin}/v1/law/search?q=zzqxjv&asOf=2000-01-01`, { headers });
      await res.arrayBuffer();
      return performance.now() - began;
    };
    const drains: { after: string; ms: number }[] = [];
    const run = async (
      name: string,
      o: string,
      paths: readonly string[],
      pid: number,
      extra: Partial<LoadOptions> = {},
    ): Promise<LoadResult> => {
      const r = await runLoad({ ...base, name, origin: o, paths, serverPid: pid, ...extra });
      if (o === origin) drains.push({ after: name, ms: await drain() });
      const statuses = Object.entries(r.byStatus)
        .map(([s, v]) => `${s}×${v.count}`)
        .join(' ');
      log(
        `  ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms (${statuses}${r.errors ? `, ${r.errors} errors` : ''})`,
      );
      for (const e of r.serverErrors) log(`    ${e.count} × ${e.body}`);
      return r;
    };
    const c1 = { connections: 1, durationS: settings.c1DurationS, warmupS: 1 };
    const bareLookupPaths = lookupPaths.map((_, i) => `/lookup/${i}`);
    const bareSearchPaths = searchPaths.map((_, i) => `/search/${i}`);
    const bareLookup = bare && (await run('bare node:http, lookup-sized body', bare.origin, bareLookupPaths, bare.pid));
    const lookup = await run(`asof lookup (${label})`, origin, lookupPaths, server.pid);
    const bareSearch = bare && (await run('bare node:http, search-sized body', bare.origin, bareSearchPaths, bare.pid));
    const search = await run(`asof search (${label})`, origin, searchPaths, server.pid);
    const lookupC1 = await run(`asof lookup, 1 connection (${label})`, origin, lookupPaths, server.pid, c1);
    const searchC1 = await run(`asof search, 1 connection (${label})`, origin, searchPaths, server.pid, c1);
    const bareLookupC1 = bare && (await run('bare node:http, lookup-sized, 1 connection', bare.origin, bareLookupPaths, bare.pid, c1));
    // Both at once: does a search load hold up lookups (one event loop, PGlite runs synchronously in it)?
    const mixedSearchRun = run(`asof search (${label}), with the lookups below at the same time`, origin, searchPaths, server.pid);
    const mixedLookupC1 = await runSequentialDuring(
      {
        name: `asof lookup, one at a time (${label}), during the search load above`,
        origin,
        paths: lookupPaths,
        headers,
        serverPid: server.pid,
      },
      mixedSearchRun,
    );
    const mixedSearch = await mixedSearchRun;
    for (const e of mixedLookupC1.serverErrors) log(`    ${e.count} × ${e.body}`);
    log(
      `  ${mixedLookupC1.name}: ${mixedLookupC1.requests} lookups, p50 ${mixedLookupC1.latency.p50.toFixed(0)} ms, max ${mixedLookupC1.latency.max.toFixed(0)} ms (${Object.entries(
        mixedLookupC1.byStatus,
      )
        .map(([s, v]) => `${s}×${v.count}`)
        .join(' ')})`,
    );
    const rssAfter = procStatus(server.pid);
    // Search, one query at a time: which queries cost what at this size.
    const perQuery = new Map<string, { times: number[]; hits: number[] }>();
    for (const t of await timeSequential(origin, searchPaths, headers, 3)) {
      const q = new URL(t.path, origin).searchParams.get('q')!;
      const e = perQuery.get(q) ?? { times: [], hits: [] };
      e.times.push(t.medianMs);
      e.hits.push(t.hits ?? 0);
      perQuery.set(q, e);
    }
    const searchByQuery = [...perQuery].map(([q, e]) => ({
      q,
      requests: e.times.length,
      medianMs: e.times.sort((a, b) => a - b)[Math.floor((e.times.length - 1) / 2)]!,
      maxMs: Math.max(...e.times),
      meanHits: e.hits.reduce((a, b) => a + b, 0) / e.hits.length,
    }));
    return {
      http: {
        lookupPool,
        searchPool,
        lookup,
        search,
        lookupC1,
        searchC1,
        mixedSearch,
        mixedLookupC1,
        searchByQuery,
        drains,
        rssIdle,
        rssAfter,
      },
      bare:
        bare && bareLookup && bareSearch && bareLookupC1
          ? {
              lookup: bareLookup,
              search: bareSearch,
              lookupC1: bareLookupC1,
              bodyBytes: { lookup: lookupPool.meanBytes, search: searchPool.meanBytes },
            }
          : null,
    };
  } finally {
    await bare?.stop();
  }
}

const results: BenchResults = {
  mode: quick ? 'quick' : 'full',
  command: `npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  startedAt: startedAt.toISOString(),
  finishedAt: '',
  wallMs: 0,
  machine: machine(),
  settings,
  cliFloorMs: 0,
  pure: [],
  sample: null,
  meter: null,
  citations: null,
  bulkLoad: [],
  scale: null,
  searchTerms: null,
  availability: null,
  profiles: [],
  ingestProfile: null,
  error: null,
};

/**
 * `--only NAME`: one section measured again alone and put into the committed results, which say so (its `…Run` record:
 * when, on which commit, by which command); the rest of the committed figures stay as they were.
 */
type RunKey = 'bundlesRun' | 'uslmIngestRun' | 'dcCodeRun' | 'loadedRun' | 'federalRun' | 'citationsRun' | 'bulkLoadRun' | 'diffRun';
interface OnlySection {
  what: string;
  run: RunKey;
  measure(into: BenchResults): Promise<void>;
}
const uslmDir = args['uslm-dir'] ?? DEFAULT_USLM_DIR;
const onlySections: Record<string, OnlySection> = {
  bulk: {
    what: 'CourtListener bulk-data load (streamed into the replica on PGlite)',
    run: 'bulkLoadRun',
    measure: async (r) => {
      r.bulkLoad = await bulkLoadFigures(BULK_SIZES, log);
    },
  },
  bundles: {
    what: 'Lambda bundles: size and module init, per endpoint function',
    run: 'bundlesRun',
    measure: async (r) => {
      r.bundles = await bundleFigures(log);
    },
  },
  ingest: {
    what: `USLM ingest on the real files (${uslmDir})`,
    run: 'uslmIngestRun',
    measure: async (r) => {
      r.uslmIngest = await uslmIngestFigures(uslmDir, log);
    },
  },
  dc: {
    what: `D.C. Code history (${args['dc-repo']}) through asof fetch dc-code`,
    run: 'dcCodeRun',
    measure: async (r) => {
      if (!args['dc-repo']) throw new Error("--only dc needs --dc-repo PATH (a bundle or clone of the D.C. Council's law-xml-codified)");
      r.dcCode = await dcCodeFigures(args['dc-repo'], log);
    },
  },
  loaded: {
    what: 'The loaded corpus: sample, federal titles, D.C. Code history, state codes, through the CLI',
    run: 'loadedRun',
    measure: async (r) => {
      try {
        r.loaded = await loadedFigures(loadedSources(await temp('loaded')), loadedSettings, log);
      } finally {
        if (args.keep) log(`kept ${temps.join(', ')}`);
        else await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
      }
    },
  },
  federal: {
    what: `Lookup and search on the federal corpus (${uslmDir}) next to the sample`,
    run: 'federalRun',
    measure: async (r) => {
      r.federal = await federalFigures(uslmDir, federalSettings, log);
    },
  },
  diff: {
    what: 'Diff of two versions on the longest real D.C. section, and a pathological pair',
    run: 'diffRun',
    measure: async (r) => {
      r.diff = await diffFigures({ quick, unbounded: !quick }, log);
    },
  },
  citations: {
    what: 'Citation extraction',
    run: 'citationsRun',
    measure: async (r) => {
      r.citations = await citationFigures({
        quick,
        log,
        ...(args['caselaw-data'] && { caselawDir: args['caselaw-data'] }),
        ...(args['baseline-extractor'] && { baselineExtractor: args['baseline-extractor'] }),
        ...(args['baseline-commit'] && { baselineCommit: args['baseline-commit'] }),
      });
    },
  },
};
if (args.only !== undefined) {
  const section = onlySections[args.only];
  if (!section) throw new Error(`--only knows these sections: ${Object.keys(onlySections).join(', ')} (got '${args.only}')`);
  const previous = JSON.parse(await readFile(join(REPO, 'bench', 'results.json'), 'utf8')) as BenchResults;
  log(`${section.what}, alone`);
  await section.measure(previous);
  previous[section.run] = { at: new Date().toISOString(), commit: machine().commit, command: results.command };
  await writeFile(join(REPO, 'bench', 'results.json'), `${JSON.stringify(previous, null, 2)}\n`);
  await writeFile(join(REPO, 'bench', 'RESULTS.md'), renderReport(previous));
  log(`wrote the figures of --only ${args.only} into bench/RESULTS.md and bench/results.json`);
  process.exit(0);
}

const running: { stop(): Promise<unknown> }[] = [];
const stopAll = async () => {
  await Promise.allSettled(running.splice(0).map((s) => s.stop()));
};

try {
  log(
    `asof bench, ${results.mode} mode: ${settings.sections.toLocaleString('en-US')} synthetic sections × 3 editions; loads of ${settings.durationS} s at ${settings.connections} connections`,
  );
  log(
    `machine: ${results.machine.cpuModel}, ${results.machine.cores} cores, ${(results.machine.ramBytes / 2 ** 30).toFixed(1)} GiB, node ${results.machine.node}, ${results.machine.os}`,
  );

  const sampleDocs = await readSampleCorpus();
  const pool = textPool(sampleDocs);
  const profiles: CpuBreakdown[] = [];

  // ---- in-process pieces --------------------------------------------------------------------------------------
  log('in-process pieces');
  const body = sampleDocs.find((d) => d.key === '1-112b')?.bodyText ?? sampleDocs[0]!.bodyText;
  results.pure = await pureFigures(body);
  for (const f of results.pure) log(`  ${f.name}: ${f.opsPerSec.toFixed(0)} ops/s (${f.meanUs.toFixed(1)} µs)`);
  results.cliFloorMs = await cliFloorMs();
  log(`  asof openapi (node + tsx + code, no store): ${results.cliFloorMs.toFixed(0)} ms`);

  // ---- case-law citation extraction (in process) -------------------------------------------------------------
  log('citation extraction');
  results.citations = await citationFigures({
    quick,
    log,
    ...(args['caselaw-data'] && { caselawDir: args['caselaw-data'] }),
    ...(args['baseline-extractor'] && { baselineExtractor: args['baseline-extractor'] }),
    ...(args['baseline-commit'] && { baselineCommit: args['baseline-commit'] }),
  });
  log('CourtListener bulk-data load (streamed into the replica on PGlite)');
  results.bulkLoad = await bulkLoadFigures(BULK_SIZES, log);
  log('Lambda bundles: size and module init, per endpoint function');
  results.bundles = await bundleFigures(log);
  log(`USLM ingest on the real files (${args['uslm-dir'] ?? DEFAULT_USLM_DIR})`);
  results.uslmIngest = await uslmIngestFigures(args['uslm-dir'] ?? DEFAULT_USLM_DIR, log);
  log(`Lookup and search on the federal corpus (${args['uslm-dir'] ?? DEFAULT_USLM_DIR}) next to the sample`);
  results.federal = await federalFigures(args['uslm-dir'] ?? DEFAULT_USLM_DIR, federalSettings, log);
  log('The loaded corpus: sample, federal titles, D.C. Code history, state codes, through the CLI');
  results.loaded = await loadedFigures(loadedSources(await temp('loaded')), loadedSettings, log);

  // ---- the bundled sample ----------------------------------------------------------------------------------
  const sampleDir = await temp('sample');
  log(`sample corpus: first start on an empty data dir (${sampleDir})`);
  const server = await startServer(sampleDir);
  running.push(server);
  const coldStart = startupFigure('first start, empty data dir (initdb + sample ingest)', server);
  log(`  serving after ${coldStart.servingMs.toFixed(0)} ms, healthy after ${coldStart.healthMs.toFixed(0)} ms`);
  const headers = rotatingAuth(await createKeys(sampleDir, settings.keys));
  const sampleLookups = sampleLookupPaths(sampleDocs);
  const sampleHttp = await measureServer('sample', server, headers, sampleLookups, sampleSearchPaths(), true);
  await server.stop();
  running.length = 0;
  results.meter = await measureMeter(sampleDir, sampleLookups, sampleSearchPaths(), headers, {
    lookup: sampleHttp.http.lookup,
    lookupC1: sampleHttp.http.lookupC1,
  });
  log('sample corpus: the same loads on `asof serve --no-cache` (every request reads the stores)');
  const uncachedServer = await startServer(sampleDir, { cache: false });
  running.push(uncachedServer);
  const sampleHttpNoCache = await measureServer('sample, no cache', uncachedServer, headers, sampleLookups, sampleSearchPaths(), false);
  await uncachedServer.stop();
  running.length = 0;

  if (!args['no-profile']) {
    log('sample corpus: profiled runs (server under --cpu-prof)');
    for (const cache of [true, false]) {
      for (const [kind, paths] of [
        ['lookup', sampleLookups],
        ['search', sampleSearchPaths()],
      ] as const) {
        const p = await profileLoad({
          name: `${kind}, sample${cache ? '' : ', no cache'}`,
          dataDir: sampleDir,
          paths,
          headers,
          durationS: settings.profileS,
          cache,
        });
        log(
          `  ${p.name}: ${p.shares
            .slice(0, 4)
            .map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`)
            .join(', ')}`,
        );
        profiles.push(p);
      }
    }
  }

  log(`sample corpus: ${settings.warmStarts} starts on the loaded data dir`);
  const warm = await warmStarts(sampleDir, settings.warmStarts, 'warm start, sample loaded');
  for (const w of warm) log(`  ${w.label}: serving ${w.servingMs.toFixed(0)} ms, healthy ${w.healthMs.toFixed(0)} ms`);
  const sampleMatches = await searchMatches(sampleDir, SEARCH_QUERIES, MATCHES_AS_OF);
  results.sample = {
    coldStart,
    warmStarts: warm,
    http: sampleHttp.http,
    httpNoCache: sampleHttpNoCache.http,
    bare: sampleHttp.bare!,
    matches: sampleMatches,
  };
  results.profiles = profiles;
  await rm(sampleDir, { recursive: true, force: true });

  // ---- scale ------------------------------------------------------------------------------------------------
  const xmlDir = await temp('xml');
  const dataDir = await temp('scale');
  log(`scale: ${settings.sections.toLocaleString('en-US')} sections × 3 editions through runIngest (${xmlDir} → ${dataDir})`);
  const ingest = await buildScaleStore({ pool, sections: settings.sections, xmlDir, dataDir, log });
  await rm(xmlDir, { recursive: true, force: true });
  const ingestS = ingest.worker.ingestMs / 1000;
  log(
    `  ${ingest.versions} versions in ${ingestS.toFixed(0)} s: ${(ingest.versions / ingestS).toFixed(0)} versions/s, ${(ingest.xmlBytes / 2 ** 20 / ingestS).toFixed(2)} MiB/s; peak RSS ${(ingest.worker.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
  );

  const big = await startServer(dataDir);
  running.push(big);
  const scaleStart = startupFigure(`warm start, ${ingest.versions.toLocaleString('en-US')} versions`, big);
  log(`  serving after ${scaleStart.servingMs.toFixed(0)} ms, healthy after ${scaleStart.healthMs.toFixed(0)} ms`);
  const bigHeaders = rotatingAuth(await createKeys(dataDir, settings.keys));
  const lookupPaths = syntheticLookupPaths(settings.sections, 5000);
  const searchPaths = syntheticSearchPaths();
  const scaleHttp = await measureServer('scale', big, bigHeaders, lookupPaths, searchPaths, false);
  await big.stop();
  running.length = 0;
  // PGlite takes one process per data dir: measured here, in this process, while no server holds it.
  log('scale: search cost by the number of words of q (the search adapter on the data dir, in process)');
  results.searchTerms = await searchTermCosts(dataDir, pool, log);
  log('scale: the same loads on `asof serve --no-cache`');
  const bigUncached = await startServer(dataDir, { cache: false });
  running.push(bigUncached);
  const scaleHttpNoCache = await measureServer('scale, no cache', bigUncached, bigHeaders, lookupPaths, searchPaths, false);
  const hostile = costliestAccepted(results.searchTerms);
  // The cheap search: the scale pool's cheapest query that has hits, at a date of the pool.
  const cheap = scaleHttpNoCache.http.searchByQuery
    .filter((b) => b.meanHits > 0)
    .reduce((a, b) => (b.medianMs < a.medianMs ? b : a), scaleHttpNoCache.http.searchByQuery[0]!);
  const hostilePath = searchPath(hostile.q, TERMS_AS_OF, null);
  const [accepted] = await probePaths(new URL(bigUncached.url).origin, [hostilePath], bigHeaders);
  if (accepted!.status >= 400 && accepted!.status < 500)
    throw new Error(`the API refuses the hostile search (${accepted!.status}): ${hostilePath}`);
  log(`scale: availability under a hostile search load (${settings.hostileClients.join(', ')} clients of ${hostilePath})`);
  results.availability = await measureAvailability({
    server: bigUncached,
    dataDir,
    headers: bigHeaders,
    lookupPaths,
    cheapPath: searchPath(cheap.q, '2020-06-01', null),
    hostile: { q: hostile.q, shape: hostile.shape, words: hostile.words, adapterMs: hostile.medianMs },
    hostilePath,
    clients: settings.hostileClients,
    durationS: settings.availabilityS,
    log,
  });
  await bigUncached.stop();
  running.length = 0;
  const scaleMatches = await searchMatches(dataDir, SEARCH_QUERIES, MATCHES_AS_OF);
  if (!args['no-profile']) {
    log('scale: profiled runs');
    for (const cache of [true, false]) {
      for (const [kind, paths] of [
        ['lookup', lookupPaths],
        ['search', searchPaths],
      ] as const) {
        const name = `${kind}, ${ingest.versions.toLocaleString('en-US')} versions${cache ? '' : ', no cache'}`;
        const p = await profileLoad({ name, dataDir, paths, headers: bigHeaders, durationS: settings.profileS, cache });
        log(
          `  ${p.name}: ${p.shares
            .slice(0, 4)
            .map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`)
            .join(', ')}`,
        );
        profiles.push(p);
      }
    }
  }
  results.scale = { ingest, start: scaleStart, http: scaleHttp.http, httpNoCache: scaleHttpNoCache.http, matches: scaleMatches };

  if (!args['no-profile']) {
    log('ingest: a profiled small ingest (2,000 sections × 3 editions)');
    results.ingestProfile = await profileIngest(pool, 2000);
    log(
      `  ${results.ingestProfile.shares
        .slice(0, 5)
        .map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`)
        .join(', ')}`,
    );
  }
} catch (err) {
  results.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  log(`FAILED: ${results.error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
  results.finishedAt = new Date().toISOString();
  results.wallMs = performance.now() - began;
  if (results.sample) {
    await writeFile(join(REPO, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(join(REPO, 'bench', 'RESULTS.md'), renderReport(results));
    log(`wrote bench/RESULTS.md and bench/results.json (${(results.wallMs / 60_000).toFixed(1)} min)`);
  }
  if (args.keep) log(`kept ${temps.join(', ')}`);
  else await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
}
