/**
 * The scenarios of `npm run bench`, in the order they run and are reported: issue 30's targets first (lookups, the
 * meter, ingest, the D.C. history, the server at scale, search), then the secondary ones (citations, diff,
 * availability, bundles). Each measures through what a user runs — `asof serve` and `asof` commands as child
 * processes (bench/proc.ts), HTTP through real sockets (bench/http-load.ts) — so none depends on the store engine
 * the laptop runs; the key store is the one exception, behind bench/store-access.ts. Each returns its figures;
 * bench/run.ts records them in bench/results.json.
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { measureAvailability } from './availability.ts';
import { bundleFigures } from './bundles.ts';
import { citationFigures } from './citations.ts';
import { diffFigures } from './diff.ts';
import { type LoadResult, probePaths, runLoad, startBareServer, timeSequential } from './http-load.ts';
import { procStatus, REPO, type RunningServer, runNode, startServer } from './proc.ts';
import type { Figure } from './results.ts';
import type { SampleDocument } from './sample-corpus.ts';
import { runIngestWorker, type ScaleIngest } from './scale.ts';
import type { TextPool } from './synthetic-uslm.ts';
import {
  lookupPath,
  sampleLookupPaths,
  searchPath,
  syntheticLookupPaths,
  syntheticSearchPool,
  syntheticSearchWords,
  TARGETS,
} from './targets.ts';

const ASOF = resolve(REPO, 'bin/asof.js');
const MIB = 2 ** 20;

export interface Settings {
  connections: number;
  warmupS: number;
  durationS: number;
  /** Synthetic versions at scale: three editions of `versions / 3` sections. */
  versions: number;
  sections: number;
  /** Keys a load spreads its requests over (120 a minute each at most: none meets its ceiling). */
  keys: number;
  starts: number;
  hostileClients: number[];
  availabilityS: number;
}

export interface Context {
  quick: boolean;
  settings: Settings;
  log(line: string): void;
  /** A temp dir removed at the end of the run (unless `--keep`). */
  temp(name: string): Promise<string>;
  /** Servers to stop if the run is cut short. */
  running: { stop(): Promise<unknown> }[];
  args: {
    dcRepo?: string;
    uslmDir?: string;
    statesDir?: string;
    caselawData?: string;
    baselineCommit?: string;
    baselineExtractor?: string;
  };
  sampleDocs: SampleDocument[];
  pool: TextPool;
  /** The sample's data dir (first start of `asof serve` on an empty dir ingests it), made once a run. */
  sample(): Promise<{ dir: string }>;
  /** The synthetic corpus at `settings.versions`, ingested once a run. */
  scale(): Promise<{ dir: string; ingest: ScaleIngest }>;
  /** `settings.keys` live keys of a data dir, made once a run per data dir. */
  headers(dir: string): Promise<Record<string, string>>;
}

export interface Scenario {
  id: string;
  what(ctx: Context): string;
  /** Secondary scenarios left out of a full run unless named in `--only` (none today); skipped when they cannot run. */
  skip?(ctx: Context): string | null;
  run(ctx: Context, figures: Figure[]): Promise<void>;
}

// ---- helpers ---------------------------------------------------------------------------------------------------

const statusMix = (r: LoadResult) =>
  Object.entries(r.byStatus)
    .map(([s, v]) => `${s}×${v.count}`)
    .join(' ');

/** 5xx answers and socket errors of some loads: a fast error is no figure. */
const failedAnswers = (loads: LoadResult[]): Figure => ({
  label: '5xx answers and socket errors, all loads above',
  value: loads.reduce(
    (n, r) => n + r.errors + r.timeouts + Object.entries(r.byStatus).reduce((m, [s, v]) => m + (Number(s) >= 500 ? v.count : 0), 0),
    0,
  ),
  unit: 'count',
  target: TARGETS.failedAnswers,
});

