/**
 * The upgrade of a data dir made by the previous release (its keys, meters, ops state, format records and law in
 * dynalite's LevelDB, `dynamodb/`) to the SQLite stores (functions/local/upgrade-data-dir.ts). The old data dir is
 * written as that release wrote it: the DynamoDB adapters it used unchanged, on dynalite on `<dir>/dynamodb`, a real
 * ingest of a slice of the bundled sample through the ingest job with the steps after it (format records, coverage,
 * audit), keys issued as `asof keys create` issues them, charges, a refund, usage records, a lease, a quota and the
 * sample markers. Everything the DynamoDB adapters read before must read the same through the new stores, after an
 * upgrade in this process and under a real `asof serve`; an upgrade cut off is redone; a locked old store is refused.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import type { AccountStore, ChargeRequest, MeterStore, UsageRecord } from '#accounts/ports.ts';
import { windowsAt } from '#accounts/windows.ts';
import { assembleJobs } from '#app/jobs.ts';
import { pinnedRowsOf } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { COLLECTIONS } from '#law/collections.ts';
import type { VersionStore } from '#law/ports.ts';
import { openEmbeddedStores, openLocalDatabases } from '#local/embedded-stores.ts';
import { startStoreThreads } from '#local/store-threads.ts';
import type { OpsStore } from '#ops/ports.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { startDynalite } from '#stores/dynamodb/dynalite.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(ROOT, 'data/sample');
const TABLES = tableNames('asof');
const run = promisify(execFile);
const work = await mkdtemp(join(tmpdir(), 'asof-upgrade-'));
afterAll(() => rm(work, { recursive: true, force: true }));

interface Stores {
  versions: VersionStore;
  formats: FormatStore;
  ops: OpsStore;
  accounts: AccountStore;
  meters: MeterStore;
}

interface Written {
  /** The keys issued (the secret of each, to call with). */
  keys: { id: string; key: string; name: string }[];
  /** The instant the charges and usage records were made at (today: the usage report shows them). */
  at: Date;
}

const JURISDICTIONS = ['us', 'nd', 'dc'];
const LEASES = ['ingest', 'audit', 'held-by-test'];
const QUOTAS = ['fallback-today', 'fallback-other'];
const MARKERS = ['sample-corpus-started', 'sample-corpus-loaded', 'caselaw-sample-loaded', 'never-set'];

const byJson = <T>(items: T[]): T[] => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return byJson(out);
}

/** Everything the stores hold that the upgrade must carry, read through the ports. */
async function snapshot(s: Stores, written: Written) {
  const keys = await s.accounts.listKeys();
  const ids = [...keys.map((k) => k.id), 'key_never'];
  const windows = windowsAt(written.at);
  const records = await s.formats.listRecords();
  const rows = [...new Set(records.flatMap((r) => pinnedRowsOf(r.record)))];
  return {
    versions: await all(s.versions.scanVersions()),
    histories: await all(s.versions.scanHistories()),
    editions: await Promise.all(COLLECTIONS.map((c) => s.versions.listEditions(c.id))),
    formats: byJson(records),
    pins: await Promise.all([...rows, 'us#rules#nothing#sha256:0'].map((row) => s.formats.isPinned(row))),
    keys,
    keysByHash: await Promise.all(keys.map((k) => s.accounts.findByHash(k.hash))),
    keysById: await Promise.all(ids.map((id) => s.accounts.getById(id))),
    usage: await Promise.all(ids.map((id) => s.meters.usage(id, windows))),
    months: await Promise.all(ids.map((id) => s.meters.month(id, windows.month))),
    usageRecords: await Promise.all(ids.map((id) => s.meters.records(id, written.at.toISOString().slice(0, 10)))),
    coverage: await s.ops.getCoverage(),
    audits: await Promise.all(JURISDICTIONS.map((j) => s.ops.latestAuditRun(j))),
    auditHistories: await Promise.all(JURISDICTIONS.map((j) => s.ops.auditHistory(j, 10))),
    health: await s.ops.getHealthVerdict(),
    leases: await Promise.all(LEASES.map((l) => s.ops.getLease(l))),
    quotas: await Promise.all(QUOTAS.map((q) => s.ops.quotaUsed(q))),
    markers: await Promise.all(MARKERS.map((m) => s.ops.getMarker(m))),
  };
}
type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/**
 * Writes the old layout into `dir` as the previous release did, and reads it back through the DynamoDB adapters.
 * The search index and the case-law replica are this release's own threads (their files did not change).
 */
