import { QUERY_MAX_CHARS, QUERY_MAX_WORDS } from '#law/search.ts';
import { DEFAULT_SQL_TIMEOUTS } from '#stores/postgres/sql-client.ts';
import type { AvailabilityPhase, AvailabilityResults } from './availability.ts';
import type { BulkLoadFigure } from './bulk-load.ts';
import type { BundleFigure, BundleResults } from './bundles.ts';
import type { CitationResults } from './citations.ts';
import type { DcCodeFigures } from './dc-code.ts';
import type { DiffFigures, DiffTiming } from './diff.ts';
import type { FederalCorpusFigures, FederalFigures, FederalRuns } from './federal.ts';
import { type LoadResult, percentiles } from './http-load.ts';
import type { IngestWorkerResult } from './ingest-worker.ts';
import type { LoadedFigures } from './loaded.ts';
import type { Machine } from './machine.ts';
import type { CpuBreakdown, IngestBreakdown } from './profile.ts';
import type { OpsFigure } from './pure.ts';
import type { ScaleIngest } from './scale.ts';
import type { SearchMatches } from './search-matches.ts';
import type { SearchTermCell, SearchTermCosts } from './search-terms.ts';
import type { StartupFigure } from './startup.ts';
import { EDITION_DATES, SECTIONS_PER_CHAPTER, SYNTHETIC_TITLE } from './synthetic-uslm.ts';
import { SAMPLE_DATES, SEARCH_QUERIES } from './targets.ts';
import type { UslmIngestFigures } from './uslm-ingest.ts';

/** bench/RESULTS.md from the figures of one run. */

export interface PoolStats {
  distinct: number;
  statuses: Record<string, number>;
  meanBytes: number;
  withHits?: number;
  meanHits?: number;
}

export interface SizeHttp {
  lookupPool: PoolStats;
  searchPool: PoolStats;
  lookup: LoadResult;
  search: LoadResult;
  lookupC1: LoadResult;
  searchC1: LoadResult;
  /** Search at 32 connections and lookup at 1 connection, at the same time. */
  mixedSearch: LoadResult;
  mixedLookupC1: LoadResult;
  /** Per query, one request at a time: median over its pool entries of each entry's median of 3. */
  searchByQuery: { q: string; requests: number; medianMs: number; maxMs: number; meanHits: number }[];
  /** After each asof run: how long the server took to answer a trivial search (the queue it still had to work off). */
  drains: { after: string; ms: number }[];
  rssIdle: { rss: number; hwm: number };
  rssAfter: { rss: number; hwm: number };
}

export interface BareResults {
  lookup: LoadResult;
  search: LoadResult;
  lookupC1: LoadResult;
  bodyBytes: { lookup: number; search: number };
}

/** The meter's cost: the sample's lookup loads with the meter (the server as it runs) and with `--no-meter`. */
export interface MeterResults {
  metered: { lookup: LoadResult; lookupC1: LoadResult };
  unmetered: { lookup: LoadResult; lookupC1: LoadResult; search?: LoadResult };
}

export interface BenchResults {
  mode: 'quick' | 'full';
  command: string;
  startedAt: string;
  finishedAt: string;
  wallMs: number;
  machine: Machine;
  settings: {
    connections: number;
    warmupS: number;
    durationS: number;
    c1DurationS: number;
    profileS: number;
    warmStarts: number;
    sections: number;
    keys: number;
    /** § 7: the hostile clients of each phase after the baseline, and each phase's length. */
    hostileClients?: number[];
    availabilityS?: number;
  };
  cliFloorMs: number;
  pure: OpsFigure[];
  /** `http`: the server as it runs by default (caches on); `httpNoCache`: `asof serve --no-cache`. */
  sample: {
    coldStart: StartupFigure;
    warmStarts: StartupFigure[];
    http: SizeHttp;
    httpNoCache: SizeHttp;
    bare: BareResults;
    matches: SearchMatches;
  } | null;
  meter: MeterResults | null;
  citations: CitationResults | null;
  bulkLoad: BulkLoadFigure[];
  /** Set when the bulk-load figures were measured by a later `--only bulk` run than the rest. */
  bulkLoadRun?: { at: string; commit: string; command: string };
  citationsRun?: { at: string; commit: string; command: string };
  /** Each endpoint function's bundle and module init, beside the floor (AWS stack issue). */
  bundles?: BundleResults;
  bundlesRun?: { at: string; commit: string; command: string };
  /** USLM ingest on real OLRC files: first load, unchanged re-run, the largest and smallest title (issue 16). */
  uslmIngest?: UslmIngestFigures | null;
  dcCode?: DcCodeFigures | null;
  /**
   * § 1h, the embedded search engine candidates: measured by hand with bench/search-engines.ts (one engine per run,
   * tens of minutes each), kept here as written so that a report rendered again keeps it.
   */
  searchEnginesByHand?: string[];
  dcCodeRun?: { at: string; commit: string; command: string };
  uslmIngestRun?: { at: string; commit: string; command: string };
  /** § 1f: lookup and search on the federal corpus of the OLRC zips next to the sample (issue 16). */
  federal?: FederalFigures | null;
  federalRun?: { at: string; commit: string; command: string };
  /** § 1i: the real loaded corpus (sample, federal zips, D.C. history, states), loaded through the CLI (issue 17). */
  loaded?: LoadedFigures | null;
  loadedRun?: { at: string; commit: string; command: string };
  /** § 1j: the diff of two versions on the longest real section, and a pathological pair (issue 19). */
  diff?: DiffFigures | null;
  diffRun?: { at: string; commit: string; command: string };
  scale: { ingest: ScaleIngest; start: StartupFigure; http: SizeHttp; httpNoCache: SizeHttp; matches: SearchMatches } | null;
  /** § 6: search cost by the number of words of `q`, on the scale store. */
  searchTerms?: SearchTermCosts | null;
  /** § 7: the scale server (no cache) under a hostile search load. */
  availability?: AvailabilityResults | null;
  profiles: CpuBreakdown[];
  ingestProfile: IngestBreakdown | null;
  /** Set when the run stopped early: what is above it was measured, the rest not. */
  error: string | null;
}

const TARGETS = {
  lookupP99Ms: 25,
  searchP50Ms: 20,
  warmStartMs: 3000,
  meterAddedP50Ms: 2,
  citationRecall: 0.98,
  citationPrecision: 0.99,
  citationMbPerSec: 20,
  citationVsPort: 50,
  citationColdMs: 150,
  heldOutRecall: 0.998,
  heldOutPrecision: 0.995,
  caseNameMatch: 0.98,
  caseNameSwapped: 0.005,
  formsRecall: 0.99,
  formsPrecision: 0.99,
  denseMbPerSec: 50,
  resolve250P50Ms: 50,
};

const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) : '–');
const sec = (v: number) => `${(v / 1000).toFixed(v >= 100_000 ? 0 : 1)} s`;
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const mib = (v: number) => `${(v / 2 ** 20).toFixed(0)} MiB`;
const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
const ratio = (v: number) => (Number.isFinite(v) ? `${v.toFixed(v < 0.1 ? 4 : 2)}×` : '–');
const verdict = (ok: boolean) => (ok ? '**met**' : '**missed**');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const statuses = (r: LoadResult) =>
  Object.entries(r.byStatus)
    .map(([s, v]) => `${s}: ${pct(v.count / r.requests)}`)
    .join(', ') +
  (r.errors ? `; ${r.errors} socket errors` : '') +
  (r.timeouts ? `; ${r.timeouts} timeouts` : '');
const statusMix = (l: LoadResult) =>
  Object.entries(l.byStatus)
    .map(([status, v]) => `${status}×${int(v.count)}`)
    .join(' ');
const poolMix = (p: PoolStats) =>
  Object.entries(p.statuses)
    .map(([s, n]) => `${n} × ${s}`)
    .join(', ');

const cores = (v: number) => (Number.isFinite(v) ? Math.max(0, v).toFixed(2) : '–');
function loadRow(r: LoadResult, bare?: LoadResult): string {
  const cmp = bare
    ? ` | ${ratio(r.rps / bare.rps)} | +${ms(r.latency.p50 - bare.latency.p50)} / +${ms(r.latency.p99 - bare.latency.p99)}`
    : ' | | ';
  const cpu = `${cores(r.cpu.server)} / ${cores(r.cpu.loadGenerator)} / ${cores(r.cpu.other)}`;
  return `| ${r.name} | ${r.connections} | ${int(r.requests)} | ${int(r.rps)} | ${ms(r.latency.p50)} | ${ms(r.latency.p90)} | ${ms(r.latency.p99)} | ${ms(r.latency.max)} | ${int(r.meanBytes)} | ${statuses(r)} | ${cpu}${cmp} |`;
}
const LOAD_HEAD = [
  '| run | conn. | responses | req/s | p50 ms | p90 ms | p99 ms | max ms | mean bytes | statuses | CPU (cores): server / load generator / other processes | ÷ bare req/s | Δ p50 / Δ p99 vs bare (ms) |',
  '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|',
];

function byStatusRows(r: LoadResult): string[] {
  return Object.entries(r.byStatus).map(([s, v]) => `| ${r.name} | ${s} | ${int(v.count)} | ${ms(v.latency.p50)} | ${ms(v.latency.p99)} |`);
}

function errorLines(runs: LoadResult[]): string[] {
  const lines = runs.flatMap((r) => r.serverErrors.map((e) => `- ${r.name}: ${e.count} × \`${e.body}\``));
  return lines.length ? ['5xx answers (body, request id blanked):', '', ...lines, ''] : [];
}
function drainLine(h: SizeHttp): string[] {
  const slow = h.drains.filter((d) => d.ms > 1000);
  return slow.length
    ? [
        `Work left queued when a run's clients stopped (time until a trivial search was answered; the next run waited for it): ${slow.map((d) => `${sec(d.ms)} after "${d.after}"`).join('; ')}.`,
        '',
      ]
    : [];
}

type SeparateRun = { at: string; commit: string; command: string };
/** The line a section measured by a later `--only` run opens with. */
const measuredSeparately = (run: SeparateRun | undefined): string[] =>
  run ? [`Measured separately from the rest of this file: \`${run.command}\` at ${run.at} on ${run.commit}.`, ''] : [];

const p200 = (r: LoadResult) => r.byStatus['200']?.latency ?? r.latency;

