/**
 * The upgrade of an old data dir's accounts, meters and ops tables into accounts.sqlite: items written by the
 * DynamoDB adapters (on dynalite), scanned raw, imported page by page, read back through the SQLite adapters and
 * compared with what the DynamoDB adapters read; importing again changes nothing.
 */
import { type DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ChargeRequest, UsageRecord } from '#accounts/ports.ts';
import { windowsAt } from '#accounts/windows.ts';
import type { CoverageCache } from '#ops/ports.ts';
import { DynamoAccountStore, idItemKey } from '#stores/dynamodb/account-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ACCOUNT_SCHEMA, importDynamoItems as importAccounts, SqliteAccountStore } from '#stores/sqlite/account-store.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { importDynamoItems as importMeters, METER_SCHEMA, SqliteMeterStore } from '#stores/sqlite/meter-store.ts';
import { importDynamoItems as importOps, OPS_SCHEMA, SqliteOpsStore } from '#stores/sqlite/ops-store.ts';
import { keyRecord } from './account-store.contract.ts';
import { useDynaliteTables } from './dynalite-tables.ts';

const dynamo = useDynaliteTables('sqlite-import');
type Kind = 'accounts' | 'meters' | 'ops';
type Importer = (db: SqliteDatabase, table: Kind, items: readonly Record<string, unknown>[]) => number;

const fresh = () => SqliteDatabase.open(':memory:', { store: 'accounts', schemas: [ACCOUNT_SCHEMA, METER_SCHEMA, OPS_SCHEMA] });

/** Scans `table` in small pages (so that an import sees items of one kind split across pages), importing each. */
async function importTable(doc: DynamoDBDocumentClient, table: string, kind: Kind, db: SqliteDatabase, importer: Importer) {
  let taken = 0;
  let scanned = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, Limit: 7, ExclusiveStartKey: start }));
    scanned += page.Items?.length ?? 0;
    taken += importer(db, kind, page.Items ?? []);
    start = page.LastEvaluatedKey;
  } while (start);
  return { taken, scanned };
}

/** Every row of every table of the file, to show a second import changes nothing. */
function dump(db: SqliteDatabase): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]));
}

describe('importing the DynamoDB accounts table', () => {
  it('carries every key exactly (hash, prefix, scopes, plan, overrides, revocation), and leaves an unfinished creation out', async () => {
    // Prepare
    const names = await dynamo.fresh();
    const old = new DynamoAccountStore(dynamo.doc, names.accounts);
    const keys = [
      keyRecord('key_a', { test: true, scopes: ['lookup'], plan: 'pro', limits: { perMinute: 600, daily: 10_000 } }),
      keyRecord('key_b', { createdAt: '2024-05-01T00:00:00.000Z', limits: { monthly: 5 } }),
      keyRecord('key_c', { scopes: [], name: 'ünïcode ✓', createdAt: '2024-07-01T00:00:00.000Z' }),
    ];
    for (const k of keys) await old.createKey(k);
    await old.revoke('key_b', '2024-06-05T00:00:00.000Z');
    const orphan = keyRecord('key_orphan'); // an id reserved by a createKey that died before its key item
    await dynamo.doc.send(new PutCommand({ TableName: names.accounts, Item: { ...idItemKey(orphan.id), hash: orphan.hash } }));

    // Act
    const db = fresh();
    const { taken, scanned } = await importTable(dynamo.doc, names.accounts, 'accounts', db, importAccounts);
    const once = dump(db);
    const again = await importTable(dynamo.doc, names.accounts, 'accounts', db, importAccounts);

    // Assess
    const store = new SqliteAccountStore(db);
    expect(scanned).toBe(7);
    expect(taken).toBe(7);
    expect(await store.listKeys()).toEqual(await old.listKeys());
    for (const k of keys) {
      expect(await store.findByHash(k.hash)).toEqual(await old.findByHash(k.hash));
      expect(await store.getById(k.id)).toEqual(await old.getById(k.id));
    }
    expect((await store.getById('key_b'))?.revokedAt).toBe('2024-06-05T00:00:00.000Z');
    expect(await store.getById(orphan.id)).toBeNull();
    expect(await store.findByHash(orphan.hash)).toBeNull();
    expect(again.taken).toBe(7);
    expect(dump(db)).toEqual(once);
    expect(importAccounts(db, 'meters', [{ pk: `key#${orphan.hash}`, sk: 'key', ...orphan }])).toBe(0); // another table's
  });
});