async function writeOldDataDir(dir: string): Promise<{ written: Written; before: Snapshot }> {
  const dynalite = await startDynalite({ path: join(dir, 'dynamodb') });
  const doc = createDocumentClient(dynalite.access);
  const threads = await startStoreThreads(dir);
  try {
    await ensureTables(doc, TABLES);
    const now = () => new Date();
    const stores: Stores = {
      versions: new DynamoVersionStore(doc, TABLES.versions),
      formats: new DynamoFormatStore(doc, TABLES.ops),
      ops: new DynamoOpsStore(doc, TABLES.ops),
      accounts: new DynamoAccountStore(doc, TABLES.accounts),
      meters: new DynamoMeterStore(doc, TABLES.meters),
    };
    const jobs = assembleJobs({ ...stores, search: threads.sqlite.index, caselaw: () => null, now });
    // The law: real ingests, then the steps after them (format records, coverage, the audit's runs and findings).
    await stores.ops.putMarker('sample-corpus-started', '2026-11-22T07:30:00.000Z');
    await jobs.ingest({ kind: 'uslm', files: ['usc01@113-31.xml', 'usc01@117-80.xml'].map((f) => join(SAMPLE, 'uslm', f)) }, undefined, {
      afterwards: false,
    });
    await jobs.ingest({ kind: 'rules', set: 'ndrappp', paths: [join(SAMPLE, 'rules/north-dakota-rap')] });
    await threads.sqlite.index.markBuilt();
    await stores.ops.putMarker('sample-corpus-loaded', '2026-11-22T07:31:00.000Z');
    await stores.ops.putMarker('caselaw-sample-loaded', '2026-11-22T07:31:01.000Z');
    // A run with findings as the audit stores one (the sample slice passes every check)
    await stores.ops.putAuditRun({
      run: { ranAt: '2026-11-22T07:31:30.000Z', jurisdiction: 'dc', trigger: 'schedule', totalChecks: 3, passed: 1, warned: 1, failed: 1 },
      findings: [
        {
          scope: 'dc/statutes',
          checkName: 'gaps-explained',
          status: 'warn',
          detail: '1 problem(s)',
          rows: 6,
          avgChars: 210,
          maxChars: null,
          unexplainedEmpty: 0,
          misattributed: 0,
        },
        {
          scope: 'dc/statutes',
          checkName: 'size-outliers',
          status: 'fail',
          detail: 'd',
          rows: 3,
          avgChars: null,
          maxChars: 9,
          unexplainedEmpty: 1,
          misattributed: 2,
        },
      ],
    });
    await stores.ops.putHealthVerdict({ checkedAt: '2026-11-22T07:32:00.000Z', reachable: true, detail: 'all stores answered' });
    await stores.ops.acquireLease('held-by-test', 'pid 1 on old', '2099-01-01T00:00:00.000Z', '2026-11-22T07:32:00.000Z');
    await stores.ops.takeQuota('fallback-today', 3, 10);
    await stores.ops.takeQuota('fallback-other', 12, 10);

    // Keys as `asof keys create` issues them: plans, scopes, overrides, a test key, one revoked.
    const keys: Written['keys'] = [];
    for (const params of [
      { name: 'alpha', plan: 'pro' },
      { name: 'beta', scopes: ['admin', 'lookup'], limits: { daily: 50, perMinute: 7 } },
      { name: 'gamma', test: true },
      { name: 'delta', plan: 'starter', limits: { monthly: 900 } },
    ]) {
      const issued = await issueKey(stores.accounts, params, now());
      keys.push({ id: issued.id, key: issued.key, name: params.name });
    }
    await stores.accounts.revoke(keys[3]!.id, '2026-11-22T08:00:00.000Z');

    // Charges (one refunded) and usage records, now: the usage report of today shows them.
    const at = new Date();
    const ceilings = { perMinute: 100, daily: 1_000, monthly: 10_000 };
    let n = 0;
    const charge = (keyId: string, units: number): ChargeRequest => ({
      keyId,
      requestId: `old-${++n}`,
      units,
      windows: windowsAt(at),
      ceilings,
    });
    const charges = [
      charge(keys[0]!.id, 1),
      charge(keys[0]!.id, 2),
      charge(keys[0]!.id, 1),
      charge(keys[1]!.id, 3),
      charge(keys[2]!.id, 1),
    ];
    for (const c of charges) expect((await stores.meters.charge(c)).admitted).toBe(true);
    expect(await stores.meters.refund(charges[2]!)).toBe(true);
    const record = (keyId: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
      keyId,
      requestId: `old-${++n}`,
      routeId: 'law-lookup',
      units: 1,
      status: 200,
      at: at.toISOString(),
      test: false,
      ...over,
    });
    await stores.meters.record([
      record(keys[0]!.id),
      record(keys[0]!.id, { units: 2 }),
      record(keys[0]!.id, { units: 0, status: 503, routeId: 'law-search' }),
      record(keys[1]!.id, { units: 3 }),
      record(keys[2]!.id, { test: true }),
    ]);

    const written = { keys, at };
    return { written, before: await snapshot(stores, written) };
  } finally {
    doc.destroy();
    await dynalite.close();
    await threads.close();
  }
}