export function renderReport(r: BenchResults): string {
  const L: string[] = [];
  const push = (...lines: string[]) => L.push(...lines);
  const s = r.sample;
  const sc = r.scale;
  const m = r.machine;
  const versions = sc ? int(sc.ingest.versions) : '–';

  push(
    '# asof benchmark results',
    '',
    `Generated by \`${r.command}\` (bin/run-bench.js → bench/run.ts); do not edit by hand. Raw figures: bench/results.json.`,
    '',
    `- **Run:** ${r.startedAt} → ${r.finishedAt} (${(r.wallMs / 60_000).toFixed(1)} min), **${r.mode} mode**` +
      (r.mode === 'quick'
        ? ' (`--quick`: smaller scale corpus, shorter loads; the default is the full run)'
        : ' (the default; `-- --quick` is the short check)'),
    `- **Machine:** ${m.cpuModel}, ${m.cores} cores, ${(m.ramBytes / 2 ** 30).toFixed(1)} GiB RAM; Node ${m.node}; ${m.os}`,
    `- **Code:** ${m.commit}`,
    `- **Loads:** autocannon ${r.settings.connections} connections, ${r.settings.durationS} s measured after ${r.settings.warmupS} s of warm-up; one-connection runs ${r.settings.c1DurationS} s. ` +
      'The load generator runs in the bench process, each server in its own child process; on this machine they share ' +
      `${m.cores} cores, so every req/s figure (the bare server's included) is what is left after the load generator's share.`,
    '',
  );
  if (r.error)
    push(
      '**This run stopped early** with the error below; the sections that follow hold what was measured before it.',
      '',
      '```',
      r.error,
      '```',
      '',
    );

  // ---- summary ----------------------------------------------------------------------------------------------
  if (s) {
    const warmMedian = median(s.warmStarts.map((w) => w.healthMs));
    const c = r.settings.connections;
    /** One figure in the four columns: sample (cache), sample (no cache), scale (cache), scale (no cache). */
    const four = (f: (h: SizeHttp) => string) =>
      `${f(s.http)} | ${f(s.httpNoCache)} | ${sc ? f(sc.http) : '–'} | ${sc ? f(sc.httpNoCache) : '–'}`;
    const p50p99 = (l: LoadResult) => `${ms(l.latency.p50)} / ${ms(l.latency.p99)}`;
    const lookupOk = (h: SizeHttp) => h.lookup.latency.p99 <= TARGETS.lookupP99Ms;
    const searchOk = (h: SizeHttp) => h.search.latency.p50 <= TARGETS.searchP50Ms;
    push(
      '## Summary',
      '',
      '"cache": `asof serve` as it runs by default, answering repeated reads from memory while the stores are unchanged (every request of these ' +
        'pools had been seen once before the load, so this is a warm server); "no cache": `asof serve --no-cache`, every request reads the stores. ' +
        'Both meter every call (one conditional write per request to the embedded DynamoDB, which bounds throughput at 32 connections); the rows ' +
        '"without metering" are the same server with `--no-meter` (§ 1a).',
      '',
      `| figure | sample, cache | sample, no cache | ${sc ? `scale (${versions} versions), cache` : 'scale, cache'} | scale, no cache | target |`,
      '|---|--:|--:|--:|--:|---|',
      `| lookup req/s (${c} connections) | ${four((h) => int(h.lookup.rps))} | |`,
      `| lookup p50 / p99 (ms) | ${four((h) => p50p99(h.lookup))} | p99 ≤ ${TARGETS.lookupP99Ms} ms: ${verdict(lookupOk(s.http))} / ${verdict(lookupOk(s.httpNoCache))} (sample)${sc ? `, ${verdict(lookupOk(sc.http))} / ${verdict(lookupOk(sc.httpNoCache))} (scale)` : ''} |`,
      `| lookup p50 / p99, 1 connection (ms) | ${four((h) => p50p99(h.lookupC1))} | (no queueing) |`,
      `| lookup p50 / max, one at a time, during a ${c}-connection search load (ms) | ${four((h) => `${ms(h.mixedLookupC1.latency.p50)} / ${ms(h.mixedLookupC1.latency.max)}`)} | |`,
      `| search req/s (${c} connections) | ${four((h) => int(h.search.rps))} | |`,
      `| search p50 / p99 (ms) | ${four((h) => p50p99(h.search))} | p50 ≤ ${TARGETS.searchP50Ms} ms: ${verdict(searchOk(s.http))} / ${verdict(searchOk(s.httpNoCache))} (sample)${sc ? `, ${verdict(searchOk(sc.http))} / ${verdict(searchOk(sc.httpNoCache))} (scale)` : ''} |`,
      `| search p50 / p99, 1 connection (ms) | ${four((h) => p50p99(h.searchC1))} | (no queueing) |`,
      `| asof ÷ bare node:http req/s (lookup / search) | ${ratio(s.http.lookup.rps / s.bare.lookup.rps)} / ${ratio(s.http.search.rps / s.bare.search.rps)} | ${ratio(s.httpNoCache.lookup.rps / s.bare.lookup.rps)} / ${ratio(s.httpNoCache.search.rps / s.bare.search.rps)} | | | |`,
      `| server RSS idle → after the loads (peak) | ${four((h) => `${mib(h.rssIdle.rss)} → ${mib(h.rssAfter.rss)} (${mib(h.rssAfter.hwm)})`)} | |`,
      `| start on a loaded data dir → first healthy answer | ${sec(warmMedian)} (median of ${s.warmStarts.length}) | | ${sc ? sec(sc.start.healthMs) : '–'} | | ≤ 3 s: ${verdict(warmMedian <= TARGETS.warmStartMs)} (sample)${sc ? `, ${verdict(sc.start.healthMs <= TARGETS.warmStartMs)} (scale)` : ''} |`,
      `| first start on an empty data dir (incl. sample ingest) → healthy | ${sec(s.coldStart.healthMs)} | | | | |`,
    );
    if (sc) {
      const ing = sc.ingest;
      const ingS = ing.worker.ingestMs / 1000;
      const grow = (a: SizeHttp, b: SizeHttp) =>
        `${ratio(p200(b.lookup).p50 / p200(a.lookup).p50)} / ${ratio(p200(b.lookup).p99 / p200(a.lookup).p99)}`;
      const growC1 = (a: SizeHttp, b: SizeHttp) =>
        `${ratio(p200(b.lookupC1).p50 / p200(a.lookupC1).p50)} / ${ratio(p200(b.lookupC1).p99 / p200(a.lookupC1).p99)}`;
      const growSearch = (a: SizeHttp, b: SizeHttp) =>
        `${ratio(b.search.latency.p50 / a.search.latency.p50)} / ${ratio(b.search.latency.p99 / a.search.latency.p99)}, ${ratio(b.searchC1.latency.p50 / a.searchC1.latency.p50)}`;
      push(
        `| ingest rate (runIngest, 3 editions) | | | ${int(ing.versions / ingS)} versions/s, ${(ing.xmlBytes / 2 ** 20 / ingS).toFixed(2)} MiB/s of XML | | |`,
        `| ingest total time / peak RSS | | | ${sec(ing.worker.ingestMs)} (+ ${sec(ing.worker.coverageMs + ing.worker.auditMs)} coverage and audit) / ${mib(ing.worker.peakRssBytes)} | | |`,
        `| lookup at scale ÷ sample: p50 / p99 (200s only) | | | ${grow(s.http, sc.http)} | ${grow(s.httpNoCache, sc.httpNoCache)} | must not grow |`,
        `| lookup at scale ÷ sample, 1 connection: p50 / p99 (200s only) | | | ${growC1(s.http, sc.http)} | ${growC1(s.httpNoCache, sc.httpNoCache)} | must not grow |`,
        `| search at scale ÷ sample: p50 / p99 (${c} conn.), p50 (1 conn.) | | | ${growSearch(s.http, sc.http)} | ${growSearch(s.httpNoCache, sc.httpNoCache)} | |`,
      );
    }
    if (r.searchTerms) {
      const w = costliestAccepted(r.searchTerms);
      push(
        `| costliest search the API accepts (${w.words} words, § 6), alone on the adapter (ms) | | | | ${ms(w.medianMs)} | ≤ ${sec(REQUEST_BUDGET_MS)} budget: ${verdict(w.medianMs <= REQUEST_BUDGET_MS)} |`,
      );
    }
    const base = r.availability?.phases.find((p) => p.clients === 0);
    for (const p of base ? r.availability!.phases.filter((x) => x.clients > 0) : []) {
      const share = (l: LoadResult, status: string) => pct((l.byStatus[status]?.count ?? 0) / Math.max(1, l.requests));
      push(
        `| under ${p.clients} hostile clients of it (§ 7): lookup p50 / p99 ÷ without; cheap searches answered 200; \`/health/corpus\` 200; probe verdicts ok; PGlite restarts | | | | ` +
          `${ratio(p.lookup.latency.p50 / base!.lookup.latency.p50)} / ${ratio(p.lookup.latency.p99 / base!.lookup.latency.p99)}; ${share(p.search, '200')}; ` +
          `${share(p.health, '200')}; ${p.probes.filter((x) => x.detail === 'ok').length} of ${p.probes.length}; ${p.restartsReopenMs.length} in ${p.durationS} s | |`,
      );
    }
    if (r.meter) {
      const added = r.meter.metered.lookupC1.latency.p50 - r.meter.unmetered.lookupC1.latency.p50;
      const { lookup: ul, search: us } = r.meter.unmetered;
      push(
        `| the law API without metering (\`--no-meter\`, cache): lookup req/s, p50 / p99 (${c} conn.) | ${int(ul.rps)}; ${p50p99(ul)} | | | | p99 ≤ ${TARGETS.lookupP99Ms} ms: ${verdict(ul.latency.p99 <= TARGETS.lookupP99Ms)} |`,
        ...(us
          ? [
              `| the law API without metering (\`--no-meter\`, cache): search req/s, p50 / p99 (${c} conn.) | ${int(us.rps)}; ${p50p99(us)} | | | | p50 ≤ ${TARGETS.searchP50Ms} ms: ${verdict(us.latency.p50 <= TARGETS.searchP50Ms)} |`,
            ]
          : []),
      );
      push(
        `| metering: lookup req/s with ÷ without the meter (${c} conn.); p50 added, 1 connection | ${ratio(r.meter.metered.lookup.rps / r.meter.unmetered.lookup.rps)}; ${ms(added)} ms | | | | ≤ ${TARGETS.meterAddedP50Ms} ms at p50: ${verdict(added <= TARGETS.meterAddedP50Ms)} (§ 1a) |`,
      );
    }
    push('');
  }

  if (r.loaded) push(...loadedSummary(r.loaded));

  // ---- metering ------------------------------------------------------------------------------------------------
  if (r.meter) {
    const { metered, unmetered } = r.meter;
    const row = (label: string, on: LoadResult, off: LoadResult) =>
      `| ${label} | ${int(on.rps)} | ${int(off.rps)} | ${ratio(on.rps / off.rps)} | ${ms(on.latency.p50)} / ${ms(on.latency.p99)} | ${ms(off.latency.p50)} / ${ms(off.latency.p99)} | ` +
      `${ms(on.latency.p50 - off.latency.p50)} / ${ms(on.latency.p99 - off.latency.p99)} | ${statusMix(on)} |`;
    push(
      '## 1a. What metering costs (accounts issue)',
      '',
      "The sample's lookup loads on the server as it runs (key checked, then the call counted in its key's minute, day and month by one " +
        'conditional UpdateItem on the meters table, and a usage record written behind the response in batches of 25) and on ' +
        '`asof serve --no-meter` on the same data dir (key checked, nothing counted). Both with their caches on, so what differs is the meter. ' +
        `Requests are spread over ${int(r.settings.keys)} live keys on the pro plan (120 requests a minute each, the most a key may have), so no call meets a ceiling: ` +
        'the statuses column would show a 429.',
      '',
      '| load | req/s, meter | req/s, --no-meter | ratio | p50 / p99, meter (ms) | p50 / p99, --no-meter (ms) | added p50 / p99 (ms) | statuses (meter) |',
      '|---|--:|--:|--:|--:|--:|--:|---|',
      row(`lookup, ${r.settings.connections} connections`, metered.lookup, unmetered.lookup),
      row('lookup, 1 connection', metered.lookupC1, unmetered.lookupC1),
      '',
    );
  }

  // ---- citations -----------------------------------------------------------------------------------------------
  if (r.citations) push(...citationSection(r.citations, r.citationsRun));
  if (r.bulkLoad?.length) push(...bulkLoadSection(r.bulkLoad, r.bulkLoadRun));
  if (r.bundles?.functions) push(...bundlesSection(r.bundles, r.bundlesRun));
  if (r.uslmIngest) push(...uslmIngestSection(r.uslmIngest, r.uslmIngestRun));
  if (r.federal) push(...federalSection(r.federal, r.federalRun));
  if (r.dcCode) push(...dcCodeSection(r.dcCode, r.dcCodeRun));
  if (r.loaded) push(...loadedSection(r.loaded, r.loadedRun));
  if (r.diff) push(...diffSection(r.diff, r.diffRun));
  if (r.searchEnginesByHand) push(...r.searchEnginesByHand, '');

  // ---- HTTP on the sample ------------------------------------------------------------------------------------
  if (s) {
    push(
      '## 1. HTTP through the local server, bundled sample corpus',
      '',
      '`node bin/asof.js serve --port 0 --data-dir <temp>` on a fresh data dir (the first start loads data/sample), ' +
        `${int(r.settings.keys)} live keys on the pro plan (each request carries the next; every call is metered), then autocannon; ` +
        'then the same loads on `asof serve --no-cache` on the same data dir. Each request draws its path ' +
        "at random (seeded) from a pool; every pool entry was sent once beforehand to learn its status and size, which also warms the server's caches: " +
        'the cached rows are a server that has seen these requests before (answers from memory, exact: see docs/DECISIONS.md, "Local runtime"), the ' +
        '"no cache" rows read the stores for every request (DynamoDB on dynalite for the key and the version, PostgreSQL on PGlite for search).',
      '',
      `- **Lookup pool:** ${s.http.lookupPool.distinct} distinct requests: every key of the sample (US Code, D.C. Code, FRAP, N.D.R.App.P.) at ` +
        `${SAMPLE_DATES.length} dates (${SAMPLE_DATES.join(', ')}), US Code keys alternating with their printed form (\`1 U.S.C. § 112b\`), and four unknown keys; ` +
        `answers: ${poolMix(s.http.lookupPool)} (a date outside a section's versions is 404 \`no_edition_on_file\` with didYouMean, a real answer that costs an extra query).`,
      `- **Search pool:** ${s.http.searchPool.distinct} distinct requests: ${SEARCH_QUERIES.map((q) => `"${q}"`).join(', ')}, each at five dates and with two jurisdiction filters; ` +
        `answers: ${poolMix(s.http.searchPool)}; ${s.http.searchPool.withHits} of them have hits (mean ${s.http.searchPool.meanHits?.toFixed(1)} hits).`,
      `- **Bare baseline:** a plain \`node:http\` server in its own process answering a fixed JSON body of the pools' mean response size ` +
        `(${int(s.bare.bodyBytes.lookup)} bytes for lookup, ${int(s.bare.bodyBytes.search)} for search), same connections, same load generator, same run.`,
      '',
      ...LOAD_HEAD,
      loadRow(s.bare.lookup),
      loadRow(s.http.lookup, s.bare.lookup),
      loadRow(s.bare.search),
      loadRow(s.http.search, s.bare.search),
      loadRow(s.bare.lookupC1),
      loadRow(s.http.lookupC1, s.bare.lookupC1),
      loadRow(s.http.searchC1),
      loadRow(s.http.mixedSearch),
      loadRow(s.http.mixedLookupC1),
      loadRow(s.httpNoCache.lookup, s.bare.lookup),
      loadRow(s.httpNoCache.search, s.bare.search),
      loadRow(s.httpNoCache.lookupC1, s.bare.lookupC1),
      loadRow(s.httpNoCache.searchC1),
      loadRow(s.httpNoCache.mixedSearch),
      loadRow(s.httpNoCache.mixedLookupC1),
      '',
      'Latency by status:',
      '',
      '| run | status | responses | p50 ms | p99 ms |',
      '|---|---|--:|--:|--:|',
      ...[s.http, s.httpNoCache].flatMap((h) => [h.lookup, h.search, h.lookupC1, h.searchC1, h.mixedLookupC1].flatMap(byStatusRows)),
      '',
      'Other processes (the rest of the machine: the load generator apart) take CPU from the server on this 2-core machine: ' +
        'compare a row only where the "other" figures are alike. The sample\'s lookup pool is mostly rule keys (FRAP, FRCP, FRE, FRCrP, FRBP ' +
        'at every date of § 1), the federal one US Code sections only, so the two pools differ in what a lookup reads, not only in the size of the corpus.',
      '',
      ...errorLines([s.http, s.httpNoCache].flatMap((h) => [h.lookup, h.search, h.lookupC1, h.searchC1, h.mixedSearch, h.mixedLookupC1])),
      ...drainLine(s.http),
      ...drainLine(s.httpNoCache),
      `At ${r.settings.connections} connections the latency is mostly queueing: ${r.settings.connections} requests always in flight at ${int(s.httpNoCache.lookup.rps)} req/s ` +
        `means ${ms((r.settings.connections / s.httpNoCache.lookup.rps) * 1000)} ms each on average (Little's law); the one-connection rows show the cost of a request alone. ` +
        'The CPU column says who was busy. Without the cache each lookup costs two DynamoDB calls (the key, the version), each a round trip through the AWS SDK ' +
        'to dynalite, which runs on the same event loop: see section 4. A search costs a PostgreSQL statement on PGlite, which runs in a thread of its own, ' +
        'so a search load does not stall lookups on the event loop (the "one at a time, during the search load" rows). The bare server is limited by the ' +
        'load generator (about one core), so its req/s is a lower bound and the ratios are upper bounds.',
      '',
      `Server RSS (cache): ${mib(s.http.rssIdle.rss)} when the loads began, ${mib(s.http.rssAfter.rss)} after them; peak ${mib(s.http.rssAfter.hwm)} (the first start's sample ingest included). ` +
        `No cache: ${mib(s.httpNoCache.rssIdle.rss)} → ${mib(s.httpNoCache.rssAfter.rss)}.`,
      '',
    );
  }

  // ---- scale ------------------------------------------------------------------------------------------------
  if (sc && s) {
    const ing = sc.ingest;
    const w = ing.worker;
    const ingS = w.ingestMs / 1000;
    push(
      `## 2. Scale: ${int(ing.sections)} sections × 3 editions = ${int(ing.versions)} versions`,
      '',
      `**Corpus.** Three USLM XML editions of a synthetic Title ${SYNTHETIC_TITLE} (a title number no real data uses; \`usc\` accepts it), written to a temp dir by ` +
        `bench/synthetic-uslm.ts, streaming: uscDoc/meta (docNumber, docPublicationName \`Bench@1..3\`, dcterms:created ${EDITION_DATES.join(', ')}), ` +
        `title/chapter (${SECTIONS_PER_CHAPTER} sections each)/section with identifier \`/us/usc/t${SYNTHETIC_TITLE}/sN\`, num, heading, subsections with num and content. ` +
        '**No text is written by hand:** each heading is a real catchline of the bundled sample and each subsection 1–3 real sentences of its sections ' +
        "(enumerators stripped, deduplicated), drawn with a seeded PRNG (mulberry32), so the search index sees the sample's vocabulary and term statistics. " +
        '**Editions:** edition 1 holds every section; editions 2 and 3 each replace the content of one subsection of every section (an amendment), ' +
        `so every section has exactly 3 versions: ${int(ing.versions)} versions. ` +
        `XML: ${mib(ing.xmlBytes)} in all, written in ${sec(ing.generateMs)}; mean section text ${int(ing.parse.meanBodyChars)} characters.`,
      '',
      `**Ingest.** \`runIngest\` on \`openLocalStores\` of a fresh on-disk data dir, in a child process of its own (bench/ingest-worker.ts), ` +
        'followed by what `asof ingest` runs after it (coverage refresh, audit).',
      '',
      '| step | time | rate |',
      '|---|--:|--:|',
      `| open the stores (initdb of a new data dir) | ${sec(w.openMs)} | |`,
      ...w.editions.map(
        (e) =>
          `| edition ${e.label} (${e.date}): ${int(e.documents)} sections, ${int(e.puts)} versions put, ${int(e.setValidTo)} re-dated | ${sec(e.ms)} | ${int(e.puts / (e.ms / 1000))} versions/s |`,
      ),
      `| **runIngest total** | **${sec(w.ingestMs)}** | **${int(ing.versions / ingS)} versions/s, ${(ing.xmlBytes / 2 ** 20 / ingS).toFixed(2)} MiB/s of XML** |`,
      `| coverage refresh${w.coverageError ? ` — **failed**: ${w.coverageError}` : ''} | ${sec(w.coverageMs)} | |`,
      `| audit (${w.auditSummary})${w.auditError ? ` — **threw**: \`${w.auditError}\`` : ''} | ${sec(w.auditMs)} | |`,
      `| worker process, spawn to exit | ${sec(ing.workerWallMs)} | |`,
      '',
      ...(w.auditFindings.length ? ['Audit findings after the ingest:', '', ...w.auditFindings.map((f) => `- ${f}`), ''] : []),
      ...(w.auditError
        ? [
            '**The audit threw after a complete ingest** (what `asof ingest` runs next, so that command exits 1 at this size; the scheduled audit in `asof serve` ' +
              'fails the same way and only logs a warning). The versions and the search index are complete; the figures below are unaffected.',
            '',
          ]
        : []),
      `Peak RSS of the ingest process: **${mib(w.peakRssBytes)}** (VmHWM; ${mib(w.peakRssDuringIngestBytes)} sampled during runIngest). ` +
        `CPU: ${sec(w.cpuUserMs)} user, ${sec(w.cpuSystemMs)} system. The USLM reader alone (no store) reads an edition at ` +
        `${int(ing.parse.opsPerSec)} sections/s (${ing.parse.mbPerSec.toFixed(1)} MiB/s); the ingest reads each file twice (check, then write). ` +
        `Data dir afterwards: DynamoDB (dynalite/LevelDB) ${mib(ing.dataDirBytes.dynamodb)}, PostgreSQL (PGlite) ${mib(ing.dataDirBytes.postgres)}.`,
      '',
      `**Serving it.** \`asof serve\` on that data dir: serving after ${sec(sc.start.servingMs)}, healthy after ${sec(sc.start.healthMs)}, RSS ${mib(sc.start.rss)} at that point.`,
      '',
      `- **Lookup pool:** ${sc.http.lookupPool.distinct} requests: 85 % a random section at a random date after its first edition, 10 % a date before it, ` +
        `5 % a section number past the end (similar-key suggestions); answers: ${poolMix(sc.http.lookupPool)}.`,
      `- **Search pool:** ${sc.http.searchPool.distinct} requests: the same queries at four dates, with and without \`jurisdiction=us\`; ` +
        `${sc.http.searchPool.withHits} of them have hits (mean ${sc.http.searchPool.meanHits?.toFixed(1)} hits).`,
      '',
      ...LOAD_HEAD,
      ...[sc.http, sc.httpNoCache].flatMap((h) =>
        [h.lookup, h.search, h.lookupC1, h.searchC1, h.mixedSearch, h.mixedLookupC1].map((l) => loadRow(l)),
      ),
      '',
      '| run | status | responses | p50 ms | p99 ms |',
      '|---|---|--:|--:|--:|',
      ...[sc.http, sc.httpNoCache].flatMap((h) => [h.lookup, h.search, h.lookupC1, h.searchC1, h.mixedLookupC1].flatMap(byStatusRows)),
      '',
      ...errorLines([sc.http, sc.httpNoCache].flatMap((h) => [h.lookup, h.search, h.lookupC1, h.searchC1, h.mixedSearch, h.mixedLookupC1])),
      ...drainLine(sc.http),
      ...drainLine(sc.httpNoCache),
      '**Against the sample size** (scale ÷ sample, each mode against itself):',
      '',
      '| | req/s | p50 | p99 | p50, 200s only | p99, 200s only |',
      '|---|--:|--:|--:|--:|--:|',
      ...(
        [
          ['lookup, 32 connections, cache', s.http.lookup, sc.http.lookup],
          ['lookup, 1 connection, cache', s.http.lookupC1, sc.http.lookupC1],
          ['search, 32 connections, cache', s.http.search, sc.http.search],
          ['search, 1 connection, cache', s.http.searchC1, sc.http.searchC1],
          ['lookup, 32 connections, no cache', s.httpNoCache.lookup, sc.httpNoCache.lookup],
          ['lookup, 1 connection, no cache', s.httpNoCache.lookupC1, sc.httpNoCache.lookupC1],
          ['search, 32 connections, no cache', s.httpNoCache.search, sc.httpNoCache.search],
          ['search, 1 connection, no cache', s.httpNoCache.searchC1, sc.httpNoCache.searchC1],
        ] as const
      ).map(
        ([name, a, b]) =>
          `| ${name} | ${ratio(b.rps / a.rps)} | ${ratio(b.latency.p50 / a.latency.p50)} | ${ratio(b.latency.p99 / a.latency.p99)} | ${ratio(p200(b).p50 / p200(a).p50)} | ${ratio(p200(b).p99 / p200(a).p99)} |`,
      ),
      '',
      '**Search by query** without the cache (`--no-cache`), one request at a time (each pool entry sent 3 times; median of its medians over dates and filters, and the slowest entry):',
      '',
      `| query | sample: median / slowest ms | scale: median / slowest ms | scale ÷ sample (median) | versions holding all terms, sample: all dates / in force on ${sc.matches.asOf} | same, scale |`,
      '|---|--:|--:|--:|--:|--:|',
      ...sc.httpNoCache.searchByQuery.map((b) => {
        const a = s.httpNoCache.searchByQuery.find((x) => x.q === b.q);
        const ma = s.matches.queries.find((x) => x.q === b.q);
        const mb = sc.matches.queries.find((x) => x.q === b.q);
        return `| "${b.q}" | ${a ? `${ms(a.medianMs)} / ${ms(a.maxMs)}` : '–'} | ${ms(b.medianMs)} / ${ms(b.maxMs)} | ${a ? ratio(b.medianMs / a.medianMs) : '–'} | ${ma ? `${int(ma.matching)} / ${int(ma.inForce)}` : '–'} | ${mb ? `${int(mb.matching)} / ${int(mb.inForce)}` : '–'} |`;
      }),
      '',
      `A search ranks every version in force that holds all its terms, then keeps 10: its cost follows the match counts. The synthetic text recombines the ` +
        `sample's ${'sentences'}, so a query matches the same *fraction* of the corpus at every size (real law would make a rare term rarer as the corpus grows). ` +
        `Planner statistics of search_documents after the ingest: ${sc.matches.plannerRows < 0 ? '**never analyzed** (pg_class.reltuples = -1; PGlite runs no autovacuum and the ingest runs no ANALYZE)' : `${int(sc.matches.plannerRows)} rows estimated, last ANALYZE ${sc.matches.lastAnalyze ?? 'never'}`}.`,
      '',
      `Server RSS at scale (cache): ${mib(sc.http.rssIdle.rss)} when the loads began, ${mib(sc.http.rssAfter.rss)} after them, peak ${mib(sc.http.rssAfter.hwm)}; ` +
        `no cache: ${mib(sc.httpNoCache.rssIdle.rss)} → ${mib(sc.httpNoCache.rssAfter.rss)} (sample: ${mib(s.http.rssIdle.rss)} → ${mib(s.http.rssAfter.rss)}).`,
      '',
    );
  }

  // ---- startup ----------------------------------------------------------------------------------------------
  if (s) {
    const rows = [s.coldStart, ...s.warmStarts, ...(sc ? [sc.start] : [])];
    push(
      '## 3. Startup',
      '',
      'Time from spawning `node bin/asof.js serve --port 0 --data-dir DIR` to its "serving" line and to the first 200 from `/v1/health` ' +
        `(polled every 5 ms after the line). "ready in" is serveLocal's own figure (stores opened, sample loaded if needed, listening). ` +
        `Floor: \`asof openapi\` (node, tsx and the code loaded, no store opened) takes ${sec(r.cliFloorMs)}.`,
      '',
      '| start | → serving | → healthy | serveLocal "ready in" | RSS then | target ≤ 3 s |',
      '|---|--:|--:|--:|--:|---|',
      ...rows.map(
        (f) =>
          `| ${f.label} | ${sec(f.servingMs)} | ${sec(f.healthMs)} | ${f.readyInMs === null ? '–' : sec(f.readyInMs)} | ${mib(f.rss)} | ${f === s.coldStart ? '(first start)' : verdict(f.healthMs <= TARGETS.warmStartMs)} |`,
      ),
      '',
      'The first start printed:',
      '',
      '```',
      ...s.coldStart.lines,
      '```',
      '',
    );
  }

  // ---- profiles ---------------------------------------------------------------------------------------------
  if (r.profiles.length) {
    const buckets = [...new Set(r.profiles.flatMap((p) => p.shares.filter(([, v]) => v >= 0.02).map(([k]) => k)))];
    const share = (p: CpuBreakdown, b: string) => p.shares.find(([k]) => k === b)?.[1] ?? 0;
    push(
      "## 4. Where the server's CPU goes under load",
      '',
      `A separate run per row (not the measured ones): the server under \`node --cpu-prof\`, ${r.settings.profileS} s of the same load at ${r.settings.connections} connections; ` +
        'self time of the main thread\'s samples during the load, by bucket. "idle" near 0 means the one JS thread is saturated. ' +
        'The last column is how much of the window the PGlite thread was busy (searches run there).',
      '',
      `| load | req/s (profiled) | ${buckets.join(' | ')} | PGlite thread busy |`,
      `|---|--:|${buckets.map(() => '--:').join('|')}|--:|`,
      ...r.profiles.map(
        (p) =>
          `| ${p.name} | ${int(p.load.rps)} | ${buckets.map((b) => pct(share(p, b))).join(' | ')} | ${p.pgliteThreadBusy === null ? '–' : pct(p.pgliteThreadBusy)} |`,
      ),
      '',
    );
  }

  if (r.ingestProfile) {
    const p = r.ingestProfile;
    push(
      `**Ingest.** The ingest worker under \`--cpu-prof\` on a small synthetic title (${int(p.sections)} sections × 3 editions, ${int(p.versions)} versions, ` +
        `runIngest ${sec(p.ingestMs)}; ${sec(p.windowMs)} of main-thread samples): self time by bucket.`,
      '',
      '| bucket | share |',
      '|---|--:|',
      ...p.shares.filter(([, v]) => v >= 0.01).map(([k, v]) => `| ${k} | ${pct(v)} |`),
      '',
    );
  }

  // ---- pure pieces ------------------------------------------------------------------------------------------
  if (r.pure.length) {
    push('## 5. In-process pieces', '', '| piece | ops/s | mean µs |', '|---|--:|--:|');
    for (const f of r.pure) push(`| ${f.name}${f.note ? ` (${f.note})` : ''} | ${int(f.opsPerSec)} | ${f.meanUs.toFixed(1)} |`);
    if (sc)
      push(
        `| ${sc.ingest.parse.name}, synthetic edition 1 | ${int(sc.ingest.parse.opsPerSec)} sections/s | ${sc.ingest.parse.meanUs.toFixed(1)} |`,
      );
    push('');
  }
  if (r.searchTerms) push(...searchTermsSection(r.searchTerms));
  if (r.availability) push(...availabilitySection(r.availability, r.settings.keys));
  return `${L.join('\n')}\n`;
}