describe('importing the DynamoDB meters table', () => {
  it('carries every counter (minute, days, month, refunds) and every usage record exactly', async () => {
    // Prepare: calls over two months, two keys, a refund, and usage records over two days
    const names = await dynamo.fresh();
    const old = new DynamoMeterStore(dynamo.doc, names.meters);
    const ceilings = { perMinute: 100, daily: 1_000, monthly: 10_000 };
    let n = 0;
    const call = (keyId: string, iso: string, units: number): ChargeRequest => ({
      keyId,
      requestId: `req-${++n}`,
      units,
      windows: windowsAt(new Date(iso)),
      ceilings,
    });
    const calls = [
      call('key_a', '2026-10-31T23:59:10Z', 2),
      call('key_a', '2026-11-01T00:00:10Z', 3),
      call('key_a', '2026-11-22T12:00:10Z', 4),
      call('key_a', '2026-11-22T12:00:20Z', 1),
      call('key_b', '2026-11-22T12:00:30Z', 7),
    ];
    for (const c of calls) await old.charge(c);
    await old.refund(calls[3]!);
    const rec = (keyId: string, at: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
      keyId,
      requestId: `req-${++n}`,
      routeId: 'law-lookup',
      units: 1,
      status: 200,
      at,
      test: false,
      ...over,
    });
    await old.record([
      rec('key_a', '2026-11-22T12:00:10.000Z'),
      rec('key_a', '2026-11-22T12:00:20.000Z', { units: 0, status: 503, routeId: 'law-search' }),
      rec('key_a', '2026-11-23T00:00:00.000Z', { test: true }),
      rec('key_b', '2026-11-22T12:00:30.000Z', { units: 7 }),
    ]);

    // Act
    const db = fresh();
    const { taken, scanned } = await importTable(dynamo.doc, names.meters, 'meters', db, importMeters);
    const once = dump(db);
    await importTable(dynamo.doc, names.meters, 'meters', db, importMeters);

    // Assess
    const store = new SqliteMeterStore(db);
    expect(taken).toBe(scanned);
    for (const keyId of ['key_a', 'key_b', 'key_c']) {
      for (const month of ['2026-10', '2026-11', '2026-12']) expect(await store.month(keyId, month)).toEqual(await old.month(keyId, month));
      for (const c of calls) expect(await store.usage(keyId, c.windows)).toEqual(await old.usage(keyId, c.windows));
      for (const date of ['2026-11-22', '2026-11-23']) expect(await store.records(keyId, date)).toEqual(await old.records(keyId, date));
    }
    expect(await store.usage('key_a', calls[3]!.windows)).toEqual({ minute: 2, day: 4, month: 7 });
    expect(dump(db)).toEqual(once);

    // The imported minute goes on counting where it was
    const next = await store.charge(call('key_a', '2026-11-22T12:00:40Z', 1));
    expect(next).toEqual({ admitted: true, usage: { minute: 3, day: 5, month: 8 } });
  });
});

