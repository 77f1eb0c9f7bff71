/**
 * What a hostile search load does to everyone else (issue 15): against a running `asof serve --no-cache` (every
 * search reaches PGlite), N clients each send the costliest search the API accepts, back to back, for a while;
 * meanwhile a lookup, a cheap search and GET /v1/health/corpus are each sent one request at a time, and the corpus
 * probe is run through the admin socket again and again (as `asof probe` does). The same without the hostile clients
 * first: the baseline. PGlite restarts are read from the server's log (its warning for each).
 */
import { callAdminJob } from '#local/admin-socket.ts';
import { findRunningServer } from '#local/data-dir.ts';
import { PGLITE_RESTART_LOG } from '#local/local-runtime.ts';
import type { HealthVerdict } from '#ops/ports.ts';
import { type LoadResult, runLoad, runSequentialDuring } from './http-load.ts';
import { procStatus, type RunningServer } from './proc.ts';

export interface AvailabilityPhase {
  /** Hostile clients at once; 0 for the baseline. */
  clients: number;
  durationS: number;
  lookup: LoadResult;
  search: LoadResult;
  health: LoadResult;
  /** What the hostile clients got (null for the baseline). */
  hostile: LoadResult | null;
  /** The corpus probe through the admin socket, one after another with a pause of PROBE_PAUSE_MS: wall ms and verdict of each. */
  probes: { ms: number; detail: string }[];
  /** The reopen time (ms) of each PGlite restart the server logged during the phase and its drain. */
  restartsReopenMs: number[];
  /** From the end of the hostile load until the cheap search answered 200 again (the queue worked off). */
  drainMs: number;
  rss: { before: number; after: number; hwm: number };
}

export interface AvailabilityResults {
  hostile: { q: string; shape: string; words: number; adapterMs: number; path: string };
  cheap: { path: string };
  lookupPaths: number;
  phases: AvailabilityPhase[];
}

const PROBE_PAUSE_MS = 1_000;
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** The corpus probe, forced, through the running server's admin socket, one at a time until `during` settles. */
async function probeDuring(dataDir: string, during: Promise<unknown>): Promise<AvailabilityPhase['probes']> {
  let done = false;
  void during.finally(() => (done = true));
  const out: AvailabilityPhase['probes'] = [];
  // Where the server put its socket (in the data dir, or a private temp directory): runtime.json says.
  const socket = (await findRunningServer(dataDir))?.adminSocket ?? 'no server running';
  while (!done) {
    const began = performance.now();
    const verdict = (await callAdminJob(socket, 'probe', {}, () => undefined).catch((err: unknown) => ({
      detail: `admin socket: ${err instanceof Error ? err.message : String(err)}`,
    }))) as Pick<HealthVerdict, 'detail'>;
    out.push({ ms: performance.now() - began, detail: verdict.detail });
    await sleep(PROBE_PAUSE_MS);
  }
  return out;
}

/** Until `path` answers 200 (polled one request at a time), or `limitMs`. */
async function drain(origin: string, path: string, headers: Record<string, string>, limitMs = 120_000): Promise<number> {
  const began = performance.now();
  while (performance.now() - began < limitMs) {
    const res = await fetch(`${origin}${path}`, { headers });
    await res.arrayBuffer();
    if (res.status === 200) break;
    await sleep(50);
  }
  return performance.now() - began;
}

function restartsLogged(lines: readonly string[]): number[] {
  return lines
    .filter((l) => l.includes(PGLITE_RESTART_LOG))
    .map((l) => {
      try {
        return Number((JSON.parse(l.replace(/^\[stderr\] /, '')) as { reopenMs?: unknown }).reopenMs);
      } catch {
        return NaN;
      }
    });
}

export async function measureAvailability(opts: {
  server: RunningServer;
  dataDir: string;
  headers: Record<string, string>;
  lookupPaths: readonly string[];
  cheapPath: string;
  hostile: Omit<AvailabilityResults['hostile'], 'path'>;
  hostilePath: string;
  clients: readonly number[];
  durationS: number;
  log: (line: string) => void;
}): Promise<AvailabilityResults> {
  const { server, headers, log } = opts;
  const origin = new URL(server.url).origin;
  const phases: AvailabilityPhase[] = [];
  for (const clients of [0, ...opts.clients]) {
    const label = clients ? `${clients} hostile clients` : 'no hostile load';
    const mark = server.output.length;
    const rssBefore = procStatus(server.pid).rss;
    const hostileRun = clients
      ? runLoad({
          name: `hostile search, ${clients} clients`,
          origin,
          paths: [opts.hostilePath],
          headers,
          connections: clients,
          durationS: opts.durationS,
          serverPid: server.pid,
        })
      : sleep(opts.durationS * 1000).then(() => null);
    const sequential = (name: string, paths: readonly string[], seed: number) =>
      runSequentialDuring({ name: `${name}, one at a time (${label})`, origin, paths, headers, serverPid: server.pid, seed }, hostileRun);
    const [lookup, search, health, probes, hostile] = await Promise.all([
      sequential('lookup', opts.lookupPaths, 11),
      sequential('cheap search', [opts.cheapPath], 12),
      sequential('GET /v1/health/corpus', ['/v1/health/corpus'], 13),
      probeDuring(opts.dataDir, hostileRun),
      hostileRun,
    ]);
    const drainMs = await drain(origin, opts.cheapPath, headers);
    const after = procStatus(server.pid);
    const phase: AvailabilityPhase = {
      clients,
      durationS: opts.durationS,
      lookup,
      search,
      health,
      hostile,
      probes,
      restartsReopenMs: restartsLogged(server.output.slice(mark)),
      drainMs,
      rss: { before: rssBefore, after: after.rss, hwm: after.hwm },
    };
    phases.push(phase);
    const mix = (r: LoadResult) =>
      Object.entries(r.byStatus)
        .map(([s, v]) => `${s}×${v.count}`)
        .join(' ');
    log(
      `  ${label}: lookup p50 ${lookup.latency.p50.toFixed(1)} / max ${lookup.latency.max.toFixed(0)} ms (${mix(lookup)}); ` +
        `cheap search p50 ${search.latency.p50.toFixed(0)} / max ${search.latency.max.toFixed(0)} ms (${mix(search)}); ` +
        `health p50 ${health.latency.p50.toFixed(1)} ms (${mix(health)}); probes ${probes.length}, slowest ${Math.max(...probes.map((p) => p.ms)).toFixed(0)} ms` +
        (hostile ? `; hostile ${mix(hostile)}, max ${hostile.latency.max.toFixed(0)} ms` : '') +
        `; ${phase.restartsReopenMs.length} PGlite restarts; drained in ${drainMs.toFixed(0)} ms`,
    );
    for (const r of [lookup, search, health, ...(hostile ? [hostile] : [])])
      for (const e of r.serverErrors) log(`    ${r.name}: ${e.count} × ${e.body}`);
  }
  return {
    hostile: { ...opts.hostile, path: opts.hostilePath },
    cheap: { path: opts.cheapPath },
    lookupPaths: opts.lookupPaths.length,
    phases,
  };
}