const REQUEST_BUDGET_MS = DEFAULT_SQL_TIMEOUTS.request;

/** The costliest query of § 6 the API accepts, by its median (the hostile query of § 7). */
export function costliestAccepted(costs: SearchTermCosts): SearchTermCell & { shape: string } {
  const cells = costs.shapes.flatMap((sh) => sh.cells.filter((c) => c.accepted).map((c) => ({ ...c, shape: sh.name })));
  return cells.reduce((a, c) => (c.medianMs > a.medianMs ? c : a));
}

/** § 6: search cost by the number of words of `q` (also printed by `node --import tsx bench/search-terms.ts DATA_DIR`). */
export function searchTermsSection(t: SearchTermCosts): string[] {
  const worst = costliestAccepted(t);
  const overBudget = t.shapes.flatMap((sh) => sh.cells.filter((c) => c.accepted && c.medianMs > REQUEST_BUDGET_MS).map(() => sh.name));
  return [
    '## 6. Search cost by the number of words of `q` (issue 15)',
    '',
    `On the scale store (${int(t.documents)} versions in the search table), after its servers stopped: the PostgreSQL search adapter over an in-process ` +
      `PGlite opened on the data dir (bench/search-terms.ts), one search at a time, in force on ${t.asOf}, limit 10. In process a statement has no ` +
      'budget and runs to its end, so queries the API refuses are measured too. The words are those of the synthetic title, ranked by how many of ' +
      'its sentences hold them (words of 3 letters or fewer and near-stop words aside). ' +
      `Median of 3 searches in ms (one search when the first took over 10 s), by the number of words k. The API takes at most ${QUERY_MAX_WORDS} words ` +
      `and ${int(QUERY_MAX_CHARS)} characters (else \`400 query_too_long\`): **†** marks a query it refuses, measured on the adapter only. ` +
      `Through the API a search has ${sec(REQUEST_BUDGET_MS)}, waiting for PGlite included (\`503\` past it).`,
    '',
    `| query | ${t.termCounts.map((k, i) => (i ? String(k) : `k = ${k}`)).join(' | ')} |`,
    `|---|${t.termCounts.map(() => '--:').join('|')}|`,
    ...t.shapes.map((sh) => `| ${sh.name} | ${sh.cells.map((c) => `${ms(c.medianMs)}${c.accepted ? '' : ' †'}`).join(' | ')} |`),
    '',
    `Costliest query the API accepts: ${worst.shape} at ${worst.words} words (${worst.hits} hits), **${ms(worst.medianMs)} ms** alone ` +
      `(within the ${sec(REQUEST_BUDGET_MS)} request budget: ${verdict(worst.medianMs <= REQUEST_BUDGET_MS)}); it is the hostile query of § 7. ` +
      (overBudget.length
        ? `Accepted queries slower than the budget alone (always a 503 through the API, and a PGlite restart each): ${overBudget.length}, of ${[...new Set(overBudget)].map((n) => `"${n}"`).join(', ')}.`
        : 'No query the API accepts took longer than the budget alone.'),
    '',
  ];
}

