import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadResult, probePaths, runLoad } from './http-load.ts';
import type { IngestWorkerResult } from './ingest-worker.ts';
import { runNode, startServer } from './proc.ts';
import { type TextPool, writeSyntheticTitle } from './synthetic-uslm.ts';

/**
 * Where the server's CPU goes under load: the server runs with `--cpu-prof` (a separate run from the measured ones,
 * since profiling slows it), and the main thread's samples taken during the load are summed by self time into a
 * few buckets (the AWS SDK client, dynalite and LevelDB, PGlite, node's HTTP stack, asof's own code, ...).
 */

export interface CpuBreakdown {
  name: string;
  /** ms of main-thread samples in the load window. */
  windowMs: number;
  /** bucket → share of the window (0..1), largest first. */
  shares: [string, number][];
  load: LoadResult;
  /** Share of the window the PGlite thread was busy (not idle), when the server ran one. */
  pgliteThreadBusy: number | null;
}

/** Profiles `--cpu-prof` wrote, one per thread (`CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile`); thread 0 is the main one. */
async function threadProfiles(dir: string): Promise<{ main: string; others: string[] }> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  const threadOf = (f: string) => Number(f.split('.')[4]);
  const main = files.find((f) => threadOf(f) === 0);
  if (!main) throw new Error(`no main-thread CPU profile written to ${dir} (found ${files.join(', ') || 'none'})`);
  return { main: join(dir, main), others: files.filter((f) => f !== main).map((f) => join(dir, f)) };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

function bucketOf(functionName: string, url: string): string {
  if (!url) {
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (/^(read|open|close|fstat|fsync|fdatasync|ftruncate|stat|lstat|readdir|unlink|rename|readFileUtf8)$/.test(functionName))
      return 'file system calls (native)';
    if (/^(writev|writeUtf8String|writeLatin1String|writeAsciiString)$/.test(functionName)) return 'socket writes (native)';
    if (functionName === 'writeBuffer') return 'writeBuffer (native, file or socket)';
    return 'other native';
  }
  if (/@smithy|@aws-sdk/.test(url)) return 'AWS SDK client (middleware, SigV4, (un)marshalling)';
  if (/\/(dynalite|classic-level|abstract-level|level-[a-z-]+|lazy|async|big\.js|buffer-crc32)\//.test(url)) return 'dynalite + LevelDB';
  if (/\/(saxes|xmlchars)\//.test(url) || /functions\/ingest\/uslm\.ts/.test(url)) return 'USLM reading (saxes + reader)';
  if (/@electric-sql\/pglite/.test(url) || url.startsWith('wasm://')) return 'PGlite (PostgreSQL in WASM)';
  if (/^node:(_http|http)/.test(url) || /node:internal\/http/.test(url)) return 'node HTTP (server and client)';
  if (/^node:(net|stream)|node:internal\/(streams|stream_base)/.test(url)) return 'node net/streams (JS)';
  if (/^node:fs|node:internal\/fs/.test(url)) return 'node fs (JS)';
  if (/node:internal\/crypto|^node:crypto/.test(url)) return 'node crypto';
  if (/\/work\/main\/functions\/|\/functions\/[a-z]+\/[^/]+\.ts/.test(url)) return 'asof code (functions/)';
  if (/\/(zod|@middy|@aws-lambda-powertools)\//.test(url)) return 'zod + middy + logger';
  if (/node:internal\/modules|\/tsx\//.test(url)) return 'module loading (tsx)';
  return 'other JS (node internals, events, timers)';
}

async function breakdown(file: string, fromMs: number, toMs: number): Promise<{ windowMs: number; shares: [string, number][] }> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const buckets = new Map<string, number>();
  let t = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (t / 1000 < fromMs || t / 1000 > toMs) return;
    const frame = nodes.get(id)!;
    const b = bucketOf(frame.functionName, frame.url);
    buckets.set(b, (buckets.get(b) ?? 0) + dt);
    total += dt;
  });
  const shares = [...buckets].map(([k, v]): [string, number] => [k, v / total]).sort((a, b) => b[1] - a[1]);
  return { windowMs: total / 1000, shares };
}

/** One profiled server per load: returns the CPU breakdown of the load window. */
export async function profileLoad(opts: {
  name: string;
  dataDir: string;
  paths: readonly string[];
  headers: Record<string, string>;
  durationS: number;
  cache: boolean;
}): Promise<CpuBreakdown> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-bench-prof-'));
  try {
    const spawned = performance.now();
    const server = await startServer(opts.dataDir, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], cache: opts.cache });
    let load: LoadResult;
    let loadFrom: number;
    try {
      // As before the measured runs: every request once, so a server with its cache on is as warm as there.
      await probePaths(new URL(server.url).origin, opts.paths, opts.headers);
      loadFrom = performance.now() - spawned;
      load = await runLoad({
        name: opts.name,
        origin: new URL(server.url).origin,
        paths: opts.paths,
        headers: opts.headers,
        durationS: opts.durationS,
        serverPid: server.pid,
      });
    } finally {
      await server.stop();
    }
    // Skip a second of the load's start, so the window holds the steady state only.
    const [from, to] = [loadFrom + 1000, loadFrom + opts.durationS * 1000];
    const { main, others } = await threadProfiles(dir);
    // Of the other threads (tsx's module loader, PGlite's: functions/stores/postgres/pglite-thread.mjs), PGlite's is
    // the one running its code: how busy was it?
    const pgliteFile = (
      await Promise.all(others.map(async (f) => ((await readFile(f, 'utf8')).includes('@electric-sql/pglite') ? f : null)))
    ).find(Boolean);
    const pglite = pgliteFile ? (await breakdown(pgliteFile, from, to)).shares : null;
    const pgliteThreadBusy = pglite ? 1 - (pglite.find(([b]) => b === 'idle')?.[1] ?? 0) : null;
    return { name: opts.name, load, ...(await breakdown(main, from, to)), pgliteThreadBusy };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface IngestBreakdown {
  sections: number;
  versions: number;
  ingestMs: number;
  windowMs: number;
  shares: [string, number][];
}

/** A small ingest (synthetic title, 3 editions) in the worker under `--cpu-prof`: where runIngest's CPU goes. */
export async function profileIngest(pool: TextPool, sections: number): Promise<IngestBreakdown> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-bench-ingestprof-'));
  try {
    const editions = await writeSyntheticTitle(pool, dir, sections);
    const input = { dataDir: join(dir, 'data'), files: editions.map((e) => e.file), retrievedAt: new Date().toISOString() };
    const profDir = join(dir, 'prof');
    const { stdout } = await runNode([
      '--cpu-prof',
      `--cpu-prof-dir=${profDir}`,
      '--import',
      'tsx',
      join('bench', 'ingest-worker.ts'),
      JSON.stringify(input),
    ]);
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`the profiled ingest worker printed no result:\n${stdout}`);
    const worker = JSON.parse(line.slice('RESULT '.length)) as IngestWorkerResult;
    const { main } = await threadProfiles(profDir);
    // The window: runIngest only (after the stores opened, before coverage and audit); module loading comes first.
    const loadMs = worker.startedAtMs ?? 0;
    const { windowMs, shares } = await breakdown(main, loadMs + worker.openMs, loadMs + worker.openMs + worker.ingestMs);
    return { sections, versions: worker.editions.reduce((n, e) => n + e.puts, 0), ingestMs: worker.ingestMs, windowMs, shares };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