/** A fresh copy of the old data dir. */
let count = 0;
async function copyOf(template: string): Promise<string> {
  const dir = join(work, `dd-${++count}`);
  await cp(template, dir, { recursive: true });
  return dir;
}

/** The stores of this release on a data dir (upgrading it first), with the lines they logged. */
async function openNew(dir: string) {
  const lines: string[] = [];
  const stores = await openEmbeddedStores(dir, { log: (line) => lines.push(line), cache: false });
  return { stores, lines };
}

/** `asof serve` on a data dir, once it says it serves: its address and every line it printed so far. */
async function serve(dir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), 'serve', '--data-dir', dir, '--port', '0'], { cwd: ROOT });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /asof: serving (http:\/\/\S+)/.exec(output);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`asof serve exited (${code}) before it served:\n${output}`)));
  });
  return { child, url, output: () => output };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * dynalite on an old store, as the previous release's server held it: once it has answered a request its LevelDB is
 * open (it opens in the background) and the lock held.
 */
async function holdOldStore(path: string) {
  const held = await startDynalite({ path });
  const doc = createDocumentClient(held.access);
  await doc.send(new ListTablesCommand({}));
  doc.destroy();
  return held;
}

const layout = async (dir: string) =>
  (await readdir(dir)).filter((f) => ['dynamodb', 'dynamodb.before-sqlite', 'store', 'store.upgrading'].includes(f)).sort();

let template: string;
let written: Written;
let before: Snapshot;

beforeAll(async () => {
  template = join(work, 'template');
  ({ written, before } = await writeOldDataDir(template));
}, 120_000);