const statusCounts = (r: LoadResult) =>
  Object.entries(r.byStatus)
    .map(([st, v]) => `${st}×${int(v.count)}`)
    .join(' ') + (r.errors ? ` (${r.errors} socket errors)` : '');
/** 503 bodies of a run by their message (the request id blanked): timeout or busy. */
const unavailableBy = (r: LoadResult, what: RegExp) =>
  r.serverErrors.filter((e) => e.body.startsWith('503 ') && what.test(e.body)).reduce((n, e) => n + e.count, 0);

/** § 7: the scale server, no cache, under a hostile search load. */
function availabilitySection(a: AvailabilityResults, keys: number): string[] {
  const base = a.phases.find((p) => p.clients === 0);
  const loaded = a.phases.filter((p) => p.clients > 0);
  if (!base) return [];
  const d = base.durationS;
  const probeRun = (p: AvailabilityPhase): LoadResult => {
    const byDetail = new Map<string, number[]>();
    for (const pr of p.probes) byDetail.set(pr.detail, [...(byDetail.get(pr.detail) ?? []), pr.ms]);
    return {
      name: 'corpus probe',
      connections: 1,
      durationS: p.durationS,
      requests: p.probes.length,
      rps: p.probes.length / p.durationS,
      latency: percentiles(p.probes.map((pr) => pr.ms)),
      byStatus: Object.fromEntries([...byDetail].map(([k, v]) => [k, { count: v.length, latency: percentiles(v) }])),
      errors: 0,
      timeouts: 0,
      meanBytes: 0,
      cpu: { server: NaN, loadGenerator: NaN, other: NaN },
      serverErrors: [],
    };
  };
  const kinds: [string, (p: AvailabilityPhase) => LoadResult][] = [
    ['lookup', (p) => p.lookup],
    [`cheap search \`${decodeURIComponent(a.cheap.path.replace(/^.*\?/, ''))}\``, (p) => p.search],
    ['`GET /v1/health/corpus`', (p) => p.health],
    ['corpus probe through the admin socket (`asof probe`); statuses: verdicts', probeRun],
  ];
  const rows = kinds.flatMap(([name, of]) => {
    const b = of(base);
    return a.phases.map((p) => {
      const l = of(p);
      const vs =
        p === base
          ? ''
          : `${ratio(l.latency.p50 / b.latency.p50)} / ${ratio(l.latency.p99 / b.latency.p99)} / ${ratio(l.latency.max / b.latency.max)}`;
      return `| ${name} | ${p.clients} | ${int(l.requests)} | ${statusCounts(l)} | ${ms(l.latency.p50)} | ${ms(l.latency.p99)} | ${ms(l.latency.max)} | ${vs} |`;
    });
  });
  const hostileRow = (p: AvailabilityPhase) => {
    const h = p.hostile!;
    const ok = h.byStatus['200'];
    const unavailable = h.byStatus['503'];
    const other = h.requests - (ok?.count ?? 0) - (unavailable?.count ?? 0);
    const reopen = p.restartsReopenMs;
    return (
      `| ${p.clients} | ${int(h.requests)} (${h.rps.toFixed(1)}/s) | ${int(ok?.count ?? 0)} | ${int(unavailableBy(h, /did not answer in time/))} | ${int(unavailableBy(h, /too busy/))} | ` +
      `${int(other)}${h.errors ? ` + ${h.errors} socket errors` : ''} | ${h.unavailableWithoutRetryAfter ?? '–'} | ${ok ? `${ms(ok.latency.p50)} / ${ms(ok.latency.max)}` : '–'} | ` +
      `${unavailable ? `${ms(unavailable.latency.p50)} / ${ms(unavailable.latency.max)}` : '–'} | ${reopen.length}${reopen.length ? ` (${ms(median(reopen))} / ${ms(Math.max(...reopen))})` : ''} | ` +
      `${sec(p.drainMs)} | ${cores(h.cpu.server)} | ${mib(p.rss.before)} → ${mib(p.rss.after)} (${mib(p.rss.hwm)}) |`
    );
  };
  const worstAnswer = Math.max(...loaded.map((p) => p.hostile!.latency.max));
  const missingRetryAfter = a.phases.reduce(
    (n, p) =>
      n + [p.lookup, p.search, p.health, ...(p.hostile ? [p.hostile] : [])].reduce((m, l) => m + (l.unavailableWithoutRetryAfter ?? 0), 0),
    0,
  );
  return [
    '## 7. Availability: what a hostile search load does to everyone else (issue 15)',
    '',
    '`asof serve --no-cache` on the scale store, right after the loads of § 2 (every search reaches PGlite: one statement at a time, at most 64 ' +
      `waiting, ${sec(REQUEST_BUDGET_MS)} per request's statement waiting included, one still running at its deadline stopped by restarting PGlite's thread; ` +
      'docs/DECISIONS.md, "Bounded work"). **Hostile clients:** N autocannon connections, each sending the costliest search the API accepts ' +
      `(§ 6: ${a.hostile.shape}, ${a.hostile.words} words, ${ms(a.hostile.adapterMs)} ms alone) back to back for ${d} s, their keys rotating over ` +
      `${int(keys)} pro keys (no rate limit meets them). **Meanwhile**, each by a client of its own sending one request at a time: a lookup (the scale lookup ` +
      `pool of ${int(a.lookupPaths)} requests: DynamoDB only), a cheap search (the cheapest query of the scale search pool, no cache), and ` +
      '`GET /v1/health/corpus` (the stored probe verdict, read from DynamoDB); and the corpus probe run through the admin socket as `asof probe` does ' +
      "(its PGlite ping goes ahead of every waiting statement), again 1 s after each answer, its time including the probe's DynamoDB reads. " +
      `First the same ${d} s with no hostile client: the baseline (hostile clients 0). PGlite restarts: the server's warning for each, read from its log.`,
    '',
    '| request, one at a time | hostile clients | answers | statuses | p50 ms | p99 ms | max ms | p50 / p99 / max ÷ baseline |',
    '|---|--:|--:|---|--:|--:|--:|--:|',
    ...rows,
    '',
    'What the hostile clients got (the last requests in flight when the load stopped are not counted; "drain": from the end of the load until ' +
      'the cheap search answered 200 again):',
    '',
    '| hostile clients | answers | 200 | 503 "did not answer in time" | 503 "too busy" | other | 503 without Retry-After | 200 p50 / max ms | 503 p50 / max ms | PGlite restarts (reopen median / max ms) | drain | server CPU (cores, both threads) | server RSS before → after (peak) |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...loaded.map(hostileRow),
    '',
    `Slowest answer to a hostile client: ${sec(worstAnswer)} (the budget is ${sec(REQUEST_BUDGET_MS)}, waiting included). ` +
      `503 answers without \`Retry-After\`, all clients of all phases: ${missingRetryAfter}. ` +
      `Searches PGlite completed during each load (hostile and cheap answered 200): ${loaded
        .map((p) => `${int((p.hostile!.byStatus['200']?.count ?? 0) + (p.search.byStatus['200']?.count ?? 0))} with ${p.clients} clients`)
        .join(
          ', ',
        )}, in ${d} s each, where one after another it runs about ${int((d * 1000) / a.hostile.adapterMs)} of the hostile query alone (§ 6).`,
    '',
  ];
}

