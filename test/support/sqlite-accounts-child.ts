/**
 * A child process for the cross-process test of accounts.sqlite: opens the file as every process of a data dir does,
 * says `ready`, waits for `go` on stdin, then charges and takes quota as fast as it can, interleaving its calls, and
 * prints what it was granted as one JSON line.
 * Usage: node --import tsx test/support/sqlite-accounts-child.ts FILE CALLS
 */
import { createInterface } from 'node:readline';
import type { ChargeRequest } from '#accounts/ports.ts';
import { windowsAt } from '#accounts/windows.ts';
import { ACCOUNT_SCHEMA } from '#stores/sqlite/account-store.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { METER_SCHEMA, SqliteMeterStore } from '#stores/sqlite/meter-store.ts';
import { OPS_SCHEMA, SqliteOpsStore } from '#stores/sqlite/ops-store.ts';

const [file, callsArg] = process.argv.slice(2);
const calls = Number(callsArg);
const db = SqliteDatabase.open(file!, { store: 'accounts', schemas: [ACCOUNT_SCHEMA, METER_SCHEMA, OPS_SCHEMA] });
const meters = new SqliteMeterStore(db);
const ops = new SqliteOpsStore(db);
const windows = windowsAt(new Date('2026-11-22T12:00:10Z'));
const charge = (keyId: string, requestId: string, perMinute: number, daily: number): ChargeRequest => ({
  keyId,
  requestId,
  units: 1,
  windows,
  ceilings: { perMinute, daily, monthly: 1_000_000 },
});

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) if (line === 'go') break;

const granted = { day: 0, minute: 0, retried: 0, quota: 0 };
for (let i = 0; i < calls; i++) {
  if ((await meters.charge(charge('key_day', `${process.pid}-${i}`, 1_000_000, 120))).admitted) granted.day++;
  if ((await meters.charge(charge('key_minute', `${process.pid}-${i}`, 37, 1_000_000))).admitted) granted.minute++;
  // Every process charges the same call: it counts once.
  if ((await meters.charge(charge('key_retried', 'the-same-call', 1_000_000, 1_000_000))).admitted) granted.retried++;
  granted.quota += (await ops.takeQuota('burst', 1, 77)).granted;
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(`${JSON.stringify(granted)}\n`);
db.close();
lines.close();
