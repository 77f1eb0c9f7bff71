/**
 * What one metered request costs accounts.sqlite on a file: microseconds per `findByHash` (the key lookup) and per
 * `charge` (the meter's one write transaction), each run back to back on one connection. Not part of the suite.
 * `--checkpointer`: the WAL checkpoints in their own thread, as `asof serve` runs them (checkpointer.ts).
 * Usage: node --import tsx bench/sqlite-accounts-micro.ts [CALLS] [--checkpointer]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { windowsAt } from '#accounts/windows.ts';
import { ACCOUNT_SCHEMA, SqliteAccountStore } from '#stores/sqlite/account-store.ts';
import { WalCheckpointer } from '#stores/sqlite/checkpointer.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { METER_SCHEMA, SqliteMeterStore } from '#stores/sqlite/meter-store.ts';
import { OPS_SCHEMA } from '#stores/sqlite/ops-store.ts';

const args = process.argv.slice(2);
const calls = Number(args.find((a) => !a.startsWith('--')) ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'asof-accounts-micro-'));
const db = SqliteDatabase.open(join(dir, 'accounts.sqlite'), { store: 'accounts', schemas: [ACCOUNT_SCHEMA, METER_SCHEMA, OPS_SCHEMA] });
const checkpoints = args.includes('--checkpointer') ? await WalCheckpointer.start([db]) : null;
const accounts = new SqliteAccountStore(db);
const meters = new SqliteMeterStore(db);
const KEYS = 1_000;
const hashes: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const hash = createHash('sha256').update(`key ${i}`).digest('hex');
  hashes.push(hash);
  await accounts.createKey({
    id: `key_${i}`,
    name: `key ${i}`,
    hash,
    prefix: hash.slice(0, 16),
    scopes: ['lookup', 'search'],
    test: false,
    createdAt: new Date().toISOString(),
    revokedAt: null,
    plan: 'free',
    limits: {},
  });
}

async function time(what: string, run: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 1_000; i++) await run(-i - 1); // warm up
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    await run(i);
    // The event loop turns now and then, as a server's does (timers, the checkpointer's replies).
    if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const us = Number(process.hrtime.bigint() - started) / 1_000 / calls;
  process.stdout.write(`${what}: ${us.toFixed(1)} µs per call (${calls} calls)\n`);
}

const start = Date.parse('2026-11-22T12:00:00Z');
const ceilings = { perMinute: 1_000_000, daily: 1_000_000_000, monthly: 1_000_000_000 };
await time('findByHash', (i) => accounts.findByHash(hashes[Math.abs(i) % KEYS]!));
await time('charge', (i) =>
  // Ten keys, the clock moving a second every hundred calls: new minutes, days stay put.
  meters.charge({
    keyId: `key_${Math.abs(i) % 10}`,
    requestId: `r${i}`,
    units: 1,
    windows: windowsAt(new Date(start + Math.floor(i / 100) * 1_000)),
    ceilings,
  }),
);
await checkpoints?.close();
db.close();
rmSync(dir, { recursive: true, force: true });
