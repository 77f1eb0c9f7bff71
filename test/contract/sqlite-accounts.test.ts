/**
 * The SQLite adapters of accounts.sqlite (keys, meters, ops state) against their ports' contract suites, then what
 * only a file shared by several connections and processes shows: exact counts across processes, another
 * connection's writes seen at once, a lock held too long failing busy rather than hanging, old rows going.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChargeRequest, UsageRecord } from '#accounts/ports.ts';
import { windowsAt } from '#accounts/windows.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { ACCOUNT_SCHEMA, SqliteAccountStore } from '#stores/sqlite/account-store.ts';
import { WalCheckpointer } from '#stores/sqlite/checkpointer.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { METER_SCHEMA, SqliteMeterStore } from '#stores/sqlite/meter-store.ts';
import { OPS_SCHEMA, SqliteOpsStore } from '#stores/sqlite/ops-store.ts';
import { describeAccountStoreContract, keyRecord } from './account-store.contract.ts';
import { describeMeterStoreContract } from './meter-store.contract.ts';
import { describeOpsStoreContract } from './ops-store.contract.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMAS = [ACCOUNT_SCHEMA, METER_SCHEMA, OPS_SCHEMA];
const memory = () => SqliteDatabase.open(':memory:', { store: 'accounts', schemas: SCHEMAS });

describeAccountStoreContract('SQLite', async () => new SqliteAccountStore(memory()));
describeMeterStoreContract('SQLite', async () => new SqliteMeterStore(memory()));
describeOpsStoreContract('SQLite', async () => new SqliteOpsStore(memory()));

const dirs: string[] = [];
const opened: SqliteDatabase[] = [];
afterAll(async () => {
  for (const db of opened) db.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
async function newFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'asof-accounts-sqlite-'));
  dirs.push(dir);
  return join(dir, 'accounts.sqlite');
}
function open(file: string, busyTimeoutMs?: number): SqliteDatabase {
  const db = SqliteDatabase.open(file, { store: 'accounts', schemas: SCHEMAS, ...(busyTimeoutMs !== undefined && { busyTimeoutMs }) });
  opened.push(db);
  return db;
}

const NOON = windowsAt(new Date('2026-11-22T12:00:10Z'));
const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  keyId: 'key_a',
  requestId: `req-${Math.random()}`,
  units: 1,
  windows: NOON,
  ceilings: { perMinute: 100, daily: 1_000, monthly: 10_000 },
  ...over,
});

/** Starts the child on `file`; resolves once it is ready, with a promise of its one JSON line. */
function child(file: string, calls: number): Promise<{ process: ChildProcess; result: Promise<Record<string, number>> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/support/sqlite-accounts-child.ts', file, String(calls)], { cwd: ROOT });
  let output = '';
  let errors = '';
  proc.stderr!.on('data', (d) => (errors += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d;
      if (output.startsWith('ready\n')) {
        proc.stdout!.off('data', onData);
        let rest = output.slice('ready\n'.length);
        proc.stdout!.on('data', (more) => (rest += more));
        const result = exited.then((code) => {
          if (code !== 0) throw new Error(`child exited with ${code}: ${errors}`);
          return JSON.parse(rest.trim()) as Record<string, number>;
        });
        resolve({ process: proc, result });
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`child exited with ${code} before it was ready: ${errors}`)));
  });
}

