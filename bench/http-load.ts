import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { childEnv, cpuSnapshot, mainThreadCpuS, procStatus, stopChild } from './proc.ts';
import { prng } from './synthetic-uslm.ts';

/**
 * HTTP load through real sockets with autocannon (in this process; the servers are child processes, so the load
 * generator never shares an event loop with what it measures). Every request picks its path at random from a pool
 * (seeded), so no cache can answer the same request twice in a row; latencies are recorded per response, exactly
 * (autocannon's own histogram rounds to whole milliseconds), and split by status.
 */

interface AutocannonResult {
  requests: { total: number; average: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: AutocannonRequest[];
  timeout?: number;
}
type Autocannon = (opts: AutocannonOptions, cb?: (err: Error | null, result: AutocannonResult) => void) => EventEmitter & { stop(): void };

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  name: string;
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  latency: Percentiles;
  /** Per status code: count and latency. */
  byStatus: Record<string, { count: number; latency: Percentiles }>;
  errors: number;
  timeouts: number;
  meanBytes: number;
  /** RSS of the server process right after the run, and its peak so far (bytes). */
  serverRss?: { rss: number; hwm: number };
  /**
   * Mean CPU use during the measured run, in cores: the server (all its threads), this process (the load generator),
   * everything else; `serverMainThread`, the server's main thread alone (the rest is its store threads and libuv's).
   */
  cpu: { server: number; loadGenerator: number; other: number; serverMainThread?: number };
  /** Up to 5 distinct bodies of 5xx answers (error code and message), with how often each came. */
  serverErrors: { body: string; count: number }[];
  /** 503 answers without a Retry-After header (every 503 should carry one). */
  unavailableWithoutRetryAfter?: number;
}

/** Collects distinct 5xx bodies (the request id, different in each, is blanked so equal errors group). */
function errorCollector() {
  const seen = new Map<string, number>();
  let withoutRetryAfter = 0;
  return {
    add(status: number, body: string, retryAfter: unknown) {
      if (status === 503 && !retryAfter) withoutRetryAfter++;
      if (status < 500) return;
      const key = `${status} ${body.replace(/"requestId":"[^"]*"/, '"requestId":"…"').slice(0, 400)}`;
      if (seen.has(key) || seen.size < 5) seen.set(key, (seen.get(key) ?? 0) + 1);
    },
    list: () => [...seen].map(([body, count]) => ({ body, count })),
    withoutRetryAfter: () => withoutRetryAfter,
  };
}

export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted[sorted.length - 1]!,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
  };
}

export interface LoadOptions {
  name: string;
  /** `http://127.0.0.1:PORT` (no path). */
  origin: string;
  /** Paths (with query) to draw from, uniformly at random. */
  paths: readonly string[];
  headers?: Record<string, string>;
  connections?: number;
  durationS: number;
  /** A run of this many seconds before the measured one (results discarded). */
  warmupS?: number;
  seed?: number;
  /** Server pid whose RSS is read after the run. */
  serverPid?: number;
}

