import { type LoadResult, runLoad } from './http-load.ts';

/** The loads of a section on one server: each named pool of paths at N connections, then each at one connection. */

export interface LoadSettings {
  connections: number;
  durationS: number;
  c1DurationS: number;
  warmupS: number;
  keys: number;
}

/** `lookup`, `lookupC1`, `search`, `searchC1`, … for pools named `lookup` and `search`. */
export type PoolRuns<K extends string> = Record<K | `${K}C1`, LoadResult>;

export interface LoadTarget {
  origin: string;
  pid: number;
  /**
   * A slow search load leaves work queued when its clients stop: wait for a trivial answer before the next run (an
   * asof server; the bare server queues nothing).
   */
  drains: boolean;
}

export async function measurePools<K extends string>(
  label: string,
  target: LoadTarget,
  headers: Record<string, string>,
  pools: Record<K, readonly string[]>,
  s: LoadSettings,
  log: (line: string) => void,
): Promise<PoolRuns<K>> {
  const drain = async () => (await fetch(`${target.origin}/v1/law/search?q=zzqxjv&asOf=2000-01-01`, { headers })).arrayBuffer();
  const run = async (name: string, paths: readonly string[], connections: number, durationS: number, warmupS: number) => {
    const r = await runLoad({
      name: `${name} (${label})`,
      origin: target.origin,
      paths,
      headers,
      serverPid: target.pid,
      connections,
      durationS,
      warmupS,
    });
    if (target.drains) await drain();
    const statuses = Object.entries(r.byStatus)
      .map(([st, v]) => `${st}×${v.count}`)
      .join(' ');
    log(
      `  ${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p99 ${r.latency.p99.toFixed(2)} ms (${statuses}${r.errors ? `, ${r.errors} errors` : ''})`,
    );
    for (const e of r.serverErrors) log(`    ${e.count} × ${e.body}`);
    return r;
  };
  const names = Object.keys(pools) as K[];
  const out = {} as Record<string, LoadResult>;
  for (const name of names) out[name] = await run(name, pools[name], s.connections, s.durationS, s.warmupS);
  for (const name of names) out[`${name}C1`] = await run(`${name}, 1 connection`, pools[name], 1, s.c1DurationS, 1);
  return out as PoolRuns<K>;
}
