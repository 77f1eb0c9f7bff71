import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from './client.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const USLM_2013 = join(ROOT, 'data/sample/uslm/usc01@113-31.xml');
const USLM_2022 = join(ROOT, 'data/sample/uslm/usc01@117-80.xml');

/** Runs `asof …` as a user would, in a child process. */
function asof(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const lookupWith = async (url: string, key: string) =>
  (await fetch(`${url}/law/lookup?jurisdiction=us&citation=1-1`, { headers: { authorization: `Bearer ${key}` } })).status;

describe('asof keys and ingest against a running server', () => {
  it('creates a key in another process that the server accepts at once, lists it, and revokes it', async () => {
    const { url, dataDir } = fixture();
    const created = await asof(['keys', 'create', '--name', 'terminal two', '--json', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const issued = JSON.parse(created.stdout) as { id: string; key: string; prefix: string; scopes: string[]; test: boolean };
    expect(Object.keys(issued).sort()).toEqual(['id', 'key', 'prefix', 'scopes', 'test']);
    expect(issued).toMatchObject({ prefix: issued.key.slice(0, 16), scopes: ['lookup'], test: false });
    expect(await lookupWith(url, issued.key)).toBe(200);

    const listed = await asof(['keys', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toContain(issued.id);
    expect(listed.stdout).not.toContain(issued.key);

    const revoked = await asof(['keys', 'revoke', issued.id], { ASOF_DATA_DIR: dataDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await lookupWith(url, issued.key)).toBe(401);
  });

  it('creates test keys with chosen scopes', async () => {
    const r = await asof([
      'keys',
      'create',
      '--name',
      'ci',
      '--test',
      '--scopes',
      'lookup,admin',
      '--json',
      '--data-dir',
      fixture().dataDir,
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ test: true, scopes: ['lookup', 'admin'], key: expect.stringMatching(/^asof_test_/) });
  });

  it('ingests through the running server, and a re-run changes nothing', async () => {
    const r = await asof(['ingest', 'uslm', USLM_2013, '--data-dir', fixture().dataDir, '--retrieved-at', '2026-11-22T07:25:00Z']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /usc 113-31 \(2013-07-26\): 39 sections, 0 changed \(the same as at its last complete ingest: nothing written\)/,
    );
  });

  it('checks the format records through the running server: status and staleness of each, exit 1 on a refusal', async () => {
    const { dataDir } = fixture();
    const ok = await asof(['formats', 'check', '--data-dir', dataDir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ca9-2024-12-01 (ca9.json#ca9-2024-12-01): valid, loaded, current');
    // A record of an earlier period is never stale: its texts were in force over all of it.
    expect(ok.stdout).toContain('ca9-2010-02-01 (ca9.json#ca9-2010-02-01): valid, loaded, current');
    expect(ok.stdout).toContain('nd-2026-03-07 (nd-2026-03-07.json): valid, loaded, current');

    const authoring = await mkdtemp(join(tmpdir(), 'asof-records-'));
    try {
      const wrong = {
        extends: '_frap-2024-12-01',
        id: 'ca9-draft',
        court: 'ca9',
        courtName: 'draft',
        limits: [
          {
            document: 'principal brief',
            basis: 'pages',
            pages: 40,
            ruleKey: 'frap-32',
            quote: 'A principal brief may not exceed 40 pages',
          },
        ],
      };
      await writeFile(join(authoring, 'ca9-draft.json'), JSON.stringify(wrong));
      const refused = await asof(['formats', 'check', authoring, '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(
        `ca9-draft.json: REFUSED\n  limits[0].quote: quote not found in the pinned text of 'frap-32': "A principal brief may not exceed 40 pages"`,
      );
    } finally {
      await rm(authoring, { recursive: true, force: true });
    }
  });

  it('fails with a clear message and a non-zero exit on bad input', async () => {
    const dir = fixture().dataDir;
    const missing = await asof(['ingest', 'uslm', '/nonexistent/usc99.xml', '--data-dir', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/usc99\.xml/);
    const twoSources = await asof(['ingest', 'uslm', 'a.zip', 'b.zip', '--source-url', 'https://mirror.example/a.zip', '--data-dir', dir]);
    expect(twoSources.code).toBe(2);
    expect(twoSources.stderr).toMatch(/--source-url names one file/);
    const noName = await asof(['keys', 'create', '--data-dir', dir]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/--name/);
    const badScope = await asof(['keys', 'create', '--name', 'x', '--scopes', 'everything', '--data-dir', dir]);
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toMatch(/unknown scope/);
    // An empty list is refused, whether it is empty or only commas: a key with no scope could call nothing.
    for (const empty of ['', ',', ' , ']) {
      const noScope = await asof(['keys', 'create', '--name', 'x', '--scopes', empty, '--data-dir', dir]);
      expect(noScope.code, `--scopes '${empty}'`).toBe(2);
      expect(noScope.stderr).toContain(`--scopes is empty (got '${empty}'): give one or more of lookup, admin, or leave it out for lookup`);
    }
    const unknownRevoke = await asof(['keys', 'revoke', 'key_nope', '--data-dir', dir]);
    expect(unknownRevoke.code).toBe(1);
    const badPlan = await asof(['keys', 'create', '--name', 'x', '--plan', 'platinum', '--data-dir', dir]);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toMatch(/unknown plan 'platinum' \(known: free, starter, pro, enterprise\)/);
    const overEdge = await asof(['keys', 'create', '--name', 'x', '--per-minute', '500', '--data-dir', dir]);
    expect(overEdge.code).toBe(1);
    expect(overEdge.stderr).toMatch(/edge limit \(120\)/);
    const notANumber = await asof(['keys', 'create', '--name', 'x', '--daily', 'lots', '--data-dir', dir]);
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toMatch(/--daily must be a whole number above 0 \(got 'lots'\)/);
    const unknownUsage = await asof(['keys', 'usage', 'key_nope', '--data-dir', dir]);
    expect(unknownUsage.code).toBe(1);
    expect(unknownUsage.stderr).toMatch(/no key with id key_nope/);
  });

  it('reports a store that cannot open as an error of asof serve, though the stores start before the server loads', async () => {
    // Prepare: a data dir of its own whose search index's folder is a file (refused as the stores start)
    const dir = await mkdtemp(join(tmpdir(), 'asof-serve-refused-'));
    try {
      await writeFile(join(dir, 'search'), 'not a folder');

      // Act
      const refused = await asof(['serve', '--port', '0', '--data-dir', dir]);

      // Assess: the CLI's one line and exit code, not an unhandled rejection's stack trace
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^asof serve: .*search/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('creates a key on a plan with its own ceilings, and reports its use today and this month', async () => {
    const { url, dataDir } = fixture();
    const created = await asof([
      'keys',
      'create',
      '--name',
      'usage',
      '--plan',
      'starter',
      '--daily',
      '50',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    const issued = JSON.parse(created.stdout) as { id: string; key: string };
    const statuses = [await lookupWith(url, issued.key), await lookupWith(url, issued.key)];
    const coverage = await fetch(`${url}/law/coverage`, { headers: { authorization: `Bearer ${issued.key}` } });
    await coverage.arrayBuffer();
    await new Promise((done) => setTimeout(done, 600)); // usage records are written behind the responses, within 250 ms

    const asJson = await asof(['keys', 'usage', issued.id, '--json', '--data-dir', dataDir]);
    const asText = await asof(['keys', 'usage', issued.id, '--data-dir', dataDir]);
    const listed = await asof(['keys', 'list', '--data-dir', dataDir]);

    expect([...statuses, coverage.status]).toEqual([200, 200, 200]);
    expect(asJson.code, asJson.stderr).toBe(0);
    const report = JSON.parse(asJson.stdout);
    expect(report).toMatchObject({
      keyId: issued.id,
      plan: 'starter',
      ceilings: { perMinute: 60, daily: 50, monthly: 200_000 },
      today: { units: 2, calls: 3 },
      month: { units: 2 },
      remaining: { day: 48, month: 199_998 },
    });
    expect(report.today.byRoute).toEqual([
      { routeId: 'law-coverage', calls: 1, units: 0, statuses: { 200: 1 } },
      { routeId: 'law-lookup', calls: 2, units: 2, statuses: { 200: 2 } },
    ]);
    expect(report.month.days).toEqual([{ date: report.today.date, units: 2 }]);
    expect(asText.stdout).toMatch(/plan starter: 60\/minute, 50 units\/day, 200,000 units\/month/);
    expect(asText.stdout).toMatch(/today \(\d{4}-\d{2}-\d{2} UTC\): 2 units, 3 calls; 48 units left/);
    expect(asText.stdout).not.toContain(issued.key);
    expect(listed.stdout).toMatch(new RegExp(`${issued.id} .* plan=starter  daily=50`));
  });

  it('lists the plans with their three ceilings, marking the default', async () => {
    const r = await asof(['plans', 'list']);
    const asJson = await asof(['plans', 'list', '--json']);

    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^free\*\s+30\s+1,000\s+10,000\s+Free$/m);
    expect(r.stdout).toMatch(/^pro\s+120\s+100,000\s+2,000,000\s+Pro$/m);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      default: 'free',
      plans: expect.arrayContaining([expect.objectContaining({ id: 'starter', perMinute: 60 })]),
    });
  });
});

describe('a fresh data dir: commands without a server, then serve', () => {
  let dir: string;
  let server: ChildProcess | null = null;
  afterAll(async () => {
    server?.kill('SIGTERM');
    if (server) await new Promise((done) => server!.once('close', done));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a key and ingests on the stores directly, then serves what they hold', async () => {
    dir = await mkdtemp(join(tmpdir(), 'asof-cli-'));
    const created = await asof(['keys', 'create', '--name', 'offline', '--json', '--data-dir', dir]);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const ingested = await asof(['ingest', 'uslm', USLM_2013, '--data-dir', dir]);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toMatch(/39 sections, 39 changed/);

    server = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), 'serve', '--port', '0', '--data-dir', dir], { cwd: ROOT });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server!.stdout!.on('data', (d) => {
        out += d;
        const m = /serving (http:\/\/\S+\/v1)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server!.once('close', () => reject(new Error(`server exited: ${out}`)));
    });
    expect(await lookupWith(url, key)).toBe(200);

    // A lookup the server now answers from memory changes as soon as an ingest from another terminal lands.
    const section112b = async () => {
      const res = await fetch(`${url}/law/lookup?jurisdiction=us&citation=1-112b&asOf=2024-01-01`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await res.json()) as { result: { bodyText: string; provenance: { versionLabel: string } } }).result;
    };
    const before = [await section112b(), await section112b()];
    const later = await asof(['ingest', 'uslm', USLM_2022, '--data-dir', dir]);
    expect(later.code, later.stderr).toBe(0);
    const after = await section112b();
    expect(before.map((r) => r.provenance.versionLabel)).toEqual(['113-31', '113-31']);
    expect(before[1]!.bodyText).not.toMatch(/^\(g\)/m);
    expect(after.provenance.versionLabel).toBe('117-80');
    expect(after.bodyText).toMatch(/^\(g\) It is the sense of Congress/m);

    const busy = await asof(['serve', '--port', '0', '--data-dir', dir]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/already serving/);
  });
});
