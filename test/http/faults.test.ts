/**
 * Faults of the local runtime, with real `asof` processes on a data dir of their own: a server killed with SIGKILL in
 * the middle of an ingest, the privacy of the data dir, and the embedded DynamoDB refusing whoever lacks its
 * credentials. The steps of the scenario run in order and share its data dir and servers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { RuntimeInfo } from '#local/data-dir.ts';
import { openLocalDatabases } from '#local/embedded-stores.ts';
import { decodeOwner, encodeOwner } from '#ops/leases.ts';
import { SqliteOpsStore } from '#stores/sqlite/ops-store.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const USLM_2013 = join(ROOT, 'data/sample/uslm/usc01@113-31.xml');
const USLM_2022 = join(ROOT, 'data/sample/uslm/usc01@117-80.xml');
/** Many editions (one per date a D.C. Code section changed): an ingest long enough to be cut in the middle. */
const DC_MANIFEST = join(ROOT, 'data/sample/dc-code/manifest.csv');
const SCENARIO_MS = 240_000;

const running = new Set<ChildProcess>();

/** `asof …` in a child process, as a user runs it; `onLine` sees each line of its output as it comes. */
function asof(
  args: string[],
  onLine: (line: string, child: ChildProcess) => void = () => undefined,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), ...args], { cwd: ROOT });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      pending += d;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        onLine(pending.slice(0, nl), child);
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `asof serve` on `dir`, once it says it is serving. */
async function serve(dir: string): Promise<{ child: ChildProcess; url: string }> {
  let child: ChildProcess | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    void asof(['serve', '--port', '0', '--data-dir', dir], (line, c) => {
      child = c;
      const m = /serving (http:\/\/\S+\/v1)/.exec(line);
      if (m) resolve(m[1]!);
    }).then((r) => reject(new Error(`the server exited (${r.code}): ${r.stdout}\n${r.stderr}`)));
  });
  return { child: child!, url };
}

function killed(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill(signal);
  });
}

const runtimeOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'runtime.json'), 'utf8')) as RuntimeInfo;

/** The ops store of the server running on `dir`, opened beside it as another `asof` process opens it: its SQLite file. */
async function opsOf(dir: string) {
  const dbs = await openLocalDatabases(dir);
  return { ops: new SqliteOpsStore(dbs.accounts), close: () => dbs.close() };
}

const coverageOf = async (url: string) =>
  (await (await fetch(`${url}/law/coverage`)).json()) as {
    coverage: Array<{ jurisdiction: string }>;
    stale?: { lastError: string | null };
  };

/** Every path below `dir` (and `dir` itself) whose mode is not 0700 (folders) or 0600 (files, sockets), and the paths seen. */
async function notPrivate(dir: string): Promise<{ loose: string[]; seen: string[] }> {
  const loose: string[] = [];
  const seen: string[] = [];
  const check = async (path: string, name: string) => {
    const st = await lstat(path);
    const mode = st.mode & 0o777;
    seen.push(name);
    if (mode !== (st.isDirectory() ? 0o700 : 0o600)) loose.push(`${name} ${mode.toString(8)}`);
  };
  await check(dir, '.');
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    await check(path, path.slice(dir.length + 1));
  }
  return { loose, seen };
}

/** Makes every folder 0777 and every file 0666, as a data dir made by an older version under a loose umask might be. */
async function loosen(dir: string): Promise<void> {
  await chmod(dir, 0o777);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    await chmod(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o777 : 0o666);
  }
}

afterAll(async () => {
  await Promise.all([...running].map((c) => killed(c)));
});