function once(
  opts: LoadOptions,
  durationS: number,
  record: boolean,
  errors = errorCollector(),
): Promise<{ result: AutocannonResult; latencies: Map<number, number[]>; bytes: number }> {
  const rnd = prng(opts.seed ?? 1);
  const pick = () => opts.paths[Math.floor(rnd() * opts.paths.length)]!;
  const latencies = new Map<number, number[]>();
  let bytes = 0;
  return new Promise((done, fail) => {
    const instance = autocannon(
      {
        url: opts.origin,
        connections: opts.connections ?? 32,
        duration: durationS,
        timeout: 30,
        // Headers are copied per request: a rotating `authorization` (proc.ts) gives each request the next key.
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({ ...req, path: pick(), headers: { ...opts.headers } }),
            onResponse: (status, body, _context, headers) =>
              errors.add(status, String(body), Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1]),
          },
        ],
      },
      (err, result) => (err ? fail(err) : done({ result, latencies, bytes })),
    );
    if (record) {
      instance.on('response', (_client: unknown, status: number, resBytes: number, ms: number) => {
        const list = latencies.get(status);
        if (list) list.push(ms);
        else latencies.set(status, [ms]);
        bytes += resBytes;
      });
    }
  });
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.warmupS) await once({ ...opts, seed: (opts.seed ?? 1) + 1000 }, opts.warmupS, false);
  const pids = [opts.serverPid ?? -1, process.pid];
  const mainBefore = mainThreadCpuS(opts.serverPid ?? -1);
  const before = cpuSnapshot(pids);
  const errors = errorCollector();
  const { result, latencies, bytes } = await once(opts, opts.durationS, true, errors);
  const after = cpuSnapshot(pids);
  const mainAfter = mainThreadCpuS(opts.serverPid ?? -1);
  const wallS = (after.at - before.at) / 1000;
  const [server, self] = [0, 1].map((i) => (after.processS[i]! - before.processS[i]!) / wallS) as [number, number];
  const other = (after.machineBusyS - before.machineBusyS) / wallS - (Number.isFinite(server) ? server : 0) - self;
  const all = [...latencies.values()].flat();
  const byStatus: LoadResult['byStatus'] = {};
  for (const [status, list] of [...latencies.entries()].sort((a, b) => a[0] - b[0]))
    byStatus[String(status)] = { count: list.length, latency: percentiles(list) };
  return {
    name: opts.name,
    connections: opts.connections ?? 32,
    durationS: result.duration,
    requests: all.length,
    rps: all.length / result.duration,
    latency: percentiles(all),
    byStatus,
    errors: result.errors,
    timeouts: result.timeouts,
    meanBytes: all.length ? bytes / all.length : 0,
    ...(opts.serverPid && { serverRss: procStatus(opts.serverPid) }),
    cpu: { server, loadGenerator: self, other, serverMainThread: (mainAfter - mainBefore) / wallS },
    serverErrors: errors.list(),
    unavailableWithoutRetryAfter: errors.withoutRetryAfter(),
  };
}

// ---- the bare baseline ----------------------------------------------------------------------------------------