/** Held-out opinions and the forms, per kind, with the baseline extractor's figures beside them when it was measured. */
function citationFormRows(c: CitationResults): string[] {
  const pc2 = (v: number) => `${(v * 100).toFixed(2)} %`;
  const h = c.heldOut;
  const forms = c.forms ?? [];
  const all = forms.find((f) => f.kind === 'all');
  const before = (b: { recall: number; precision: number } | undefined) => (b ? `${pc2(b.recall)} / ${pc2(b.precision)}` : '–');
  return [
    ...(h
      ? [
          `Held-out real opinions: ${int(h.opinions)} CourtListener opinions (${int(h.characters)} characters), the half of the 921 records not searched while writing the forms (bench/citation-held-out.ts says how the halves and the key are made). ` +
            `Key: CourtListener's 2017 markup (${int(h.keyed)} citations); of what it did not mark, ${h.confirmedByEyecite} found by the eyecite port at the same start and ${h.confirmedByReview} reviewed by hand count as citations, ${h.wrong.length} as errors.`,
          '',
          '| held-out opinions | recall / precision | before | target |',
          '|---|--:|--:|---|',
          `| full case citations (${int(h.extracted)} found) | ${pc2(h.recall)} / ${pc2(h.precision)} | ${before(h.baseline)} | ≥ 99.8 % / ≥ 99.5 %: ${verdict(h.recall >= TARGETS.heldOutRecall)} / ${verdict(h.precision >= TARGETS.heldOutPrecision)} |`,
          '',
        ]
      : []),
    ...(forms.length
      ? [
          `Per kind of form${c.baselineExtractor ? ` (before: ${c.baselineExtractor}, measured in the same run)` : ''}: the held-out half of reporters-db's own examples, each in a sentence, and the sentences from real opinions of test/support/real-citation-forms.ts. MB/s on each kind's text repeated to 16,000 characters.`,
          '',
          '| suite | kind | citations | recall / precision | before | MB/s | before MB/s |',
          '|---|---|--:|--:|--:|--:|--:|',
          ...forms.map(
            (f) =>
              `| ${f.suite} | ${f.kind} | ${f.examples} | ${pc2(f.recall)} / ${pc2(f.precision)} | ${before(f.baseline)} | ${f.mbPerSec.toFixed(1)} | ${f.baseline ? f.baseline.mbPerSec.toFixed(1) : '–'} |`,
          ),
          '',
          ...(all
            ? [
                `Forms not written against (reporters-db examples, held-out half): ${pc2(all.recall)} / ${pc2(all.precision)}, target ≥ 99 % / ≥ 99 %: ${verdict(all.recall >= TARGETS.formsRecall)} / ${verdict(all.precision >= TARGETS.formsPrecision)}.`,
                '',
              ]
            : []),
        ]
      : []),
  ];
}

function citationSection(c: CitationResults, separately?: BenchResults['citationsRun']): string[] {
  const { raw, reviewed, corrections } = c.accuracy;
  const pc = (v: number) => `${(v * 100).toFixed(1)} %`;
  const dense = c.throughput.find((t) => t.corpus.startsWith('64,000'));
  const slowest = Math.min(...c.throughput.map((t) => t.mbPerSec));
  const least = Math.min(...c.throughput.map((t) => t.mbPerSec / t.eyeciteMbPerSec));
  return [
    '## 1b. Citation extraction (case-law issue)',
    '',
    ...(separately
      ? [`Measured separately from the rest of this file: \`${separately.command}\` at ${separately.at} on ${separately.commit}.`, '']
      : []),
    "In process, on the bundled real opinions. Accuracy: full case citations against CourtListener's `html_with_citations` markup of the 25 " +
      'API v3 records (a citation is found when the extractor gives exactly its span), first as the markup stands, then with the ' +
      `${corrections} hand-reviewed corrections of test/support/answer-key-review.json (true citations the 2017 markup did not mark, and one span it marked that is no citation). ` +
      'Throughput in MB/s of text (millions of characters per second), next to @beshkenadze/eyecite (the TypeScript port of eyecite) on the same texts, the port in a process of its own (bench/eyecite-child.ts). Ours is measured in the bench process after the accuracy runs, as a server that has read varied opinions runs it, and on the dense text also in a fresh process that reads nothing else.',
    '',
    '| figure | value | target |',
    '|---|--:|---|',
    `| recall / precision, key as it is (${raw.keyed} marked, ${raw.extracted} found) | ${pc(raw.recall)} / ${pc(raw.precision)} | |`,
    `| recall / precision, key with reviewed corrections (${reviewed.keyed} citations) | ${pc(reviewed.recall)} / ${pc(reviewed.precision)} | ≥ 98 % / ≥ 99 %: ${verdict(reviewed.recall >= TARGETS.citationRecall)} / ${verdict(reviewed.precision >= TARGETS.citationPrecision)} |`,
    `| slowest throughput of the corpora below | ${slowest.toFixed(1)} MB/s | ≥ ${TARGETS.citationMbPerSec} MB/s: ${verdict(slowest >= TARGETS.citationMbPerSec)} |`,
    ...(dense
      ? [
          `| the dense 64,000-character text | ${dense.mbPerSec.toFixed(1)} MB/s | ≥ ${TARGETS.denseMbPerSec} MB/s: ${verdict(dense.mbPerSec >= TARGETS.denseMbPerSec)} |`,
          ...(dense.freshProcessMbPerSec
            ? [`| the same text in a fresh process that reads nothing else | ${dense.freshProcessMbPerSec.toFixed(1)} MB/s | |`]
            : []),
        ]
      : []),
    `| least speed-up over the eyecite port | ${int(least)}× | ≥ ${TARGETS.citationVsPort}×: ${verdict(least >= TARGETS.citationVsPort)} |`,
    `| first call in a fresh process (import, read reporters-db, build the trie, extract) | ${ms(c.coldMs)} ms (median of ${c.coldRuns.length}) | ≤ ${TARGETS.citationColdMs} ms: ${verdict(c.coldMs <= TARGETS.citationColdMs)} |`,
    `| parse + resolve a text of 250 citations against the replica on PGlite (worker thread), p50 / p90 of ${c.resolve250.runs} (statuses ${Object.entries(
      c.resolve250.statuses,
    )
      .map(([k, v]) => `${k}×${v}`)
      .join(
        ' ',
      )}) | ${ms(c.resolve250.p50Ms)} / ${ms(c.resolve250.p90Ms)} ms | p50 ≤ ${TARGETS.resolve250P50Ms} ms: ${verdict(c.resolve250.p50Ms <= TARGETS.resolve250P50Ms)} |`,
    '',
    ...citationFormRows(c),
    ...caseNameRows(c),
    ...statuteRows(c),
    '| text | characters | full citations found (ours / port) | ours MB/s | before MB/s | eyecite port MB/s | ratio |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...c.throughput.map(
      (t) =>
        `| ${t.corpus} | ${int(t.chars)} | ${t.found} / ${t.eyeciteFound} | ${t.mbPerSec.toFixed(1)} | ${t.baselineMbPerSec?.toFixed(1) ?? '–'} | ${t.eyeciteMbPerSec.toFixed(3)} | ${int(t.mbPerSec / t.eyeciteMbPerSec)}× |`,
    ),
    '',
    'Pathological inputs: time per call (mean of 20) at 16,000, 32,000 and 64,000 characters. Linear time doubles with the input.',
    '',
    '| input | 16k ms | 32k ms | 64k ms | 64k ÷ 32k |',
    '|---|--:|--:|--:|--:|',
    ...c.growth.map((g) => `| ${g.input} | ${g.points.map(([, v]) => ms(v)).join(' | ')} | ${ratio(g.points[2]![1] / g.points[1]![1])} |`),
    '',
  ];
}

/** Is it the case the text names? Real names and swapped names on the real opinions, per half. */
function caseNameRows(c: CitationResults): string[] {
  const n = c.caseNames;
  if (!n) return [];
  const pc2 = (v: number) => `${(v * 100).toFixed(2)} %`;
  const row = (half: string, f: NonNullable<CitationResults['caseNames']>['heldOut'], target: boolean) =>
    `| ${half} (${int(f.opinions)} opinions) | ${int(f.linked)} / ${int(f.named)} | ${f.byCluster.matched} / ${f.byCluster.named} | ${int(f.bySlug.matched)} / ${int(f.bySlug.named)} | ${f.slugCut} / ${f.slugNoName} / ${f.trueMismatches} | ${pc2(f.matchRate)}${target ? `: ${verdict(f.matchRate >= TARGETS.caseNameMatch)}` : ''} | ${f.swapped.matched} / ${int(f.swapped.pairs)} = ${(f.swapped.rate * 100).toFixed(3)} %${target ? `: ${verdict(f.swapped.rate <= TARGETS.caseNameSwapped)}` : ''} (${f.swapped.sameName} apart) |`;
  return [
    `Is it the case the text names? (bench/case-name-accuracy.ts) On the real opinions of \`--caselaw-data\`: for each citation CourtListener's \`html_with_citations\` links to a case (a parallel group once), the name the extractor reads before it (parseRequest's \`namedAs\`) scored against the linked case's names — the cluster's own where the repository carries it, else the link's slug. Real: the name should match (score ≥ ${n.threshold}). Apart: slugs CourtListener cut at 75 characters whose visible first party agrees, slugs that are no name (a docket number, a loose-leaf citation), and misses reviewed as the text naming another case than the one linked (bench/case-name-review.json). Swapped: each name against every other case linked in the same opinion should not match; pairs of one case under two clusters or the same parties are apart. Halves as in the held-out citations; the development half was read while tuning.`,
    '',
    '| half | linked / named | cluster names matched | slugs matched | apart: cut / no name / mismatch | real names match (target ≥ 98 %) | swapped match (target ≤ 0.5 %) |',
    '|---|--:|--:|--:|--:|--:|--:|',
    row('development', n.development, false),
    row('held-out', n.heldOut, true),
    '',
  ];
}

function statuteRows(c: CitationResults): string[] {
  if (!c.statutes) return [];
  const pc = (v: number) => `${(v * 100).toFixed(1)} %`;
  return [
    'Statute and court-rule citations (issue 18): per kind of form, on the real sentences of test/support/real-statute-citations.ts and the forms the issue lists; a citation is found when its span and key are right.',
    '',
    '| form | citations | recall / precision | MB/s (finder alone) |',
    '|---|--:|--:|--:|',
    ...c.statutes.forms.map((f) => `| ${f.form} | ${f.examples} | ${pc(f.recall)} / ${pc(f.precision)} | ${f.mbPerSec.toFixed(1)} |`),
    '',
    'What finding them costs: case extraction alone, and with the statute finder, taking turns in one process (median of three rounds each).',
    '',
    '| text | characters | statute citations | cases alone MB/s | cases + statutes MB/s | ratio | ≥ 50 MB/s |',
    '|---|--:|--:|--:|--:|--:|---|',
    ...c.statutes.cost.map(
      (t) =>
        `| ${t.corpus} | ${int(t.chars)} | ${t.statutes} | ${t.casesOnlyMbPerSec.toFixed(1)} | ${t.withStatutesMbPerSec.toFixed(1)} | ${t.ratio.toFixed(2)}× | ${verdict(t.withStatutesMbPerSec >= TARGETS.denseMbPerSec)} |`,
    ),
    '',
  ];
}