describe('a data dir, and a server killed with kill -9 in the middle of an ingest', () => {
  let parent: string;
  let dir: string;
  let first: { child: ChildProcess; url: string };
  let second: { child: ChildProcess; url: string };
  afterAll(async () => {
    for (const server of [first, second]) if (server) await killed(server.child, 'SIGTERM');
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('a data dir made by a command without a server is its owner’s alone', { timeout: SCENARIO_MS }, async () => {
    parent = await mkdtemp(join(tmpdir(), 'asof-faults-'));
    dir = join(parent, 'data'); // not there yet: the command makes it
    const seeded = await asof(['ingest', 'uslm', USLM_2013, '--data-dir', dir]);
    expect(seeded.code, seeded.stderr).toBe(0);

    const { loose, seen } = await notPrivate(dir);
    expect(loose).toEqual([]);
    expect(seen).toEqual(
      expect.arrayContaining([
        '.',
        'store',
        'store/law.sqlite',
        'store/accounts.sqlite',
        'postgres',
        'postgres/PG_VERSION',
        'postgres/base',
      ]),
    );
  });

  it('a server makes a world-readable data dir private again, its runtime file and socket included', { timeout: SCENARIO_MS }, async () => {
    await loosen(dir);
    expect((await notPrivate(dir)).loose.length).toBeGreaterThan(100);

    first = await serve(dir);

    const { loose, seen } = await notPrivate(dir);
    expect(loose).toEqual([]);
    expect(seen).toEqual(expect.arrayContaining(['runtime.json', 'asof.sock', 'store/accounts.sqlite', 'postgres/PG_VERSION']));
    // No store listens on a port, so the runtime file holds no endpoint and no credentials.
    expect(Object.keys(await runtimeOf(dir)).sort()).toEqual(['adminSocket', 'apiUrl', 'pid', 'startedAt']);
    const keys = await asof(['keys', 'create', '--name', 'through the server', '--json', '--data-dir', dir]);
    expect(keys.code, keys.stderr).toBe(0);
    const { key } = JSON.parse(keys.stdout) as { key: string };
    const lookup = await fetch(`${first.url}/law/lookup?jurisdiction=us&citation=1-1`, { headers: { authorization: `Bearer ${key}` } });
    expect(lookup.status).toBe(200);
  });

  it('leaves a lease that a re-run takes over at once, and coverage stale until an ingest completes', {
    timeout: SCENARIO_MS,
  }, async () => {
    // Act: an ingest of every D.C. Code edition through the server, which is killed once the first edition is in
    const cut = await asof(['ingest', 'dc-code', DC_MANIFEST, '--data-dir', dir], (line) => {
      if (line.startsWith('dc-code ')) void killed(first.child);
    });
    await killed(first.child);
    second = await serve(dir);

    // Assess: the ingest was cut; the lease is the killed server's, 15 minutes long; coverage says so, read after read
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/closed the admin connection before answering/);
    const editionLines = cut.stdout.split('\n').filter((l) => l.startsWith('dc-code '));
    expect(editionLines.length).toBeGreaterThanOrEqual(1);
    const store = await opsOf(dir);
    try {
      const lease = await store.ops.getLease('ingest');
      expect(decodeOwner(lease!.owner)).toMatchObject({ host: hostname(), pid: first.child.pid });
      expect(Date.parse(lease!.until)).toBeGreaterThan(Date.now() + 10 * 60_000);
    } finally {
      store.close();
    }
    const stale = [await coverageOf(second.url), await coverageOf(second.url)];
    for (const c of stale) expect(c.stale?.lastError).toMatch(/^an ingest started at \S+ has not completed/);

    // Act: the same ingest again, at once
    const rerun = await asof(['ingest', 'dc-code', DC_MANIFEST, '--data-dir', dir]);

    // Assess: it took the lease over and completed every edition; coverage is current and carries dc
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`took over the ingest lease of process ${first.child.pid} on ${hostname()}, which is gone`);
    const allEditions = rerun.stdout.split('\n').filter((l) => l.startsWith('dc-code '));
    expect(allEditions.length).toBeGreaterThan(editionLines.length);
    const current = await coverageOf(second.url);
    expect(current.stale).toBeUndefined();
    expect(current.coverage.map((r) => r.jurisdiction)).toEqual(['dc', 'us']);
    expect((await notPrivate(dir)).loose).toEqual([]);
  });

  it('still respects the lease of a live owner, and takes it once that owner is killed', { timeout: SCENARIO_MS }, async () => {
    // Prepare: a live process on this host holds the ingest lease
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
    running.add(owner);
    const store = await opsOf(dir);
    try {
      const until = new Date(Date.now() + 15 * 60_000).toISOString();
      const held = encodeOwner({ host: hostname(), pid: owner.pid!, token: 'alive' });
      expect(await store.ops.acquireLease('ingest', held, until, new Date().toISOString())).toBe(true);

      // Act / Assess
      const refused = await asof(['ingest', 'uslm', USLM_2022, '--data-dir', dir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `another ingest is running against this store; try again when it has finished (held by process ${owner.pid} on ${hostname()}`,
      );
      await killed(owner);
      running.delete(owner);
      const taken = await asof(['ingest', 'uslm', USLM_2022, '--data-dir', dir]);
      expect(taken.code, taken.stderr).toBe(0);
      expect(taken.stdout).toContain(`took over the ingest lease of process ${owner.pid} on ${hostname()}, which is gone`);
      expect(await store.ops.getLease('ingest')).toBeNull();
    } finally {
      store.close();
    }
  });
});