describe('importing the DynamoDB ops table', () => {
  const coverage: CoverageCache = {
    records: [
      {
        jurisdiction: 'us',
        corpus: 'statutes',
        name: 'United States Code',
        cadenceClass: 'edition',
        temporalBasis: 'compiled-edition',
        coverageFrom: '2021-01-04',
        latestVersion: 'Release point 118-50',
        sections: 58,
        versions: 116,
        lastRetrievedAt: '2024-06-01T00:00:00Z',
        coverageTo: null,
        latestVersionDate: '2024-05-28',
        editions: [{ label: 'Release point 118-50', date: '2024-05-28' }],
      },
    ],
    format: 2,
    generatedAt: '2024-06-01T10:00:00.000Z',
    refreshFailures: 1,
    lastError: 'store unreachable',
    lastAttemptAt: '2024-06-01T10:00:00.000Z',
    dirtySince: null,
  };
  const run = (ranAt: string, failed: number) => ({
    run: { ranAt, jurisdiction: 'us', trigger: 'schedule' as const, totalChecks: 9, passed: 8 - failed, warned: 1, failed },
    findings: [
      {
        scope: 'us/statutes/usc',
        checkName: 'gaps-explained',
        status: 'warn' as const,
        detail: '1 problem(s)',
        rows: 58,
        avgChars: 2310,
        maxChars: null,
        unexplainedEmpty: 0,
        misattributed: 0,
      },
    ],
  });

  it('carries coverage with its marks, audits (old spellings too), health, leases, quotas and markers; leaves format records', async () => {
    // Prepare
    const names = await dynamo.fresh();
    const old = new DynamoOpsStore(dynamo.doc, names.ops);
    await old.putCoverage(coverage);
    await old.markIngestStarted('2024-06-01T10:05:00.000Z');
    await old.putAuditRun(run('2024-06-01T03:00:00.000Z', 0));
    await old.putAuditRun(run('2024-06-02T03:00:00.500Z', 2));
    await old.putAuditRun({ ...run('2024-06-01T04:00:00Z', 0), run: { ...run('2024-06-01T04:00:00Z', 0).run, jurisdiction: 'dc' } });
    const legacyRun = { ...run('2024-05-01T03:00:00.000Z', 0).run, jurisdiction: 'nd' }; // the latest of its jurisdiction
    const legacyFinding = {
      scope: 'us',
      check_name: 'size-outliers',
      status: 'warn',
      detail: 'd',
      rows: 3,
      avg_chars: null,
      max_chars: 9,
      unexplained_empty: 1,
      misattributed: 0,
    };
    await dynamo.doc.send(
      new PutCommand({ TableName: names.ops, Item: { pk: 'audit#nd', sk: legacyRun.ranAt, run: legacyRun, findings: [legacyFinding] } }),
    );
    await old.putHealthVerdict({ checkedAt: '2024-06-01T10:00:00.000Z', reachable: false, detail: 'connect ECONNREFUSED' });
    await old.acquireLease('ingest', 'a', '2024-06-01T06:10:00-04:00', '2024-06-01T10:00:00.000Z');
    await old.acquireLease('audit', 'b', '2024-06-01T09:00:00.000Z', '2024-06-01T08:00:00.000Z'); // run out, still stored
    await old.takeQuota('fallback-2024-06-01', 3, 5);
    await old.takeQuota('fallback-2024-06-02', 9, 5);
    await old.putMarker('sample-corpus-loaded', '2024-06-01T07:00:00.000Z');
    // The filing-format records share the table: another importer's
    for (const item of [
      { pk: 'format-records', sk: 'r1', stored: { record: { id: 'r1' } } },
      { pk: 'format-pins', sk: 'r1', pins: ['row'] },
      { pk: 'format-pinned', sk: 'row', records: new Set(['r1']) },
      { pk: 'format', sk: 'legacy' },
    ]) {
      await dynamo.doc.send(new PutCommand({ TableName: names.ops, Item: item }));
    }

    // Act
    const db = fresh();
    const { taken, scanned } = await importTable(dynamo.doc, names.ops, 'ops', db, importOps);
    const once = dump(db);
    await importTable(dynamo.doc, names.ops, 'ops', db, importOps);

    // Assess
    const store = new SqliteOpsStore(db);
    expect(scanned - taken).toBe(4);
    expect(await store.getCoverage()).toEqual(await old.getCoverage());
    expect(await store.getCoverage()).toMatchObject({ ingestingSince: '2024-06-01T10:05:00.000Z', dirtySince: '2024-06-01T10:05:00.000Z' });
    for (const j of ['us', 'dc', 'nd', 'md']) {
      expect(await store.latestAuditRun(j)).toEqual(await old.latestAuditRun(j));
      expect(await store.auditHistory(j, 10)).toEqual(await old.auditHistory(j, 10));
    }
    expect((await store.auditHistory('us', 10)).map((r) => r.ranAt)).toEqual(['2024-06-02T03:00:00.500Z', '2024-06-01T03:00:00.000Z']);
    expect((await store.latestAuditRun('nd'))?.findings[0]).toMatchObject({ checkName: 'size-outliers', maxChars: 9, unexplainedEmpty: 1 });
    expect(await store.getHealthVerdict()).toEqual(await old.getHealthVerdict());
    for (const name of ['ingest', 'audit', 'reindex']) expect(await store.getLease(name)).toEqual(await old.getLease(name));
    for (const name of ['fallback-2024-06-01', 'fallback-2024-06-02', 'fallback-2024-06-03']) {
      expect(await store.quotaUsed(name)).toBe(await old.quotaUsed(name));
    }
    expect(await store.getMarker('sample-corpus-loaded')).toBe('2024-06-01T07:00:00.000Z');
    expect(dump(db)).toEqual(once);

    // What was carried behaves as it did: the lease is held (by instant), the quota goes on from what was used
    expect(await store.acquireLease('ingest', 'b', '2024-06-01T11:00:00.000Z', '2024-06-01T10:09:00.000Z')).toBe(false);
    expect(await store.acquireLease('audit', 'c', '2024-06-01T11:00:00.000Z', '2024-06-01T10:09:00.000Z')).toBe(true);
    expect(await store.takeQuota('fallback-2024-06-01', 5, 5)).toEqual({ granted: 2, used: 5 });
  });

  it('carries the ingest marks alone when no numbers were ever computed', async () => {
    const names = await dynamo.fresh();
    const old = new DynamoOpsStore(dynamo.doc, names.ops);
    await old.markIngestStarted('2024-06-01T10:05:00.000Z');

    const db = fresh();
    await importTable(dynamo.doc, names.ops, 'ops', db, importOps);

    const store = new SqliteOpsStore(db);
    expect(await store.getCoverage()).toBeNull();
    const first = await store.putCoverage(coverage, '2024-06-01T10:10:00.000Z');
    expect(first).toEqual({ ...coverage, dirtySince: '2024-06-01T10:05:00.000Z', ingestingSince: '2024-06-01T10:05:00.000Z' });
  });
});