function bulkLoadSection(figures: BulkLoadFigure[], separately?: BenchResults['bulkLoadRun']): string[] {
  const first = figures[0]!;
  const last = figures[figures.length - 1]!;
  return [
    '## 1c. CourtListener bulk-data load (case-law issue)',
    '',
    ...measuredSeparately(separately),
    "`asof ingest courtlistener` on a generated citation-map file in CourtListener's export format (PostgreSQL COPY CSV), streamed into the " +
      "replica on PGlite in a worker thread, on disk as `asof serve` keeps it, in a child process of its own (its peak RSS is the load's, " +
      "PGlite included; the loader heap is the loading thread's JS heap, the rows it holds at a time). Memory must not grow with the number of rows.",
    '',
    '| rows | file MiB | seconds | rows/s | peak RSS | peak loader heap |',
    '|--:|--:|--:|--:|--:|--:|',
    ...figures.map(
      (f) =>
        `| ${int(f.rows)} | ${(f.bytes / 2 ** 20).toFixed(0)} | ${f.seconds.toFixed(1)} | ${int(f.rowsPerSec)} | ${mib(f.peakRssBytes)} | ${f.peakHeapBytes ? mib(f.peakHeapBytes) : '–'} |`,
    ),
    '',
    `Peak RSS at ${int(last.rows)} rows ÷ at ${int(first.rows)} rows: ${ratio(last.peakRssBytes / first.peakRssBytes)} for ${ratio(last.rows / first.rows)} the rows.`,
    '',
  ];
}

function bundlesSection(b: BundleResults, separately?: BenchResults['bundlesRun']): string[] {
  const kib = (n: number) => `${int(n / 1024)} KiB`;
  const floor = b.baselines.find((f) => f.name === 'DynamoDB client only');
  const required = b.baselines.at(-1)!;
  // Endpoint functions (the routes and the authorizer) are on the request path, where the targets bite; the jobs are not.
  const isJob = (f: BundleFigure) => f.name.startsWith('job-');
  const endpoints = b.functions.filter((f) => !isJob(f));
  const jobs = b.functions.filter(isJob);
  const largest = Math.max(...endpoints.map((f) => f.bytes));
  const slowest = endpoints.reduce((a, f) => (f.medianMs > a.medianMs ? f : a));
  const over = endpoints.filter((f) => f.medianMs > 150);
  const largestJob = jobs.length ? jobs.reduce((a, f) => (f.bytes > a.bytes ? f : a)) : null;
  const slowestJob = jobs.length ? jobs.reduce((a, f) => (f.medianMs > a.medianMs ? f : a)) : null;
  const times = (f: BundleFigure) => `${ms(f.medianMs)} | ${ms(f.minMs)} | ${ms(f.cpuMedianMs)}`;
  const signed = (v: number) => `${v < 0 ? '−' : '+'}${ms(Math.abs(v))}`;
  const overFloor = (f: BundleFigure) =>
    floor ? `${ratio(f.medianMs / floor.medianMs)} / ${ratio(f.cpuMedianMs / floor.cpuMedianMs)}` : '–';
  const row = (f: BundleFigure, baseline: boolean) =>
    `| ${f.name} | ${kib(f.bytes)} | ${kib(f.gzipBytes)} | ${kib(f.mapBytes)} | ${times(f)} | ${overFloor(f)} | ${baseline ? '' : signed(f.cpuMedianMs - required.cpuMedianMs)} |`;
  const deployed = b.levers[0];
  const lever = (f: BundleFigure) =>
    `| ${f.name} | ${kib(f.bytes)} | ${kib(f.mapBytes)} | ${times(f)} | ${deployed && f !== deployed ? signed(f.cpuMedianMs - deployed.cpuMedianMs) : ''} |`;
  return [
    '## 1d. Lambda bundles (AWS stack issue)',
    '',
    ...measuredSeparately(separately),
    'Every function the stacks deploy (one per route, the bearer authorizer, the site pages `page-…`, the scheduled jobs and the deploy-time setup job, `job-…`) bundled ' +
      'as lib/asof-function.ts asks CDK to (esbuild, CommonJS, node22, minified, source map without the sources, AWS SDK inside), written as ' +
      'CDK writes the asset (`index.js` and `index.js.map`, in a folder of its own), and its module init measured as deployed: `require` of the bundle in a fresh ' +
      `Node process with the function's NODE_OPTIONS (\`${b.nodeOptions}\`) and the environment the Lambda runtime sets (AWS_EXECUTION_ENV, ` +
      'LAMBDA_TASK_ROOT, the X-Ray daemon address: the Powertools Tracer is on and patches http/https, as in AWS), every store bound, no AWS call. ' +
      `Node ${b.node} (${b.nodeSource === 'ASOF_BENCH_NODE' ? 'the binary given in ASOF_BENCH_NODE' : 'the node that ran the bench; set ASOF_BENCH_NODE to measure with another'}); ` +
      `${b.runs} fresh processes per bundle, taken in rounds over all the bundles so that a burst of load on the machine hits every row alike. ` +
      'Wall time is what a cold start waits for; on a machine shared with other work it swings widely, so the minimum and the CPU time of the ' +
      'import (user + system, all threads) are given too: they move far less with the load. ' +
      'The baselines, bundled and measured the same way in the same run, are the floor every function stands on: an empty module, the DynamoDB ' +
      'document client (every function reads keys and meters), and that with the Powertools logger, metrics and tracer behind middy, which the ' +
      'issue requires of every function. Targets: ≤ 1 MB, ≤ 150 ms.',
    '',
    '| bundle | size | gzip | source map | init median ms | init min ms | CPU median ms | ÷ DynamoDB client only (median wall / CPU) | CPU above DynamoDB + Powertools (ms) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...b.baselines.map((f) => row(f, true)),
    ...b.functions.map((f) => row(f, false)),
    '',
    `Endpoint functions (the routes, the authorizer and the site pages, on the request path): largest bundle ${kib(largest)} (target 1,024 KiB: ` +
      `${largest <= 1024 * 1024 ? 'met' : 'missed'}); slowest median init ${ms(slowest.medianMs)} ms, ${slowest.name} ` +
      `(target 150 ms: ${over.length ? `missed by ${over.map((f) => f.name).join(', ')}` : 'met by every endpoint function'}).` +
      (largestJob && slowestJob
        ? ` Jobs (scheduled or run at deployment, no caller waits on their start): largest bundle ${kib(largestJob.bytes)} (${largestJob.name}` +
          `${largestJob.bytes > 1024 * 1024 ? ', over the 1 MB target' : ''}), slowest median init ${ms(slowestJob.medianMs)} ms (${slowestJob.name}).`
        : ''),
    '',
    ...(b.levers.length
      ? [
          `The deployment settings, measured on ${b.leversOf} in the same rounds: the function as deployed, then bundled or started otherwise than ` +
            'lib/asof-function.ts does today (a map without the sources it quotes still maps stack traces to file and line; the ES module bundle, ' +
            'deployed before, links every Node built-in any bundled module imports before its first line runs, where the CommonJS bundle requires ' +
            "each when first used, and on Node 22 importing node:http as an ES module also loads Node's bundled undici).",
          '',
          '| variant | size | source map | init median ms | init min ms | CPU median ms | Δ CPU vs as deployed (ms) |',
          '|---|--:|--:|--:|--:|--:|--:|',
          ...b.levers.map(lever),
          '',
        ]
      : []),
  ];
}

const USLM_TARGETS = { firstLoadMBps: 5, rerunMBps: 20 };

function dcCodeSection(d: DcCodeFigures, separately?: BenchResults['dcCodeRun']): string[] {
  const [a, b] = [d.first, d.rerun];
  const perS = (n: number, msv: number) => (n / (msv / 1000)).toFixed(0);
  const ingestMs = a.fetchMs - a.afterIngestMs;
  return [
    '## 1g. D.C. Code, the whole history (issue 17)',
    '',
    ...measuredSeparately(separately),
    `\`asof fetch dc-code\` on \`${d.repo}\` (the Council's repository as a git bundle, read with isomorphic-git), on the embedded stores ` +
      `(dynalite on disk, PGlite), each run a child process of its own (bench/dc-code-worker.ts); load average at the start ${d.loadAverage.map((x) => x.toFixed(2)).join(' / ')}.`,
    '',
    '| | first run (fresh data dir) | re-run (nothing new) |',
    '|---|---:|---:|',
    `| publications on the line | ${a.publications} | ${b.publications} |`,
    `| publications ingested / held | ${a.ingested} / ${a.held} | ${b.ingested} / ${b.held} |`,
    `| repository opened (bundle imported: pack written and indexed) | ${sec(a.openRepoMs)} | ${sec(b.openRepoMs)} |`,
    `| fetch, end to end | ${sec(a.fetchMs)} | ${sec(b.fetchMs)} |`,
    `| of which the steps after the ingest (formats, coverage, audit) | ${sec(a.afterIngestMs)} | ${sec(b.afterIngestMs)} |`,
    `| versions written / sections ended | ${a.versionsWritten} / ${a.sectionsEnded} | ${b.versionsWritten} / ${b.sectionsEnded} |`,
    `| versions/s (end to end; ingest alone) | ${perS(a.versionsWritten, a.fetchMs)}; ${perS(a.versionsWritten, ingestMs)} | – |`,
    `| peak RSS of the fetch (after the stores opened; at the opening) | ${mib(a.peakRssBytes)}; ${mib(a.peakRssOpenBytes)} | ${mib(b.peakRssBytes)}; ${mib(b.peakRssOpenBytes)} |`,
    '',
    `Held afterwards: ${a.sections} sections, ${a.versions} versions, ${(a.bodyBytes / 1e6).toFixed(1)} MB of section text. ` +
      `The re-run took ${sec(b.fetchMs)}, ${(a.fetchMs / b.fetchMs).toFixed(0)}× faster than the first. Audit after the first run: ${a.auditSummary}.`,
    '',
    ...(a.auditFindings.length ? ['Audit findings (D.C.):', '', ...a.auditFindings.map((f) => `- ${f}`), ''] : []),
  ];
}

