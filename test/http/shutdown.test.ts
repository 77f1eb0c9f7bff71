/**
 * `asof serve` stops within seconds on SIGTERM whatever is in flight (issue 15: a server whose PGlite ran a
 * twelve-minute query could not be stopped). Real child processes, real signals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runIngest } from '#ingest/jobs.ts';
import { openLocalStores } from '#local/local-runtime.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** close() takes a few seconds at most (2 s of grace for requests, 2 s for PGlite's statement); the CLI's hard stop is 10 s. */
const STOPPED_WITHIN_MS = 8_000;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
const dataDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'asof-shutdown-'));
  dirs.push(dir);
  return dir;
};

/** Starts `args` under node; resolves with the child and the first stdout line matching `ready`. */
function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'ERROR' } });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      output += d;
      const match = output.match(ready);
      if (match) resolve({ child, match, output: () => output });
    });
    child.stderr!.on('data', (d) => (output += d));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
  });
}

/** Sends SIGTERM; resolves with the exit code and the time it took to exit. */
function terminate(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve({ code, ms: performance.now() - started }));
    child.kill('SIGTERM');
  });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('SIGTERM', () => {
  it('stops a server whose PGlite runs a ten-minute statement within seconds, and the data dir opens again intact', async () => {
    const dir = await dataDir();
    const { child, match } = await start(['--import', 'tsx', 'test/support/serve-holding-postgres.ts', dir], /holding (\S+) (\S+)/);
    // A request in flight too: a case waiting behind the statement (search runs on its own engine, SQLite).
    const search = fetch(`${match[1]}/law/cases/111014`, { headers: { authorization: `Bearer ${match[2]}` } }).then(
      (r) => r.status,
      () => 'dropped',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    const { code, ms } = await terminate(child);

    console.info(`asof serve with PGlite held by a statement: exited ${ms.toFixed(0)} ms after SIGTERM`);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(STOPPED_WITHIN_MS);
    // Its connection dropped at the end of the grace (or, on a slow machine, a 503 at its deadline first).
    expect(['dropped', 503]).toContain(await search);
    expect(await exists(join(dir, 'runtime.json'))).toBe(false);
    const stores = await openLocalStores({ dataDir: dir });
    try {
      expect((await stores.sql.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(await stores.search.count()).toBe(0);
    } finally {
      await stores.close();
    }
  });

  it('stops `asof serve` itself promptly, with exit code 0 and its runtime file removed', async () => {
    const dir = await dataDir();
    // A data dir that already holds the operator's own law, so that the start does not load the whole sample corpus.
    const stores = await openLocalStores({ dataDir: dir });
    await runIngest(stores, { kind: 'uslm', files: [join(ROOT, 'data/sample/uslm/usc01@117-80.xml')] });
    await stores.close();
    const { child, match } = await start(['bin/asof.js', 'serve', '--data-dir', dir, '--port', '0'], /serving (\S+)/);
    expect((await fetch(`${match[1]}/health`)).status).toBe(200);

    const { code, ms } = await terminate(child);

    console.info(`asof serve: exited ${ms.toFixed(0)} ms after SIGTERM`);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(STOPPED_WITHIN_MS);
    expect(await exists(join(dir, 'runtime.json'))).toBe(false);
  });
});
