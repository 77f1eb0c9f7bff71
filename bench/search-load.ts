/**
 * Search through the running local server on a loaded data dir (issue 17's targets): `asof serve --no-cache
 * --no-meter` on DIR, keys rotating over 32, autocannon 15 s after 3 s of warm-up at 32 connections and at 1, broad
 * then narrow words of the D.C. Code at no date and two dates. Prints one `RESULT` line a run.
 *
 *   node --import tsx bench/search-load.ts DIR
 */
import { runLoad } from './http-load.ts';
import { createKeys, rotatingAuth, startServer } from './proc.ts';
import { searchPath } from './targets.ts';

const dataDir = process.argv[2]!;
const server = await startServer(dataDir, { cache: false, meter: false });
try {
  const headers = rotatingAuth(await createKeys(dataDir, 32));
  const origin = new URL(server.url).origin;
  const dates = [null, '2022-06-01', '2024-05-01'];
  const pool = (qs: string[]) => qs.flatMap((q) => dates.map((d) => searchPath(q, d, null)));
  const broad = pool(['court', 'rule', 'secretary service', 'court rule', 'district']);
  const narrow = pool(['strangulation', 'easement', 'quarantine', 'cemetery']);
  for (const [name, paths] of [
    ['broad', broad],
    ['narrow', narrow],
  ] as const) {
    for (const connections of [32, 1]) {
      const r = await runLoad({ name, origin, paths, headers, serverPid: server.pid, connections, durationS: 15, warmupS: 3 });
      const statuses = Object.entries(r.byStatus)
        .map(([s, v]) => `${s}×${v.count}`)
        .join(' ');
      console.log(
        `RESULT ${name} c${connections}: ${r.rps.toFixed(0)} req/s p50 ${r.latency.p50.toFixed(1)} ms p99 ${r.latency.p99.toFixed(1)} ms (${statuses})`,
      );
    }
  }
} finally {
  await server.stop();
}