async function withServer<T>(
  ctx: Context,
  dir: string,
  opts: { cache?: boolean; meter?: boolean },
  fn: (s: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await startServer(dir, opts);
  ctx.running.push(server);
  try {
    return await fn(server);
  } finally {
    await server.stop();
    ctx.running.splice(ctx.running.indexOf(server), 1);
  }
}

async function load(
  ctx: Context,
  name: string,
  origin: string,
  paths: readonly string[],
  pid: number,
  headers: Record<string, string> = {},
) {
  const s = ctx.settings;
  const r = await runLoad({
    name,
    origin,
    paths,
    headers,
    serverPid: pid,
    connections: s.connections,
    durationS: s.durationS,
    warmupS: s.warmupS,
  });
  ctx.log(
    `  ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms (${statusMix(r)}${r.errors ? `, ${r.errors} errors` : ''})`,
  );
  for (const e of r.serverErrors) ctx.log(`    ${e.count} × ${e.body}`);
  return r;
}

/** Lookups on `asof serve --no-cache --no-meter` and, in the same run, a bare node:http server answering a body of their mean size. */
async function lookupsBesideBare(
  ctx: Context,
  label: string,
  dir: string,
  paths: string[],
): Promise<{ asof: LoadResult; bare: LoadResult }> {
  const headers = await ctx.headers(dir);
  return withServer(ctx, dir, { cache: false, meter: false }, async (server) => {
    const origin = new URL(server.url).origin;
    const probe = await probePaths(origin, paths, headers);
    const meanBytes = probe.reduce((n, p) => n + p.bytes, 0) / probe.length;
    const bareServer = await startBareServer(meanBytes, meanBytes);
    try {
      const bare = await load(
        ctx,
        `bare node:http, ${Math.round(meanBytes)}-byte body`,
        bareServer.origin,
        paths.map((_, i) => `/lookup/${i}`),
        bareServer.pid,
      );
      const asof = await load(ctx, `asof lookup (${label}, --no-cache --no-meter)`, origin, paths, server.pid, headers);
      return { asof, bare };
    } finally {
      await bareServer.stop();
    }
  });
}

function lookupFigures(label: string, r: { asof: LoadResult; bare: LoadResult }, p99: typeof TARGETS.lookupP99SampleMs): Figure[] {
  const c = r.asof.connections;
  return [
    {
      label: `lookup req/s, ${c} connections (${label})`,
      value: r.asof.rps,
      unit: 'req/s',
      baseline: { label: 'bare node:http, same body size', value: r.bare.rps },
      target: TARGETS.lookupVsBare,
    },
    { label: `lookup p50 (${label})`, value: r.asof.latency.p50, unit: 'ms', baseline: { label: 'bare', value: r.bare.latency.p50 } },
    {
      label: `lookup p99 (${label})`,
      value: r.asof.latency.p99,
      unit: 'ms',
      baseline: { label: 'bare', value: r.bare.latency.p99 },
      target: p99,
    },
  ];
}

const scaleLabel = (ctx: Context) => `${ctx.settings.versions.toLocaleString('en-US')} versions`;
const scaleLookupPaths = (ctx: Context) => syntheticLookupPaths(ctx.settings.sections, 5000);

/** `asof …` as a child process: the JSON it prints last, its wall time and peak RSS. */
async function asof(args: string[], log: (line: string) => void): Promise<{ json: unknown; ms: number; peakRssBytes: number }> {
  let shownAt = 0;
  const r = await runNode([ASOF, ...args], {
    onStdoutLine: (line) => {
      if (Date.now() - shownAt > 10_000 && !/^[{}\s"[\]]/.test(line)) {
        shownAt = Date.now();
        log(`    ${line.slice(0, 200)}`);
      }
    },
  });
  // The JSON is printed last, on one line or pretty (its first line then a lone `{` or `[`).
  const lines = r.stdout.trimEnd().split('\n');
  for (let at = lines.length - 1; at >= 0; at--) {
    if (!/^[{[]/.test(lines[at]!)) continue;
    try {
      return { json: JSON.parse(lines.slice(at).join('\n')) as unknown, ms: r.ms, peakRssBytes: r.peakRssBytes };
    } catch {
      // a line of the pretty JSON's inside, or progress: look further up
    }
  }
  throw new Error(`asof ${args.join(' ')} printed no JSON:\n${r.stdout}`);
}

async function filesUnder(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && pattern.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

// ---- the scenarios ---------------------------------------------------------------------------------------------

const lookups: Scenario = {
  id: 'lookups',
  what: (ctx) =>
    `lookups on asof serve --no-cache --no-meter beside a bare node:http server, ${ctx.settings.connections} connections, at the sample and at ${scaleLabel(ctx)}`,
  async run(ctx, figures) {
    const sample = await ctx.sample();
    ctx.log('lookups at the sample');
    const atSample = await lookupsBesideBare(ctx, 'sample', sample.dir, sampleLookupPaths(ctx.sampleDocs));
    figures.push(...lookupFigures('sample', atSample, TARGETS.lookupP99SampleMs));
    const scale = await ctx.scale();
    ctx.log(`lookups at ${scaleLabel(ctx)}`);
    const atScale = await lookupsBesideBare(ctx, scaleLabel(ctx), scale.dir, scaleLookupPaths(ctx));
    figures.push(...lookupFigures(scaleLabel(ctx), atScale, TARGETS.lookupP99ScaleMs), failedAnswers([atSample.asof, atScale.asof]));
  },
};

const metered: Scenario = {
  id: 'metered',
  what: (ctx) =>
    `sample lookups on asof serve --no-cache (one charge each, over ${ctx.settings.keys.toLocaleString('en-US')} keys) and on --no-cache --no-meter, ${ctx.settings.connections} connections`,
  async run(ctx, figures) {
    const { dir } = await ctx.sample();
    const headers = await ctx.headers(dir);
    const paths = sampleLookupPaths(ctx.sampleDocs);
    const run = (meter: boolean) =>
      withServer(ctx, dir, { cache: false, meter }, async (server) => {
        const origin = new URL(server.url).origin;
        await probePaths(origin, paths, headers);
        return load(ctx, `asof lookup (sample, --no-cache${meter ? '' : ' --no-meter'})`, origin, paths, server.pid, headers);
      });
    const unmetered = await run(false);
    const withMeter = await run(true);
    figures.push(
      {
        label: `metered lookup req/s, ${withMeter.connections} connections (sample)`,
        value: withMeter.rps,
        unit: 'req/s',
        baseline: { label: '--no-meter', value: unmetered.rps },
        target: TARGETS.meteredVsUnmetered,
      },
      {
        label: 'metered lookup p50 (sample)',
        value: withMeter.latency.p50,
        unit: 'ms',
        baseline: { label: '--no-meter', value: unmetered.latency.p50 },
      },
      {
        label: 'metered lookup p99 (sample)',
        value: withMeter.latency.p99,
        unit: 'ms',
        baseline: { label: '--no-meter', value: unmetered.latency.p99 },
      },
      {
        label: '429 answers (a key at its ceiling)',
        value: withMeter.byStatus['429']?.count ?? 0,
        unit: 'count',
        target: TARGETS.meteredCeilingAnswers,
      },
      failedAnswers([unmetered, withMeter]),
    );
  },
};

const ingest: Scenario = {
  id: 'ingest',
  what: (ctx) =>
    `the synthetic title (${ctx.settings.sections.toLocaleString('en-US')} sections × 3 editions) through the real ingest path, then again unchanged` +
    `${ctx.args.uslmDir ? `; asof ingest uslm on ${ctx.args.uslmDir}` : ''}${ctx.args.statesDir ? `; asof fetch state-code on ${ctx.args.statesDir}` : ''}`,
  async run(ctx, figures) {
    const { ingest: built, dir } = await ctx.scale();
    const first = built.worker;
    const s = first.ingestMs / 1000;
    figures.push(
      {
        label: `synthetic ingest, ${built.versions.toLocaleString('en-US')} versions`,
        value: built.versions / s,
        unit: 'versions/s',
        target: TARGETS.ingestVersionsPerS,
      },
      { label: 'synthetic ingest, MB/s of XML', value: built.xmlBytes / 1e6 / s, unit: 'MB/s' },
      { label: 'synthetic ingest, peak RSS', value: (first.peakRssAfterIngestBytes ?? first.peakRssBytes) / MIB, unit: 'MiB' },
      { label: 'data dir size after the ingest', value: built.dataDirBytes / MIB, unit: 'MiB' },
    );
    ctx.log('ingest: the same three editions again, nothing changed');
    const again = await runIngestWorker(
      dir,
      built.editions.map((e) => e.file),
      ctx.log,
      false,
    );
    figures.push({
      label: 'synthetic ingest, first run ÷ unchanged re-run (s)',
      value: s,
      unit: 's',
      baseline: { label: 'unchanged re-run', value: again.worker.ingestMs / 1000 },
      target: TARGETS.rerunSpeedup,
    });
    if (ctx.args.uslmDir) {
      const files = await filesUnder(resolve(ctx.args.uslmDir), /\.(zip|xml)$/i);
      ctx.log(`ingest: asof ingest uslm, ${files.length} files under ${ctx.args.uslmDir}`);
      const r = await asof(['ingest', 'uslm', ...files, '--json', '--data-dir', await ctx.temp('uslm')], ctx.log);
      const puts = (r.json as { writes: { put: number } }[]).reduce((n, e) => n + e.writes.put, 0);
      figures.push({
        label: `asof ingest uslm, real titles (${puts.toLocaleString('en-US')} versions), end to end`,
        value: puts / (r.ms / 1000),
        unit: 'versions/s',
      });
    }
    if (ctx.args.statesDir) {
      const dataDir = await ctx.temp('states');
      for (const state of ['tn', 'ms']) {
        ctx.log(`ingest: asof fetch state-code ${state} --source ${ctx.args.statesDir}`);
        const r = await asof(
          ['fetch', 'state-code', state, '--source', resolve(ctx.args.statesDir), '--json', '--data-dir', dataDir],
          ctx.log,
        );
        const j = r.json as { editions: number; failed: unknown[] };
        if (j.failed.length) throw new Error(`asof fetch state-code ${state}: ${j.failed.length} files failed`);
        figures.push({ label: `asof fetch state-code ${state}, ${j.editions} editions, end to end`, value: r.ms / 1000, unit: 's' });
      }
    }
  },
};

const dc: Scenario = {
  id: 'dc',
  what: (ctx) => `asof fetch dc-code --repo ${ctx.args.dcRepo ?? '(--dc-repo)'} into an empty data dir, then again with nothing new`,
  skip: (ctx) => (ctx.args.dcRepo ? null : "needs --dc-repo PATH (a bundle or clone of the D.C. Council's law-xml-codified)"),
  async run(ctx, figures) {
    const dataDir = await ctx.temp('dc');
    const args = ['fetch', 'dc-code', '--repo', resolve(ctx.args.dcRepo!), '--json', '--data-dir', dataDir];
    type DcResult = { publications: number; ingested: number; held: number; versionsWritten: number };
    ctx.log('D.C. Code: the whole history into an empty data dir');
    const first = await asof(args, ctx.log);
    const d1 = first.json as DcResult;
    ctx.log(`  ${d1.versionsWritten} versions in ${(first.ms / 1000).toFixed(1)} s; again, nothing new`);
    const again = await asof(args, ctx.log);
    const d2 = again.json as DcResult;
    if (d2.ingested !== 0) ctx.log(`  the re-run ingested ${d2.ingested} publications (expected none)`);
    figures.push(
      {
        label: `asof fetch dc-code, ${d1.versionsWritten.toLocaleString('en-US')} versions of ${d1.publications} publications, end to end`,
        value: d1.versionsWritten / (first.ms / 1000),
        unit: 'versions/s',
        target: TARGETS.dcVersionsPerS,
      },
      { label: 'asof fetch dc-code, peak RSS', value: first.peakRssBytes / MIB, unit: 'MiB' },
      {
        label: 'asof fetch dc-code, first run ÷ unchanged re-run (s)',
        value: first.ms / 1000,
        unit: 's',
        baseline: { label: `re-run, ${d2.held} held`, value: again.ms / 1000 },
        target: TARGETS.rerunSpeedup,
      },
    );
  },
};

const server: Scenario = {
  id: 'server',
  what: (ctx) =>
    `asof serve (as by default) on the data dir of ${scaleLabel(ctx)}: ${ctx.settings.starts} starts, asof keys create while it runs, RSS after lookup and search loads`,
  async run(ctx, figures) {
    const { dir } = await ctx.scale();
    const headers = await ctx.headers(dir);
    const starts: number[] = [];
    for (let i = 0; i < ctx.settings.starts; i++) {
      await withServer(ctx, dir, {}, async (s) => {
        starts.push(s.healthMs);
      });
      ctx.log(`  start #${i + 1} on the loaded data dir: healthy after ${starts.at(-1)!.toFixed(0)} ms`);
    }
    figures.push({
      label: `start on the loaded data dir → first healthy answer (median of ${starts.length})`,
      value: median(starts) / 1000,
      unit: 's',
      target: TARGETS.startS,
    });
    await withServer(ctx, dir, {}, async (s) => {
      const origin = new URL(s.url).origin;
      const made = await asof(['keys', 'create', '--name', 'bench, made while serving', '--json', '--data-dir', dir], ctx.log);
      const { key } = made.json as { key: string };
      const res = await fetch(`${origin}${lookupPath('us', '99-1', '2024-01-01')}`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      ctx.log(`  asof keys create: ${made.ms.toFixed(0)} ms; its first lookup: ${res.status}`);
      figures.push(
        {
          label: 'asof keys create while the server runs (the whole command)',
          value: made.ms / 1000,
          unit: 's',
          target: TARGETS.keysCreateS,
        },
        {
          label: "the new key's first lookup answered 200 (1 = yes)",
          value: res.status === 200 ? 1 : 0,
          unit: 'count',
          target: TARGETS.keyWorksAtOnce,
        },
      );
      const words = syntheticSearchWords(ctx.pool);
      const lookupRun = await load(ctx, `asof lookup (${scaleLabel(ctx)})`, origin, scaleLookupPaths(ctx), s.pid, headers);
      const searchRun = await load(
        ctx,
        `asof search (${scaleLabel(ctx)})`,
        origin,
        syntheticSearchPool([...words.broad, ...words.narrow]),
        s.pid,
        headers,
      );
      const rss = procStatus(s.pid);
      figures.push(
        {
          label: `server RSS after the lookup and search loads (${scaleLabel(ctx)})`,
          value: rss.rss / MIB,
          unit: 'MiB',
          target: TARGETS.serverRssMiB,
        },
        { label: 'server peak RSS so far', value: rss.hwm / MIB, unit: 'MiB' },
        failedAnswers([lookupRun, searchRun]),
      );
    });
  },
};

const search: Scenario = {
  id: 'search',
  what: (ctx) =>
    `broad and narrow searches on asof serve --no-cache --no-meter at ${scaleLabel(ctx)}, ${ctx.settings.connections} connections`,
  async run(ctx, figures) {
    const { dir } = await ctx.scale();
    const headers = await ctx.headers(dir);
    const words = syntheticSearchWords(ctx.pool);
    ctx.log(`search words: broad ${words.broad.map((w) => `"${w}"`).join(', ')}; narrow ${words.narrow.map((w) => `"${w}"`).join(', ')}`);
    await withServer(ctx, dir, { cache: false, meter: false }, async (s) => {
      const origin = new URL(s.url).origin;
      const runs: LoadResult[] = [];
      for (const [kind, list] of [
        ['broad', words.broad],
        ['narrow', words.narrow],
      ] as const) {
        const paths = syntheticSearchPool(list);
        const probe = await probePaths(origin, paths, headers);
        const withHits = probe.filter((p) => (p.hits ?? 0) > 0).length;
        const r = await load(ctx, `asof search, ${kind} (${scaleLabel(ctx)})`, origin, paths, s.pid, headers);
        runs.push(r);
        const words = `"${list.join('", "')}"`;
        figures.push(
          {
            label: `${kind} search p50 (${words}; ${withHits} of ${paths.length} with hits)`,
            value: r.latency.p50,
            unit: 'ms',
            target: TARGETS.searchP50Ms,
          },
          { label: `${kind} search p99`, value: r.latency.p99, unit: 'ms', target: TARGETS.searchP99Ms },
          { label: `${kind} search req/s`, value: r.rps, unit: 'req/s' },
        );
      }
      figures.push(failedAnswers(runs));
    });
  },
};

const citations: Scenario = {
  id: 'citations',
  what: (ctx) =>
    `citation extraction beside the eyecite port, in process${ctx.args.caselawData ? `; held-out opinions of ${ctx.args.caselawData}` : ''}`,
  async run(ctx, figures) {
    const c = await citationFigures({
      quick: ctx.quick,
      log: ctx.log,
      ...(ctx.args.caselawData && { caselawDir: ctx.args.caselawData }),
      ...(ctx.args.baselineExtractor && { baselineExtractor: ctx.args.baselineExtractor }),
      ...(ctx.args.baselineCommit && { baselineCommit: ctx.args.baselineCommit }),
    });
    const reviewed = c.accuracy.reviewed;
    figures.push(
      {
        label: 'bundled opinions, recall (key with reviewed corrections)',
        value: reviewed.recall,
        unit: 'share',
        target: TARGETS.citationRecall,
      },
      { label: 'bundled opinions, precision', value: reviewed.precision, unit: 'share', target: TARGETS.citationPrecision },
    );
    if (c.heldOut)
      figures.push(
        {
          label: `held-out opinions, recall (${c.heldOut.extracted} found)`,
          value: c.heldOut.recall,
          unit: 'share',
          target: TARGETS.heldOutRecall,
        },
        { label: 'held-out opinions, precision', value: c.heldOut.precision, unit: 'share', target: TARGETS.heldOutPrecision },
      );
    const slowest = c.throughput.reduce((a, t) => (t.mbPerSec < a.mbPerSec ? t : a));
    const least = c.throughput.reduce((a, t) => (t.mbPerSec / t.eyeciteMbPerSec < a.mbPerSec / a.eyeciteMbPerSec ? t : a));
    figures.push(
      { label: `slowest throughput (${slowest.corpus})`, value: slowest.mbPerSec, unit: 'MB/s', target: TARGETS.citationMbPerS },
      {
        label: `least speed-up over the eyecite port (${least.corpus})`,
        value: least.mbPerSec,
        unit: 'MB/s',
        baseline: { label: 'eyecite port', value: least.eyeciteMbPerSec },
        target: TARGETS.citationVsEyecite,
      },
      {
        label: `first call in a fresh process (median of ${c.coldRuns.length})`,
        value: c.coldMs,
        unit: 'ms',
        target: TARGETS.citationColdMs,
      },
      {
        label: `parse + resolve 250 citations, p50 of ${c.resolve250.runs}`,
        value: c.resolve250.p50Ms,
        unit: 'ms',
        target: TARGETS.resolve250P50Ms,
      },
    );
  },
};

const diff: Scenario = {
  id: 'diff',
  what: () => 'the diff of two versions (the /law/diff path) on the longest real D.C. section and a pathological pair, in process',
  async run(ctx, figures) {
    const d = await diffFigures({ quick: ctx.quick, unbounded: !ctx.quick }, ctx.log);
    figures.push(
      {
        label: `longest real pair (${d.pair.chars.join(' → ')} chars), p95 of ${d.bounded.runs}`,
        value: d.bounded.p95Ms,
        unit: 'ms',
        target: TARGETS.diffP95Ms,
      },
      {
        label: 'longest real pair, median',
        value: d.bounded.medianMs,
        unit: 'ms',
        baseline: { label: 'jsdiff diffWords', value: d.jsdiffWords.medianMs },
      },
      {
        label: `pathological pair (${d.pathological.what}), bounded, max`,
        value: d.pathological.bounded.maxMs,
        unit: 'ms',
        ...(d.pathological.unboundedMs !== null && { baseline: { label: 'jsdiff unbounded', value: d.pathological.unboundedMs } }),
      },
    );
  },
};

const availability: Scenario = {
  id: 'availability',
  what: (ctx) =>
    `lookups, a cheap search and /health/corpus one at a time on asof serve --no-cache at ${scaleLabel(ctx)}, beside ${ctx.settings.hostileClients.join(', ')} clients of the costliest accepted search`,
  async run(ctx, figures) {
    const { dir } = await ctx.scale();
    const headers = await ctx.headers(dir);
    const words = syntheticSearchWords(ctx.pool);
    await withServer(ctx, dir, { cache: false }, async (s) => {
      const origin = new URL(s.url).origin;
      // The hostile search: of queries of 2 to 16 of the corpus's most widespread words (cycled), the slowest the API answers 200.
      const widespread = [...new Set([...words.broad.flatMap((q) => q.split(' ')), ...words.narrow])];
      const candidates = [2, 4, 8, 16].map((n) => Array.from({ length: n }, (_, i) => widespread[i % widespread.length]!).join(' '));
      const timed = await timeSequential(
        origin,
        candidates.map((q) => searchPath(q, '2020-06-01', null)),
        headers,
        3,
      );
      const accepted: typeof timed = [];
      for (const t of timed) {
        const res = await fetch(`${origin}${t.path}`, { headers });
        await res.arrayBuffer();
        if (res.status === 200) accepted.push(t);
      }
      if (!accepted.length) throw new Error('the API answers none of the hostile candidates 200');
      const hostile = accepted.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
      const q = new URL(hostile.path, origin).searchParams.get('q')!;
      ctx.log(`  hostile search: "${q}" (${hostile.medianMs.toFixed(0)} ms alone)`);
      const result = await measureAvailability({
        server: s,
        dataDir: dir,
        headers,
        lookupPaths: scaleLookupPaths(ctx),
        cheapPath: searchPath(words.narrow[0]!, '2020-06-01', null),
        hostile: { q, shape: 'widespread words', words: q.split(' ').length, adapterMs: hostile.medianMs },
        hostilePath: hostile.path,
        clients: ctx.settings.hostileClients,
        durationS: ctx.settings.availabilityS,
        log: ctx.log,
      });
      const calm = result.phases.find((p) => p.clients === 0)!;
      const ok = (r: LoadResult) => (r.byStatus['200']?.count ?? 0) / Math.max(1, r.requests);
      for (const p of result.phases.filter((x) => x.clients > 0)) {
        figures.push(
          {
            label: `lookup p99, one at a time, beside ${p.clients} hostile clients`,
            value: p.lookup.latency.p99,
            unit: 'ms',
            baseline: { label: 'no hostile load', value: calm.lookup.latency.p99 },
          },
          { label: `cheap searches answered 200, beside ${p.clients} hostile clients`, value: ok(p.search), unit: 'share' },
          { label: `/health/corpus answered 200, beside ${p.clients} hostile clients`, value: ok(p.health), unit: 'share' },
        );
      }
    });
  },
};

const bundles: Scenario = {
  id: 'bundles',
  what: () => 'every Lambda function bundled as lib/asof-function.ts deploys it: size, and module init in fresh processes',
  async run(ctx, figures) {
    const b = await bundleFigures(ctx.log);
    const endpoints = b.functions.filter((f) => !f.name.startsWith('job-'));
    const largest = endpoints.reduce((a, f) => (f.bytes > a.bytes ? f : a));
    const slowest = endpoints.reduce((a, f) => (f.medianMs > a.medianMs ? f : a));
    const empty = b.baselines[0];
    figures.push(
      { label: `largest endpoint bundle (${largest.name})`, value: largest.bytes / 1024, unit: 'KiB', target: TARGETS.bundleKiB },
      {
        label: `slowest endpoint init, median of ${b.runs} (${slowest.name})`,
        value: slowest.medianMs,
        unit: 'ms',
        ...(empty && { baseline: { label: empty.name, value: empty.medianMs } }),
        target: TARGETS.bundleInitMs,
      },
    );
  },
};

export const SCENARIOS: readonly Scenario[] = [lookups, metered, ingest, dc, server, search, citations, diff, availability, bundles];