describe('upgrading a data dir of the previous release', () => {
  it('wrote a real old data dir (the premises of the tests below)', () => {
    expect(before.versions.length).toBeGreaterThan(50);
    expect(before.histories.length).toBeGreaterThan(20);
    expect(before.editions.flat().length).toBeGreaterThanOrEqual(3);
    expect(before.formats.length).toBeGreaterThan(0);
    expect(before.pins.filter(Boolean).length).toBeGreaterThan(0);
    expect(before.keys).toHaveLength(4);
    expect(before.keysById.at(-1)).toBeNull();
    expect(before.usage[0]).toMatchObject({ day: 3, month: 3 });
    expect(before.usageRecords[0]).toHaveLength(3);
    expect(before.audits.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(before.audits.some((a) => a?.findings.length)).toBe(true);
    expect(before.coverage?.records.length).toBeGreaterThan(0);
    expect(before.leases[2]).not.toBeNull();
    expect(before.quotas).toEqual([3, 10]);
    expect(before.markers.slice(0, 3).every(Boolean)).toBe(true);
  });

  it('carries everything exactly, once, and keeps the old store aside', async () => {
    // Prepare
    const dir = await copyOf(template);

    // Act
    const first = await openNew(dir);
    const after = await snapshot(first.stores, written);
    await first.stores.close();
    const layoutAfter = await layout(dir);
    const second = await openNew(dir);
    const again = await snapshot(second.stores, written);
    await second.stores.close();

    // Assess
    expect(after).toEqual(before);
    expect(layoutAfter).toEqual(['dynamodb.before-sqlite', 'store']);
    const text = first.lines.join('\n');
    for (const table of ['versions', 'accounts', 'meters', 'ops']) expect(text).toMatch(new RegExp(`the ${table} table copied \\(`));
    expect(text).toMatch(/upgraded in [\d.]+ s: [\d,]+ versions items, 8 accounts items, [\d,]+ meters items, [\d,]+ ops items/);
    expect(text).toContain('the law moved across too: nothing is re-read');
    expect(text).not.toContain('of no known kind');
    expect(text).not.toMatch(/building the search index/i);
    expect(second.lines).toEqual([]);
    expect(again).toEqual(before);
    expect(await layout(dir)).toEqual(['dynamodb.before-sqlite', 'store']);
  }, 60_000);

  it('under asof serve: says what moved, the old keys authenticate, their usage goes on from the old charges', async () => {
    // Prepare
    const dir = await copyOf(template);
    const [alpha, , gamma, delta] = written.keys;
    const lookup = (url: string, key: string) =>
      fetch(`${url}/law/lookup?jurisdiction=us&citation=${encodeURIComponent('1 U.S.C. § 1')}&asOf=2019-03-01`, {
        headers: { authorization: `Bearer ${key}` },
      });

    // Act
    const server = await serve(dir);
    const answers = [await lookup(server.url, alpha!.key), await lookup(server.url, gamma!.key), await lookup(server.url, delta!.key)];
    const body: unknown = await answers[0]!.json();
    await stop(server.child);
    const usage = JSON.parse(
      (await run(process.execPath, [join(ROOT, 'bin/asof.js'), 'keys', 'usage', alpha!.id, '--data-dir', dir, '--json'], { cwd: ROOT }))
        .stdout,
    );
    const secondServe = await serve(dir);
    await stop(secondServe.child);

    // Assess
    const out = server.output();
    expect(out).toContain(`asof: upgrading ${dir} to SQLite stores`);
    expect(out).toMatch(/asof: upgrading: the versions table copied \([\d,]+ of [\d,]+ items\)/);
    expect(out).toContain('the law moved across too: nothing is re-read');
    expect(out).not.toContain('loading the bundled sample corpus');
    expect(out).not.toContain('of no known kind');
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401]);
    expect(JSON.stringify(body)).toContain('1 U.S.C. § 1');
    // Three units before the upgrade (four charged, one refunded), one after.
    expect(usage).toMatchObject({ keyId: alpha!.id, plan: 'pro', today: { units: 4 }, month: { units: 4 } });
    expect(secondServe.output()).not.toMatch(/asof: (upgrad|finished the upgrade)/);
    expect(await layout(dir)).toEqual(['dynamodb.before-sqlite', 'store']);
  }, 90_000);

  it('redoes an upgrade cut off midway from the start; no store/ exists until it is whole', async () => {
    // Prepare: a child upgrading, paused (as if killed) past its first table
    const dir = await copyOf(template);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/upgrade-child.ts', dir], { cwd: ROOT });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        output += d;
        if (/the versions table copied/.test(output)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the child ended (${code}) before its first table was copied:\n${output}`)));
    });

    // Act
    const killed = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await killed;
    const cutOff = await layout(dir);
    const upgrading = await readdir(join(dir, 'store.upgrading'));
    const { stores, lines } = await openNew(dir);
    const after = await snapshot(stores, written);
    await stores.close();

    // Assess
    expect(output).not.toContain('done');
    expect(cutOff).toEqual(['dynamodb', 'store.upgrading']);
    expect(upgrading).toContain('law.sqlite');
    expect(lines.join('\n')).toMatch(/upgraded in/);
    expect(after).toEqual(before);
    expect(await layout(dir)).toEqual(['dynamodb.before-sqlite', 'store']);
  }, 60_000);

  it('finishes an upgrade cut off between its renames, keeping the new store', async () => {
    // Prepare: an upgraded data dir, a marker written to the new store, then the old store back under its old name
    const dir = await copyOf(template);
    const { stores } = await openNew(dir);
    await stores.ops.putMarker('after-the-upgrade', '2026-12-01T00:00:00.000Z');
    await stores.close();
    await rename(join(dir, 'dynamodb.before-sqlite'), join(dir, 'dynamodb'));

    // Act
    const reopened = await openNew(dir);
    const marker = await reopened.stores.ops.getMarker('after-the-upgrade');
    const after = await snapshot(reopened.stores, written);
    await reopened.stores.close();

    // Assess: not upgraded again (that would have lost the marker)
    expect(marker).toBe('2026-12-01T00:00:00.000Z');
    expect(reopened.lines.join('\n')).not.toMatch(/upgraded in|copied/);
    expect(reopened.lines.join('\n')).toContain('finished the upgrade');
    expect(after).toEqual(before);
    expect(await layout(dir)).toEqual(['dynamodb.before-sqlite', 'store']);
  }, 60_000);

  it('keeps a second old store beside the first when the name is taken (a data dir that went back and came forward)', async () => {
    const dir = await copyOf(template);
    const first = await openNew(dir);
    await first.stores.close();
    await cp(join(dir, 'dynamodb.before-sqlite'), join(dir, 'dynamodb'), { recursive: true });

    const reopened = await openNew(dir);
    await reopened.stores.close();

    expect(await readdir(dir)).toEqual(expect.arrayContaining(['dynamodb.before-sqlite', 'dynamodb.before-sqlite-2', 'store']));
    expect(existsSync(join(dir, 'dynamodb'))).toBe(false);
  }, 60_000);

  it('refuses, naming the cause and changing nothing, while an older asof holds the old store', async () => {
    // Prepare: dynalite holding the old LevelDB, as the previous release's server did
    const dir = await copyOf(template);
    const old = await holdOldStore(join(dir, 'dynamodb'));

    // Act
    const failure = await openLocalDatabases(dir).then(
      (dbs) => {
        dbs.close();
        return null;
      },
      (err: unknown) => err as Error,
    );
    const held = await layout(dir);
    await old.close();

    // Assess
    expect(failure?.message).toMatch(
      /cannot open .*dynamodb to upgrade it: another process holds its lock: is an older asof still serving/,
    );
    expect(failure?.message).toContain('nothing was changed');
    expect(held).toEqual(['dynamodb']);
    // Once it is stopped, the upgrade goes through.
    const { stores } = await openNew(dir);
    expect(await snapshot(stores, written)).toEqual(before);
    await stores.close();
  }, 60_000);

  it('refuses to finish the renames too while an older asof holds the old store', async () => {
    const dir = await copyOf(template);
    const first = await openNew(dir);
    await first.stores.close();
    await rename(join(dir, 'dynamodb.before-sqlite'), join(dir, 'dynamodb'));
    const old = await holdOldStore(join(dir, 'dynamodb'));

    const failure = await openLocalDatabases(dir).then(
      (dbs) => {
        dbs.close();
        return null;
      },
      (err: unknown) => err as Error,
    );
    const held = await layout(dir);
    await old.close();

    expect(failure?.message).toMatch(/another process holds its lock/);
    expect(held).toEqual(['dynamodb', 'store']);
  }, 60_000);
});