describe('accounts.sqlite shared by several processes', () => {
  it('counts exactly what the ceilings allow, a shared call once, and grants a quota exactly, whatever the interleaving', async () => {
    // Prepare: four processes on one file, each about to make 60 of each call
    const file = await newFile();
    open(file); // the schemas exist before the children race to open the file
    const children = await Promise.all(Array.from({ length: 4 }, () => child(file, 60)));

    // Act
    for (const c of children) c.process.stdin!.write('go\n');
    const results = await Promise.all(children.map((c) => c.result));

    // Assess: 240 attempts at each ceiling, never more admitted than it allows
    const sum = (name: string) => results.reduce((n, r) => n + (r[name] ?? 0), 0);
    const db = open(file);
    const meters = new SqliteMeterStore(db);
    expect(sum('day')).toBe(120);
    expect(sum('minute')).toBe(37);
    expect(sum('retried')).toBe(240); // every charge of the one call is admitted...
    expect(sum('quota')).toBe(77);
    expect(await meters.usage('key_day', NOON)).toEqual({ minute: 120, day: 120, month: 120 });
    expect(await meters.usage('key_minute', NOON)).toEqual({ minute: 37, day: 37, month: 37 });
    expect(await meters.usage('key_retried', NOON)).toEqual({ minute: 1, day: 1, month: 1 }); // ...and counted once
    expect(await new SqliteOpsStore(db).quotaUsed('burst')).toBe(77);
  }, 30_000);

  it('shows a key created, then revoked, by one connection to another connection’s very next read', async () => {
    const file = await newFile();
    const writer = new SqliteAccountStore(open(file));
    const reader = new SqliteAccountStore(open(file));
    const key = keyRecord('key_x');
    expect(await reader.findByHash(key.hash)).toBeNull();

    await writer.createKey(key);
    expect(await reader.findByHash(key.hash)).toEqual(key);

    await writer.revoke(key.id, '2026-11-22T12:00:00.000Z');
    expect(await reader.findByHash(key.hash)).toEqual({ ...key, revokedAt: '2026-11-22T12:00:00.000Z' });
    await expect(reader.createKey({ ...key, id: 'key_y' })).rejects.toThrow(/hash already exists/);
  });

  it('fails a write busy (StoreUnavailableError) when another connection holds the lock past the busy timeout, then recovers', async () => {
    // Prepare: another connection in the middle of a write transaction
    const file = await newFile();
    const db = open(file, 100);
    const meters = new SqliteMeterStore(db);
    const accounts = new SqliteAccountStore(db);
    const ops = new SqliteOpsStore(db);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      // Act
      const started = performance.now();
      const outcomes = await Promise.allSettled([
        meters.charge(charge()),
        accounts.createKey(keyRecord('key_b')),
        ops.takeQuota('burst', 1, 5),
      ]);
      const ms = performance.now() - started;

      // Assess: each failed as busy, after waiting about the timeout, not forever; reads go on meanwhile (WAL)
      for (const o of outcomes) {
        expect(o.status).toBe('rejected');
        const err = (o as PromiseRejectedResult).reason;
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect(err).toMatchObject({ store: 'accounts', reason: 'busy' });
      }
      expect(ms).toBeLessThan(2_000);
      expect(await meters.usage('key_a', NOON)).toEqual({ minute: 0, day: 0, month: 0 });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await meters.charge(charge())).admitted).toBe(true);
    expect(await ops.takeQuota('burst', 1, 5)).toEqual({ granted: 1, used: 1 });
  });
});