function uslmIngestSection(u: UslmIngestFigures, separately?: BenchResults['uslmIngestRun']): string[] {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1);
  const rate = (bytes: number, msv: number) => (bytes / 1e6 / (msv / 1000)).toFixed(2);
  const accepted = u.files.filter((f) => !f.refused);
  const refused = u.files.filter((f) => f.refused);
  const first = u.firstLoad.worker;
  const again = u.rerun.worker;
  const firstRate = u.firstLoad.xmlBytes / 1e6 / (first.ingestMs / 1000);
  const rerunRate = u.rerun.xmlBytes / 1e6 / (again.ingestMs / 1000);
  const skipped = again.editions.filter((e) => e.unchanged).length;
  const peak = (w: IngestWorkerResult) => w.peakRssAfterIngestBytes ?? w.peakRssBytes;
  const cpu = (w: IngestWorkerResult) => (w.ingestCpuMs === undefined ? '–' : sec(w.ingestCpuMs));
  const perCpu = (bytes: number, w: IngestWorkerResult) => (w.ingestCpuMs ? (bytes / 1e6 / (w.ingestCpuMs / 1000)).toFixed(1) : '–');
  const heap = (w: IngestWorkerResult) => (w.peakHeapDuringIngestBytes ? mib(w.peakHeapDuringIngestBytes) : '–');
  const [largest, smallest] = [u.single.find((x) => x.which === 'largest'), u.single.find((x) => x.which === 'smallest')];
  const name = (file: string) => file.split('/').at(-1) ?? file;
  return [
    '## 1e. USLM ingest on the real files (issue 16)',
    '',
    ...measuredSeparately(separately),
    `OLRC's US Code titles under \`${u.dir}\` (${u.zips} zips, unpacked first in ${sec(u.unzipMs)}; \`-- --uslm-dir DIR\` points the section at another ` +
      'directory of OLRC zips or USLM XML, e.g. a full release-point download). Each run is a child process of its own on a fresh or the same ' +
      'data dir, through `runIngest` on `openLocalStores` as `asof ingest` runs it (DynamoDB adapter on dynalite in its own thread, the embedded search engine (SQLite FTS5 since issue 17), ' +
      'on disk). MB = 10⁶ bytes of XML. The baseline is the USLM reader alone over the same files, no store: the ratio shows what the stores add. ' +
      "Peak RSS is VmHWM when runIngest returned, reset after the stores opened (so a new data dir's initdb, given apart, is not in it); " +
      'CPU time is user + system of every thread of the process during runIngest, which other work on the machine moves far less than wall time. ' +
      `Load average of the machine when the section began: ${u.loadAverage?.map((l) => l.toFixed(1)).join(', ') ?? '–'}.`,
    '',
    `${accepted.length} files ingested, ${mb(u.parse.xmlBytes)} MB of XML, ${int(u.parse.sections)} sections` +
      (refused.length
        ? `; ${refused.length} refused by the reader and left out: ${refused.map((f) => `${name(f.found)} (${f.refused})`).join('; ')}`
        : '') +
      '.',
    '',
    '| run | time | MB/s of XML | versions written | versions/s | ÷ reader alone (time) | CPU time (all threads) | MB of XML per CPU second | peak RSS | peak JS heap | target |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    `| the USLM reader alone, no store (baseline) | ${sec(u.parse.ms)} | ${rate(u.parse.xmlBytes, u.parse.ms)} | – | – | 1× | | | ${mib(u.parse.peakRssBytes)} | | |`,
    `| first load into an empty data dir | ${sec(first.ingestMs)} | ${firstRate.toFixed(2)} | ${int(u.firstLoad.versions)} | ${int(u.firstLoad.versions / (first.ingestMs / 1000))} | ${ratio(first.ingestMs / u.parse.ms)} | ${cpu(first)} | ${perCpu(u.firstLoad.xmlBytes, first)} | ${mib(peak(first))} | ${heap(first)} | ≥ ${USLM_TARGETS.firstLoadMBps} MB/s: ${verdict(firstRate >= USLM_TARGETS.firstLoadMBps)} |`,
    `| the same ingest again, nothing changed (${skipped} of ${again.editions.length} editions skipped as unchanged) | ${sec(again.ingestMs)} | ${rerunRate.toFixed(2)} | ${int(u.rerun.versions)} | – | ${ratio(again.ingestMs / u.parse.ms)} | ${cpu(again)} | ${perCpu(u.rerun.xmlBytes, again)} | ${mib(peak(again))} | ${heap(again)} | ≥ ${USLM_TARGETS.rerunMBps} MB/s: ${verdict(rerunRate >= USLM_TARGETS.rerunMBps)} |`,
    ...u.single.map(
      (x) =>
        `| the ${x.which} title alone (${name(x.file)}, ${mb(x.xmlBytes)} MB), first load | ${sec(x.worker.ingestMs)} | ${rate(x.xmlBytes, x.worker.ingestMs)} | ${int(x.versions)} | ${int(x.versions / (x.worker.ingestMs / 1000))} | | ${cpu(x.worker)} | ${perCpu(x.xmlBytes, x.worker)} | ${mib(peak(x.worker))} (reader alone ${mib(x.parsePeakRssBytes)}) | ${heap(x.worker)} | |`,
    ),
    '',
    `Opening the stores of a new data dir (PGlite's initdb): ${sec(first.openMs)}, peak RSS ${mib(first.peakRssOpenBytes ?? 0)}. ` +
      `After the first load: coverage refresh ${sec(first.coverageMs)}, audit ${sec(first.auditMs)} (${first.auditSummary}).` +
      (first.auditFindings.length ? ` Findings: ${first.auditFindings.join('; ')}` : ''),
    '',
    ...(largest && smallest
      ? [
          `Peak RSS, largest title ÷ smallest: ${ratio(peak(largest.worker) / peak(smallest.worker))} for ${ratio(largest.xmlBytes / smallest.xmlBytes)} the XML ` +
            `(target: must not grow with the size of a title: ${verdict(peak(largest.worker) / peak(smallest.worker) < 1.25)}, within 25 %); ` +
            `peak JS heap of the ingest, largest ÷ smallest: ${largest.worker.peakHeapDuringIngestBytes && smallest.worker.peakHeapDuringIngestBytes ? ratio(largest.worker.peakHeapDuringIngestBytes / smallest.worker.peakHeapDuringIngestBytes) : '–'}. ` +
            "Most of the RSS is the embedded stores' own (PGlite's WASM memory, opened for the case-law replica even by an ingest of statutes; dynalite and LevelDB; SQLite's page cache), not the title's.",
          '',
        ]
      : []),
    ...growingTitles(u.growing ?? []),
  ];
}

/** Step 5 of the USLM section: peak RSS past the largest real title, on synthetic titles of growing size. */
function growingTitles(g: NonNullable<UslmIngestFigures['growing']>): string[] {
  if (g.length < 2) return [];
  const peak = (w: IngestWorkerResult) => w.peakRssAfterIngestBytes ?? w.peakRssBytes;
  const [first, last] = [g[0]!, g.at(-1)!];
  const grows = peak(last.worker) / peak(first.worker);
  return [
    "Past the largest real title: synthetic titles (bench/synthetic-uslm.ts: real sentences and headings of the sample, OLRC's structure), " +
      'one edition each, each alone into a fresh data dir, as above.',
    '',
    '| synthetic title | MB of XML | versions | time | MB/s | peak RSS | peak JS heap |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...g.map(
      (x) =>
        `| ${int(x.sections)} sections | ${(x.xmlBytes / 1e6).toFixed(1)} | ${int(x.versions)} | ${sec(x.worker.ingestMs)} | ${(x.xmlBytes / 1e6 / (x.worker.ingestMs / 1000)).toFixed(2)} | ${mib(peak(x.worker))} | ${x.worker.peakHeapDuringIngestBytes ? mib(x.worker.peakHeapDuringIngestBytes) : '–'} |`,
    ),
    '',
    `Peak RSS, ${int(last.sections)} sections ÷ ${int(first.sections)}: ${ratio(grows)} for ${ratio(last.xmlBytes / first.xmlBytes)} the XML ` +
      `(must not grow with the size of a title: ${verdict(grows < 1.25)}, within 25 %).`,
    '',
  ];
}

function federalSection(f: FederalFigures, separately?: BenchResults['federalRun']): string[] {
  const fe = f.federal;
  const sa = f.sample;
  const pool = (p: FederalCorpusFigures['lookupPool']) =>
    Object.entries(p.statuses)
      .map(([st, n]) => `${n} × ${st}`)
      .join(', ') + (p.withHits === undefined ? '' : `; ${p.withHits} with hits, ${int(p.meanHits ?? 0)} hits on average`);
  const rows: [string, (x: FederalRuns) => LoadResult][] = [
    [`lookup, ${f.settings.connections} connections`, (x) => x.lookup],
    [`search, ${f.settings.connections} connections`, (x) => x.search],
    ['lookup, 1 connection', (x) => x.lookupC1],
    ['search, 1 connection', (x) => x.searchC1],
  ];
  const server = (name: string, pick: (c: FederalCorpusFigures) => FederalRuns) =>
    rows.map(([run, get]) => {
      const [a, b] = [get(pick(sa)), get(pick(fe))];
      return `| ${name} | ${run} | ${ms(a.latency.p50)} / ${ms(a.latency.p99)} | ${ms(b.latency.p50)} / ${ms(b.latency.p99)} | ${ratio(b.latency.p50 / a.latency.p50)} / ${ratio(b.latency.p99 / a.latency.p99)} | ${int(a.rps)} | ${int(b.rps)} | ${ratio(b.rps / a.rps)} | ${statusMix(a)} | ${statusMix(b)} | ${cores(a.cpu.server)} / ${cores(a.cpu.other)} | ${cores(b.cpu.server)} / ${cores(b.cpu.other)} |`;
    });
  const w = fe.worker;
  return [
    '## 1f. Lookup and search on the federal corpus next to the sample (issue 16)',
    '',
    ...measuredSeparately(separately),
    "One fresh data dir: `asof serve`'s first start loads the bundled sample, which is measured; then every OLRC zip under " +
      `\`${f.dir}\` (${fe.zips} zips; \`-- --uslm-dir DIR\` points the section at a download of your own) is ingested **on top of the sample** ` +
      '(bench/ingest-worker.ts: runIngest, coverage refresh and audit, as `asof ingest uslm` runs them), and the same runs are measured again. ' +
      'The sample already carries the rules editions (data/rules/us-code-appendix-text, set `us-code-appendix`) and some of the zips ' +
      `(Titles 13, 17, 35, 11a, 18a), so the federal corpus is the sample plus the titles of the ${fe.zips} zips. ` +
      `Each corpus is served by \`asof serve\` as it runs by default (cache, meter) and by \`asof serve --no-cache --no-meter\` ` +
      `(every request reads the stores, nothing counted: what issue 17 targets). Loads: ${f.settings.durationS} s at ${f.settings.connections} connections after ` +
      `${f.settings.warmupS} s of warm-up, ${f.settings.c1DurationS} s at 1 connection, spread over ${int(f.settings.keys)} keys. ` +
      `Load average when the section began: ${f.loadAverage.map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    `- **Sample:** ${int(sa.documents)} sections over its editions; first start on the empty data dir (initdb + sample ingest) ${sec(sa.firstStartMs)}.`,
    `- **Federal load on top of it:** ${fe.editions} editions (${fe.unchangedEditions} skipped as unchanged, already in the sample), ` +
      `${int(fe.documents)} sections read, ${int(fe.versions)} versions written; ingest ${sec(w.ingestMs)}, ` +
      `${sec(fe.loadWallMs)} in all with process start, coverage refresh (${sec(w.coverageMs)}) and audit (${sec(w.auditMs)}: ${w.auditSummary}).`,
    `- **Pools.** Sample: § 1's (lookups: ${pool(sa.lookupPool)}; searches: ${pool(sa.searchPool)}). ` +
      `Federal, from titles the sample lacks (${fe.poolTitles.join(', ')}): random keys of each edition at 60 days after it, inside the version it starts, ` +
      `key and printed form alternating, 3 % unknown keys (${pool(fe.lookupPool)}); searches of the titles' own words, ` +
      `broad (${fe.queries.broad.map((q) => `"${q}"`).join(', ')}) and narrow, in two or three sections (${fe.queries.narrow.map((q) => `"${q}"`).join(', ')}), ` +
      `undated, at 2014-01-01 and 2023-06-01, and at 2023-06-01 with jurisdiction=us (${pool(fe.searchPool)}).`,
    '',
    '| server | run | sample p50 / p99 ms | federal p50 / p99 ms | federal ÷ sample (p50 / p99) | sample req/s | federal req/s | federal ÷ sample (req/s) | sample statuses | federal statuses | CPU (cores), sample: server / other processes | CPU, federal: server / other |',
    '|---|---|--:|--:|--:|--:|--:|--:|---|---|--:|--:|',
    ...server('`asof serve` (cache, meter)', (c) => c.served),
    ...server('`asof serve --no-cache --no-meter`', (c) => c.uncachedUnmetered),
    '',
    ...errorLines([sa, fe].flatMap((c) => [c.served, c.uncachedUnmetered]).flatMap((x) => [x.lookup, x.search, x.lookupC1, x.searchC1])),
  ];
}

const LOADED_TARGETS = { searchP50Ms: 20, searchP99Ms: 100, lookupP99Ms: 25, startMs: 3000, dcVersionsPerS: 200, rerunSpeedup: 10 };

/** The issue-17 verdicts on the loaded corpus, each with the figure it is read from. */
function loadedVerdicts(f: LoadedFigures) {
  const u = f.loaded.unmetered;
  const startMs = median(f.starts.map((x) => x.healthMs));
  const dcPerS = f.dc.versionsWritten / (f.dc.firstMs / 1000);
  const speedup = f.dc.firstMs / f.dc.rerunMs;
  const search = (x: LoadResult) => x.latency.p50 <= LOADED_TARGETS.searchP50Ms && x.latency.p99 <= LOADED_TARGETS.searchP99Ms;
  return {
    startMs,
    dcPerS,
    speedup,
    broad: search(u.broad),
    narrow: search(u.narrow),
    lookup: u.lookup.latency.p99 <= LOADED_TARGETS.lookupP99Ms,
    start: startMs <= LOADED_TARGETS.startMs,
    dc: dcPerS >= LOADED_TARGETS.dcVersionsPerS,
    rerun: speedup >= LOADED_TARGETS.rerunSpeedup,
  };
}

const corpusTotal = (f: LoadedFigures) =>
  Object.values(f.corpus.byJurisdiction).reduce(
    (t, c) => ({ sections: t.sections + c.sections, versions: t.versions + c.versions, textBytes: t.textBytes + c.textBytes }),
    { sections: 0, versions: 0, textBytes: 0 },
  );

