import { join } from 'node:path';
import { procStatus, REPO, type RunningServer, runNode, startServer } from './proc.ts';

/** `asof serve` startup: spawn → "serving" line → first 200 from /v1/health, with the server's own "ready in". */

export interface StartupFigure {
  label: string;
  servingMs: number;
  healthMs: number;
  /** serveLocal's own "ready in N ms" (stores opened, sample loaded if needed, listening). */
  readyInMs: number | null;
  /** RSS right after the first healthy answer, and the peak so far. */
  rss: number;
  hwm: number;
  /** The sample-ingest lines a first start prints. */
  lines: string[];
}

export function startupFigure(label: string, server: RunningServer): StartupFigure {
  const serving = server.output.find((l) => / serving /.test(l)) ?? '';
  const ready = /ready in (\d+) ms/.exec(serving);
  const { rss, hwm } = procStatus(server.pid);
  return {
    label,
    servingMs: server.servingMs,
    healthMs: server.healthMs,
    readyInMs: ready ? Number(ready[1]) : null,
    rss,
    hwm,
    lines: server.output.filter((l) => /ingested|loaded|audit:/.test(l)).map((l) => l.trim()),
  };
}

/** Starts and stops the server `n` times on a data dir that already holds its data. */
export async function warmStarts(dataDir: string, n: number, label: string): Promise<StartupFigure[]> {
  const out: StartupFigure[] = [];
  for (let i = 0; i < n; i++) {
    const server = await startServer(dataDir);
    try {
      out.push(startupFigure(`${label} #${i + 1}`, server));
    } finally {
      await server.stop();
    }
  }
  return out;
}

/** The floor under any `asof` command: node, tsx and the code loaded, no store opened (`asof openapi`; median of 3). */
export async function cliFloorMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push((await runNode([join(REPO, 'bin/asof.js'), 'openapi'])).ms);
  return times.sort((a, b) => a - b)[1]!;
}