describe('accounts.sqlite: old rows go, a few with each write', () => {
  const usage = (keyId: string, at: string): UsageRecord => ({
    keyId,
    requestId: `req-${keyId}-${at}`,
    routeId: 'law-lookup',
    units: 1,
    status: 200,
    at,
    test: false,
  });

  it('keeps usage records 90 days, deleting at most two expired ones per record written', async () => {
    // Prepare: ten records of one day, each of its own key
    const meters = new SqliteMeterStore(memory());
    const keys = Array.from({ length: 10 }, (_, i) => `key_${i}`);
    await meters.record(keys.map((k) => usage(k, '2026-01-10T12:00:00.000Z')));
    const left = async () => (await Promise.all(keys.map((k) => meters.records(k, '2026-01-10')))).flat().length;

    // Act / Assess: 89 days on, all kept; 91 days on, one record written takes two of them
    await meters.record([usage('key_z', '2026-04-09T12:00:00.000Z')]);
    expect(await left()).toBe(10);
    await meters.record([usage('key_z', '2026-04-11T12:00:00.000Z')]);
    expect(await left()).toBe(8);
    expect(await meters.records('key_z', '2026-04-09')).toHaveLength(1); // not yet expired
  });

  it('keeps a month’s counters 400 days past its end, and a counted call’s id a day (its refund then finds nothing)', async () => {
    const meters = new SqliteMeterStore(memory());
    const old = charge({ windows: windowsAt(new Date('2025-01-15T10:00:00Z')), units: 3 });
    await meters.charge(old);
    const late = charge({ windows: windowsAt(new Date('2025-01-16T10:01:00Z')) });
    await meters.charge(late); // a day and a minute on: the first call's id is gone
    expect(await meters.refund(old)).toBe(false);
    expect(await meters.refund(late)).toBe(true);

    await meters.charge(charge({ windows: windowsAt(new Date('2026-03-07T12:00:00Z')) })); // 400 days past the end of January 2025
    expect(await meters.month('key_a', '2025-01')).toEqual({ units: 3, days: { '15': 3 } });
    await meters.charge(charge({ windows: windowsAt(new Date('2026-03-08T00:01:00Z')) }));
    expect(await meters.month('key_a', '2025-01')).toEqual({ units: 0, days: {} });
  });

  it('keeps audit runs 400 days, leases a day past their end, quotas a week past their last take', async () => {
    let now = Date.parse('2026-11-22T12:00:00Z');
    const ops = new SqliteOpsStore(memory(), { now: () => now });
    const run = (ranAt: string) => ({
      run: { ranAt, jurisdiction: 'us', trigger: 'schedule' as const, totalChecks: 1, passed: 1, warned: 0, failed: 0 },
      findings: [],
    });
    await ops.putAuditRun(run('2025-01-01T00:00:00.000Z'));
    await ops.putAuditRun(run('2026-02-04T00:00:00.000Z')); // 399 days on
    expect(await ops.auditHistory('us', 10)).toHaveLength(2);
    await ops.putAuditRun(run('2026-02-06T00:00:00.000Z')); // 401 days on
    expect((await ops.auditHistory('us', 10)).map((r) => r.ranAt)).toEqual(['2026-02-06T00:00:00.000Z', '2026-02-04T00:00:00.000Z']);

    await ops.acquireLease('ingest', 'a', '2026-11-20T00:00:00.000Z', '2026-11-19T00:00:00.000Z');
    await ops.acquireLease('audit', 'b', '2026-11-22T00:00:00.000Z', '2026-11-20T12:00:00.000Z'); // half a day past its end
    expect(await ops.getLease('ingest')).toEqual({ owner: 'a', until: '2026-11-20T00:00:00.000Z' });
    await ops.acquireLease('audit', 'b', '2026-11-22T00:00:00.000Z', '2026-11-21T00:00:01.000Z'); // a day and a second
    expect(await ops.getLease('ingest')).toBeNull();

    await ops.takeQuota('fallback-2026-11-22', 2, 5);
    now += 7 * 86_400_000;
    await ops.takeQuota('fallback-2026-11-29', 1, 5);
    expect(await ops.quotaUsed('fallback-2026-11-22')).toBe(2);
    now += 1_000;
    await ops.takeQuota('fallback-2026-11-29', 1, 5);
    expect(await ops.quotaUsed('fallback-2026-11-22')).toBe(0);
    expect(await ops.quotaUsed('fallback-2026-11-29')).toBe(2);
  });
});

