import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { issueKey } from '#accounts/issue-key.ts';
import { withDataDirAccounts } from './store-access.ts';

/**
 * Child processes of the benchmark: the `asof` server (started as a user starts it, whatever stores it runs on), the
 * ingest worker, `asof` commands.
 */

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ASOF = resolve(REPO, 'bin/asof.js');

export const childEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
});

/** VmRSS and VmHWM (peak RSS) of a live process, in bytes (Linux /proc). 0 when unreadable. */
export function procStatus(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** CPU time (s) of the whole machine (busy, all cores) and of some processes (user + system, all their threads). */
export function cpuSnapshot(pids: number[]): { at: number; machineBusyS: number; processS: number[] } {
  const TICK = 100; // USER_HZ: /proc reports clock ticks of 1/100 s on Linux
  let machineBusyS = NaN;
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    machineBusyS = (user! + nice! + system! + irq! + softirq! + steal!) / TICK;
  } catch {
    // not Linux
  }
  const processS = pids.map((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICK;
    } catch {
      return NaN;
    }
  });
  return { at: performance.now(), machineBusyS, processS };
}

/** CPU time (s, user + system) of a process's main thread alone (Linux /proc); NaN when unreadable. */
export function mainThreadCpuS(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Resolves with the exit code; kills with SIGKILL after `graceMs` if SIGTERM was not enough. */
export async function stopChild(child: ChildProcess, graceMs = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

export interface RunningServer {
  child: ChildProcess;
  pid: number;
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** ms from spawn to the "serving" line. */
  servingMs: number;
  /** ms from spawn to the first 200 from /v1/health. */
  healthMs: number;
  /** Everything the server printed. */
  output: string[];
  stop(): Promise<number | null>;
}

/**
 * `node bin/asof.js serve --port 0 --data-dir DIR`, timed from spawn to "serving" and to the first healthy answer.
 * `cache: false` starts `asof serve --no-cache` (every request reads the stores), `meter: false` `--no-meter`.
 */
export async function startServer(
  dataDir: string,
  opts: { timeoutMs?: number; nodeArgs?: string[]; cache?: boolean; meter?: boolean } = {},
): Promise<RunningServer> {
  const began = performance.now();
  const flags = [...(opts.cache === false ? ['--no-cache'] : []), ...(opts.meter === false ? ['--no-meter'] : [])];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ASOF, 'serve', '--port', '0', '--data-dir', dataDir, ...flags], {
    cwd: REPO,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const serving = new Promise<{ url: string; at: number }>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`asof serve printed no "serving" line in ${opts.timeoutMs ?? 600_000} ms:\n${output.join('\n')}`)),
      opts.timeoutMs ?? 600_000,
    );
    const onLine = (line: string) => {
      output.push(line);
      const m = /serving (http:\/\/\S+\/v1)/.exec(line);
      if (m) {
        clearTimeout(timer);
        done({ url: m[1]!, at: performance.now() });
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', (line) => output.push(`[stderr] ${line}`));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`asof serve exited (${code}) before serving:\n${output.join('\n')}`));
    });
  });
  const { url, at } = await serving;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not accepting yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const healthAt = performance.now();
  return {
    child,
    pid: child.pid!,
    url,
    servingMs: at - began,
    healthMs: healthAt - began,
    output,
    stop: () => stopChild(child),
  };
}

/**
 * Runs a command to completion; rejects on a non-zero exit. `peakRssBytes`: the process's VmHWM as last read (every
 * 100 ms while it runs, so a peak in its last 100 ms can be missed; 0 where /proc is not there).
 */
export function runNode(
  args: string[],
  opts: { onStderrLine?: (line: string) => void; onStdoutLine?: (line: string) => void } = {},
): Promise<{ stdout: string; stderr: string; ms: number; peakRssBytes: number }> {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let peakRssBytes = 0;
  const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, procStatus(child.pid!).hwm)), 100);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    stdout += `${line}\n`;
    opts.onStdoutLine?.(line);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr += `${line}\n`;
    opts.onStderrLine?.(line);
  });
  return new Promise((done, fail) => {
    child.once('error', (err) => {
      clearInterval(sampler);
      fail(err);
    });
    // 'close', not 'exit': the output streams are read to their end first.
    child.once('close', (code) => {
      clearInterval(sampler);
      if (code === 0) done({ stdout, stderr, ms: performance.now() - began, peakRssBytes });
      else fail(new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}\n${stdout}`));
    });
  });
}

/**
 * Live API keys for a data dir, issued as `asof keys create` issues them (bench/store-access.ts): each on the pro
 * plan (120 requests a minute, the most any key may have) with room for a whole run in its daily and monthly caps.
 * A load spreads its requests over them, as a server's traffic is spread over its customers.
 */
export async function createKeys(dataDir: string, count: number): Promise<string[]> {
  return withDataDirAccounts(dataDir, async (store) => {
    const keys: string[] = [];
    for (let i = 0; i < count; i += 32) {
      const batch = Array.from({ length: Math.min(32, count - i) }, (_, j) =>
        issueKey(store, { name: `bench ${i + j}`, plan: 'pro', limits: { daily: 1_000_000_000, monthly: 1_000_000_000 } }, new Date()),
      );
      keys.push(...(await Promise.all(batch)).map((k) => k.key));
    }
    return keys;
  });
}

/**
 * Request headers whose `authorization` is the next key of `keys` each time it is read (fetch and autocannon read it
 * once per request): every request carries one key of many.
 */
export function rotatingAuth(keys: readonly string[]): Record<string, string> {
  let next = 0;
  return Object.defineProperty({} as Record<string, string>, 'authorization', {
    enumerable: true,
    get: () => `Bearer ${keys[next++ % keys.length]}`,
  });
}