/** The Summary's rows for § 1i: the issue's targets on the loaded corpus, read off `--no-cache --no-meter`. */
function loadedSummary(f: LoadedFigures): string[] {
  const v = loadedVerdicts(f);
  const { unmetered: u, metered: m } = f.loaded;
  const c = f.settings.connections;
  const total = corpusTotal(f);
  const pair = (x: LoadResult) => `${ms(x.latency.p50)} / ${ms(x.latency.p99)}`;
  return [
    `Loaded corpus (§ 1i): ${int(total.sections)} sections, ${int(total.versions)} versions, ${(total.textBytes / 1e6).toFixed(0)} MB of text` +
      `${f.sources.dcSlice ? ' (the D.C. slice only: no --dc-repo)' : ''}; every request reads the stores (\`--no-cache\`).`,
    '',
    '| figure | loaded, --no-meter | loaded, metered | sample, --no-meter | target |',
    '|---|--:|--:|--:|---|',
    `| lookup p50 / p99 (ms), ${c} connections | ${pair(u.lookup)} | ${pair(m.lookup)} | ${pair(f.sample.unmetered.lookup)} | p99 ≤ ${LOADED_TARGETS.lookupP99Ms} ms: ${verdict(v.lookup)} |`,
    `| search, broad, p50 / p99 (ms), ${c} connections | ${pair(u.broad)} | ${pair(m.broad)} | ${pair(f.sample.unmetered.search)} | p50 ≤ ${LOADED_TARGETS.searchP50Ms}, p99 ≤ ${LOADED_TARGETS.searchP99Ms} ms: ${verdict(v.broad)} |`,
    `| search, narrow, p50 / p99 (ms), ${c} connections | ${pair(u.narrow)} | ${pair(m.narrow)} | | p50 ≤ ${LOADED_TARGETS.searchP50Ms}, p99 ≤ ${LOADED_TARGETS.searchP99Ms} ms: ${verdict(v.narrow)} |`,
    `| lookup / broad / narrow req/s, ${c} connections | ${int(u.lookup.rps)} / ${int(u.broad.rps)} / ${int(u.narrow.rps)} | ${int(m.lookup.rps)} / ${int(m.broad.rps)} / ${int(m.narrow.rps)} | ${int(f.sample.unmetered.lookup.rps)} / ${int(f.sample.unmetered.search.rps)} / | |`,
    `| start on the loaded data dir → healthy (median of ${f.starts.length}) | ${sec(v.startMs)} | | | ≤ 3 s: ${verdict(v.start)} |`,
    `| D.C. Code history, \`asof fetch dc-code\` end to end | ${int(v.dcPerS)} versions/s | | | ≥ ${LOADED_TARGETS.dcVersionsPerS} versions/s: ${verdict(v.dc)} |`,
    `| D.C. Code, unchanged re-run: first ÷ re-run | ${ratio(v.speedup)} | | | ≥ ${LOADED_TARGETS.rerunSpeedup}×: ${verdict(v.rerun)} |`,
    '',
  ];
}

/**
 * The server's CPU time per answer (ms), all its threads and its main thread alone: what a load costs whatever else
 * the machine runs, where latency and req/s depend on what the other processes leave.
 */
function cpuPerRequest(x: LoadResult): string {
  if (!x.requests) return '–';
  const per = (coresUsed: number | undefined) => (coresUsed === undefined ? '–' : ms((coresUsed * x.durationS * 1000) / x.requests));
  return `${per(x.cpu.server)} (${per(x.cpu.serverMainThread)})`;
}

function loadedSection(f: LoadedFigures, separately?: BenchResults['loadedRun']): string[] {
  const v = loadedVerdicts(f);
  const total = corpusTotal(f);
  const c = f.settings.connections;
  const pool = (p: PoolStats) =>
    poolMix(p) + (p.withHits === undefined ? '' : `; ${p.withHits} with hits, ${int(p.meanHits ?? 0)} hits on average`);
  const quoted = (qs: string[]) => qs.map((q) => `"${q}"`).join(', ');
  const runRow = (server: string, corpus: string, x: LoadResult, bare?: LoadResult) =>
    `| ${server} | ${corpus} | ${x.connections} | ${ms(x.latency.p50)} | ${ms(x.latency.p99)} | ${ms(x.latency.max)} | ${int(x.rps)} | ${bare ? ratio(x.rps / bare.rps) : ''} | ${cpuPerRequest(x)} | ${statusMix(x)} | ${cores(x.cpu.server)} / ${cores(x.cpu.other)} |`;
  const server = (name: string, which: 'unmetered' | 'metered') => {
    const [sa, lo] = [f.sample[which], f.loaded[which]];
    return [
      runRow(name, 'sample: lookup', sa.lookup, f.bare.lookup),
      runRow(name, 'loaded: lookup', lo.lookup, f.bare.lookup),
      runRow(name, 'sample: search', sa.search, f.bare.search),
      runRow(name, 'loaded: search, broad', lo.broad, f.bare.search),
      runRow(name, 'loaded: search, narrow', lo.narrow, f.bare.search),
      runRow(name, 'sample: lookup', sa.lookupC1, f.bare.lookupC1),
      runRow(name, 'loaded: lookup', lo.lookupC1, f.bare.lookupC1),
      runRow(name, 'sample: search', sa.searchC1, f.bare.searchC1),
      runRow(name, 'loaded: search, broad', lo.broadC1, f.bare.searchC1),
      runRow(name, 'loaded: search, narrow', lo.narrowC1, f.bare.searchC1),
    ];
  };
  return [
    '## 1i. The real loaded corpus: load, size, start, lookup and search (issue 17)',
    '',
    ...measuredSeparately(separately),
    "One fresh data dir loaded through the CLI as a user would (bench/loaded.ts), each step a process of its own: `asof serve`'s first start " +
      `(the bundled sample), \`asof ingest uslm\` (the ${f.sources.zips} OLRC zips under \`${f.sources.uslmDir}\`), \`asof fetch dc-code --repo ${f.sources.dcRepo}\`` +
      (f.sources.dcSlice
        ? ' (**the slice the repo carries, not the whole history**: no `--dc-repo` was given)'
        : " (the Council's repository: the whole history)") +
      `, the same fetch again (nothing new), \`asof fetch state-code tn|ms --source ${f.sources.statesDir}\` (every release there). ` +
      "Peak RSS is the process's VmHWM read every 100 ms. Then the loads, each on a server of its own on that data dir: `asof serve --no-cache --no-meter` " +
      "(every request reads the stores, nothing counted: the issue's targets) and `asof serve --no-cache` (metered: one conditional write per request); " +
      "the sample's loads were run on the same data dir before anything else was loaded. " +
      `Loads: ${f.settings.durationS} s at ${c} connections after ${f.settings.warmupS} s of warm-up, ${f.settings.c1DurationS} s at 1 connection, over ${int(f.settings.keys)} keys. ` +
      `Load average when the section began ${f.loadAverage.atStart.map((l) => l.toFixed(1)).join(', ')}; when the loads on the loaded corpus began ${f.loadAverage.atLoads.map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    '| step | command | time | peak RSS | what it did |',
    '|---|---|--:|--:|---|',
    ...f.steps.map((st) => `| ${st.label} | \`${st.command}\` | ${sec(st.ms)} | ${mib(st.peakRssBytes)} | ${st.summary} |`),
    '',
    `D.C. Code: ${int(f.dc.versionsWritten)} versions of ${f.dc.ingested} publications in ${sec(f.dc.firstMs)} end to end (process start, stores, ` +
      `the steps after the ingest included): **${int(v.dcPerS)} versions/s** (≥ ${LOADED_TARGETS.dcVersionsPerS}: ${verdict(v.dc)}); ` +
      `the re-run with nothing new ${sec(f.dc.rerunMs)}, **${ratio(v.speedup)}** faster (≥ ${LOADED_TARGETS.rerunSpeedup}×: ${verdict(v.rerun)}).`,
    '',
    '| jurisdiction | sections | versions | MB of text |',
    '|---|--:|--:|--:|',
    ...Object.entries(f.corpus.byJurisdiction).map(
      ([j, x]) => `| ${j} | ${int(x.sections)} | ${int(x.versions)} | ${(x.textBytes / 1e6).toFixed(1)} |`,
    ),
    `| all | ${int(total.sections)} | ${int(total.versions)} | ${(total.textBytes / 1e6).toFixed(1)} |`,
    '',
    `Data dir on disk: ${mib(f.corpus.dataDirBytes)}. First start on the empty data dir: healthy after ${sec(f.firstStart.healthMs)}; ` +
      `starts on the loaded data dir → first healthy answer: ${f.starts.map((x) => sec(x.healthMs)).join(', ')} (median ${sec(v.startMs)}, ≤ 3 s: ${verdict(v.start)}).`,
    '',
    `- **Lookup pool:** up to ${Math.max(...Object.values(f.corpus.lookupsByJurisdiction))} stored versions a jurisdiction drawn at random ` +
      `(${Object.entries(f.corpus.lookupsByJurisdiction)
        .map(([j, n]) => `${j} ${n}`)
        .join(', ')}), each at 30 days into its version (half-way through a shorter one), key and printed form alternating; ` +
      `${f.corpus.notFound} 404s (unknown keys, and real keys before their first version). Probed: ${pool(f.pools.lookup)}.`,
    `- **Search pools**, words of the loaded corpus's own text: broad, the most widespread (${quoted(f.corpus.broad)}; ${pool(f.pools.broad)}), ` +
      `narrow, in two or three sections (${quoted(f.corpus.narrow)}; ${pool(f.pools.narrow)}); each undated, at 2019-06-01 and 2023-06-01, ` +
      "and at 2023-06-01 with jurisdiction=dc and =us. Sample: § 1's pools.",
    `- **Bare node:http:** one fixed body of the loaded corpus's mean answer size (lookup ${int(f.bare.bodyBytes.lookup)} B, search ${int(f.bare.bodyBytes.search)} B).`,
    '',
    '| server | corpus: run | conn. | p50 ms | p99 ms | max ms | req/s | ÷ bare req/s | server CPU ms / request: all threads (main thread) | statuses | CPU (cores): server / other processes |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|',
    ...server('`--no-cache --no-meter`', 'unmetered'),
    ...server('`--no-cache` (metered)', 'metered'),
    runRow('bare node:http', 'lookup-sized body', f.bare.lookup),
    runRow('bare node:http', 'search-sized body', f.bare.search),
    runRow('bare node:http', 'lookup-sized body', f.bare.lookupC1),
    runRow('bare node:http', 'search-sized body', f.bare.searchC1),
    '',
    ...errorLines([f.sample.unmetered, f.sample.metered].flatMap((x) => Object.values(x) as LoadResult[])),
    ...errorLines([f.loaded.unmetered, f.loaded.metered].flatMap((x) => Object.values(x) as LoadResult[])),
  ];
}

function diffSection(d: DiffFigures, separately?: BenchResults['diffRun']): string[] {
  const t = (x: DiffTiming) => `${ms(x.medianMs)} / ${ms(x.p95Ms)} / ${ms(x.maxMs)}`;
  const ratio = (x: DiffTiming) => `${(x.medianMs / d.baselineHash.medianMs).toFixed(1)}×`;
  const [a, b] = d.pair.chars;
  const [pa, pb] = d.pathological.chars;
  return [
    '## 1j. Diff of two versions (issue 19)',
    '',
    ...measuredSeparately(separately),
    `In process (functions/law/diff.ts on jsdiff), ${d.bounded.runs} runs each after warm-up; load average at the start ${d.loadAverage.map((x) => x.toFixed(2)).join(' / ')}. ` +
      `The pair: ${d.pair.what} (${int(a)} and ${int(b)} characters, test/fixtures/dc-code-51-103), the longest real D.C. section with more than one version. ` +
      'The baseline is the content hash (SHA-256) of both texts, measured in the same run: the ratios hold on a busy machine where the milliseconds do not. ' +
      `Budget: ${int(d.budget.wordEdits)} word edits per replaced passage, ${int(d.budget.lineEdits)} line edits, ${d.budget.timeMs} ms of word diffs per call.`,
    '',
    '| what | median / p95 / max (ms) | × baseline (median) | note |',
    '|---|--:|--:|---|',
    `| baseline: content hash of both texts | ${t(d.baselineHash)} | 1.0× | |`,
    `| /law/diff's diff (edit script + unified) | ${t(d.bounded)} | ${ratio(d.bounded)} | target well under 100 ms: ${verdict(d.bounded.p95Ms < 100)}; word level: ${d.pair.wordLevel}; words kept / removed / added ${int(d.pair.words.kept)} / ${int(d.pair.words.removed)} / ${int(d.pair.words.added)} |`,
    `| jsdiff diffWords on the whole pair (not used: loses spaces) | ${t(d.jsdiffWords)} | ${ratio(d.jsdiffWords)} | |`,
    `| pathological pair, bounded | ${t(d.pathological.bounded)} | ${ratio(d.pathological.bounded)} | ${d.pathological.what}, ${int(pa)} and ${int(pb)} characters; word level: ${d.pathological.wordLevel} (given as lines) |`,
    `| pathological pair, jsdiff diffWords unbounded | ${d.pathological.unboundedMs === null ? '– (not run: `--quick`)' : ms(d.pathological.unboundedMs)} | | what the budget prevents: the event loop held that long |`,
    '',
  ];
}