/** A plain node:http server: every path under /lookup and /search answers one fixed JSON body of the given size. */
const BARE_SERVER = `
import { createServer } from 'node:http';
const [lookupBytes, searchBytes] = process.argv.slice(1).map(Number);
const body = (n) => { const pad = Math.max(0, n - 14); return Buffer.from(JSON.stringify({ result: 'x'.repeat(pad) })); };
const bodies = { lookup: body(lookupBytes), search: body(searchBytes) };
const server = createServer((req, res) => {
  const b = req.url.startsWith('/search') ? bodies.search : bodies.lookup;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': b.length });
  res.end(b);
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

export interface BareServer {
  pid: number;
  origin: string;
  stop(): Promise<unknown>;
}

export async function startBareServer(lookupBytes: number, searchBytes: number): Promise<BareServer> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', BARE_SERVER, String(Math.round(lookupBytes)), String(Math.round(searchBytes))],
    {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m) done(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`bare server exited ${code}`)));
  });
  return { pid: child.pid!, origin: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** Sends each path once (bounded concurrency) and returns its status, bytes and, for search, the number of hits. */
export async function probePaths(
  origin: string,
  paths: readonly string[],
  headers: Record<string, string>,
  concurrency = 8,
): Promise<{ path: string; status: number; bytes: number; hits?: number }[]> {
  const out: { path: string; status: number; bytes: number; hits?: number }[] = new Array(paths.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < paths.length) {
        const i = next++;
        const res = await fetch(`${origin}${paths[i]}`, { headers });
        const text = await res.text();
        const hits =
          res.status === 200 && paths[i]!.includes('/law/search') ? (JSON.parse(text) as { results: unknown[] }).results.length : undefined;
        out[i] = { path: paths[i]!, status: res.status, bytes: Buffer.byteLength(text), ...(hits !== undefined && { hits }) };
      }
    }),
  );
  return out;
}

/** A probed pool: how many distinct requests, their statuses, mean body size and, for searches, hits. */
export interface PoolStats {
  distinct: number;
  statuses: Record<string, number>;
  meanBytes: number;
  withHits?: number;
  meanHits?: number;
}

/** What a probed pool holds: its statuses, mean size and, for searches, how many have hits. */
export function poolStats(probe: { status: number; bytes: number; hits?: number }[]): PoolStats {
  const statuses: Record<string, number> = {};
  for (const p of probe) statuses[p.status] = (statuses[p.status] ?? 0) + 1;
  const searches = probe.filter((p) => p.hits !== undefined);
  return {
    distinct: probe.length,
    statuses,
    meanBytes: probe.reduce((n, p) => n + p.bytes, 0) / Math.max(1, probe.length),
    ...(searches.length && {
      withHits: searches.filter((p) => p.hits! > 0).length,
      meanHits: searches.reduce((n, p) => n + p.hits!, 0) / searches.length,
    }),
  };
}

/** Each path sent `repeats` times, one request at a time; the median time of each (ms). */
export async function timeSequential(
  origin: string,
  paths: readonly string[],
  headers: Record<string, string>,
  repeats = 3,
): Promise<{ path: string; medianMs: number; hits?: number }[]> {
  const out: { path: string; medianMs: number; hits?: number }[] = [];
  for (const path of paths) {
    const times: number[] = [];
    let hits: number | undefined;
    for (let i = 0; i < repeats; i++) {
      const began = performance.now();
      const res = await fetch(`${origin}${path}`, { headers });
      const text = await res.text();
      times.push(performance.now() - began);
      if (res.status === 200 && path.includes('/law/search')) hits = (JSON.parse(text) as { results: unknown[] }).results.length;
    }
    out.push({ path, medianMs: times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!, ...(hits !== undefined && { hits }) });
  }
  return out;
}

/**
 * One request at a time, for as long as `during` is pending, then the request in flight is awaited too: every
 * lookup's time is recorded however long it takes (a load generator's run would drop the ones it cuts off).
 */
export async function runSequentialDuring(
  opts: { name: string; origin: string; paths: readonly string[]; headers: Record<string, string>; serverPid: number; seed?: number },
  during: Promise<unknown>,
): Promise<LoadResult> {
  const rnd = prng(opts.seed ?? 5);
  let done = false;
  void during.finally(() => (done = true));
  const latencies = new Map<number, number[]>();
  let bytes = 0;
  let errors = 0;
  const serverErrors = errorCollector();
  const pids = [opts.serverPid, process.pid];
  const before = cpuSnapshot(pids);
  while (!done) {
    const path = opts.paths[Math.floor(rnd() * opts.paths.length)]!;
    const began = performance.now();
    try {
      const res = await fetch(`${opts.origin}${path}`, { headers: opts.headers });
      const text = await res.text();
      bytes += Buffer.byteLength(text);
      serverErrors.add(res.status, text, res.headers.get('retry-after'));
      const list = latencies.get(res.status) ?? [];
      list.push(performance.now() - began);
      latencies.set(res.status, list);
    } catch {
      errors++;
    }
  }
  const after = cpuSnapshot(pids);
  const wallS = (after.at - before.at) / 1000;
  const [server, self] = [0, 1].map((i) => (after.processS[i]! - before.processS[i]!) / wallS) as [number, number];
  const all = [...latencies.values()].flat();
  const byStatus: LoadResult['byStatus'] = {};
  for (const [status, list] of [...latencies.entries()].sort((a, b) => a[0] - b[0]))
    byStatus[String(status)] = { count: list.length, latency: percentiles(list) };
  return {
    name: opts.name,
    connections: 1,
    durationS: wallS,
    requests: all.length,
    rps: all.length / wallS,
    latency: percentiles(all),
    byStatus,
    errors,
    timeouts: 0,
    meanBytes: all.length ? bytes / all.length : 0,
    serverRss: procStatus(opts.serverPid),
    cpu: { server, loadGenerator: self, other: (after.machineBusyS - before.machineBusyS) / wallS - server - self },
    serverErrors: serverErrors.list(),
    unavailableWithoutRetryAfter: serverErrors.withoutRetryAfter(),
  };
}