describe('accounts.sqlite: what only these adapters promise', () => {
  it('answers a retried charge as the first time, even once the minute has filled or the call was refunded', async () => {
    const meters = new SqliteMeterStore(memory());
    const ceilings = { perMinute: 2, daily: 100, monthly: 100 };
    const first = charge({ ceilings, units: 5 });
    const answer = await meters.charge(first);
    await meters.charge(charge({ ceilings }));
    expect((await meters.charge(charge({ ceilings }))).admitted).toBe(false); // the minute is full

    expect(await meters.charge(first)).toEqual(answer);
    expect(await meters.refund(first)).toBe(true);
    expect(await meters.charge(first)).toEqual(answer);
    expect(await meters.usage('key_a', NOON)).toEqual({ minute: 2, day: 1, month: 1 });
  });

  it('counts a call whose clock lags the key’s latest minute in that minute', async () => {
    const meters = new SqliteMeterStore(memory());
    const ceilings = { perMinute: 2, daily: 100, monthly: 100 };
    const later = windowsAt(new Date('2026-11-22T12:01:00Z'));
    await meters.charge(charge({ ceilings, windows: later }));
    expect(await meters.charge(charge({ ceilings }))).toEqual({ admitted: true, usage: { minute: 2, day: 2, month: 2 } });
    expect(await meters.charge(charge({ ceilings }))).toMatchObject({ admitted: false, exceeded: 'minute' });
    expect(await meters.usage('key_a', later)).toEqual({ minute: 2, day: 2, month: 2 });
  });

  it('refuses a lease time that is not an instant, writing nothing', async () => {
    const ops = new SqliteOpsStore(memory());
    await expect(ops.acquireLease('ingest', 'a', 'soon', '2026-11-22T12:00:00Z')).rejects.toThrow(/not an ISO 8601/);
    expect(await ops.getLease('ingest')).toBeNull();
  });

  it('fails closed: a closed file is StoreUnavailableError on every store', async () => {
    const db = memory();
    db.close();
    for (const call of [
      () => new SqliteAccountStore(db).findByHash('0'),
      () => new SqliteMeterStore(db).charge(charge()),
      () => new SqliteOpsStore(db).getCoverage(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
    }
  });
});

describe('accounts.sqlite: charges of one turn share a commit, checkpoints run in a thread', () => {
  it('commits the charges of one turn together, a failing one undoing only itself', async () => {
    // Prepare: one connection's meter, and a second connection counting commits (data_version moves once per commit)
    const file = await newFile();
    const db = open(file);
    const meters = new SqliteMeterStore(db);
    const other = new Database(file, { readonly: true });
    const commits = () => other.pragma('data_version', { simple: true }) as number;
    const before = commits();

    // Act: twelve charges in one turn, one of them larger than its ceiling and one that breaks the store's invariant
    const ceilings = { perMinute: 100, daily: 1_000, monthly: 10_000 };
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => meters.charge(charge({ requestId: `turn-${i}`, ceilings }))),
      meters.charge(charge({ requestId: 'too-large', units: 2_000, ceilings })),
      meters.charge(charge({ requestId: 'broken', units: Number.NaN, ceilings })),
    ]);
    const after = commits();
    other.close();

    // Assess: one commit; the ten counted, the large one refused, the broken one rejected and written nowhere
    expect(after - before).toBe(1);
    expect(outcomes.slice(0, 10).every((o) => o.status === 'fulfilled' && o.value.admitted)).toBe(true);
    expect(outcomes[10]).toMatchObject({ status: 'fulfilled', value: { admitted: false, exceeded: 'day' } });
    expect(outcomes[11]!.status).toBe('rejected');
    expect(await meters.usage('key_a', NOON)).toEqual({ minute: 10, day: 10, month: 10 });
    expect(await meters.refund({ keyId: 'key_a', requestId: 'broken', units: 1, windows: NOON })).toBe(false);
  });

  it('fails every charge of a turn busy when another connection holds the lock, then counts again', async () => {
    const file = await newFile();
    const meters = new SqliteMeterStore(open(file, 100));
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([meters.charge(charge()), meters.charge(charge())]);
    other.exec('ROLLBACK');
    other.close();
    for (const o of outcomes) expect((o as PromiseRejectedResult).reason).toMatchObject({ store: 'accounts', reason: 'busy' });
    expect((await meters.charge(charge())).admitted).toBe(true);
    expect(await meters.usage('key_a', NOON)).toMatchObject({ minute: 1 });
  });

  it('checkpoints the WAL from its own thread, the connection’s own checkpoints raised to a backstop', async () => {
    // Prepare: a file written by one connection whose checkpoints the thread took over
    const file = await newFile();
    const db = open(file);
    const checkpoints = await WalCheckpointer.start([db], { intervalMs: 60_000 });
    try {
      const meters = new SqliteMeterStore(db);
      const probe = new Database(file);
      expect(probe.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
      for (let i = 0; i < 1_500; i++) await meters.charge(charge({ keyId: `key_${i}`, requestId: `wal-${i}` }));
      // Assess: past SQLite's own threshold (1,000 pages) nothing was checkpointed by the commits…
      const waiting = probe.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      expect(waiting[0]!.log).toBeGreaterThan(1_000);
      probe.close();
      // …and the thread folds the WAL back into the file
      await checkpoints.checkpoint();
      const reader = new Database(file, { readonly: true });
      const done = reader.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      reader.close();
      expect(done[0]!.checkpointed).toBe(done[0]!.log);
      expect(await meters.usage('key_1499', NOON)).toEqual({ minute: 1, day: 1, month: 1 });
    } finally {
      await checkpoints.close();
    }
  });
});
