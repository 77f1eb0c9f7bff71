/**
 * law.sqlite: the SQLite adapters of the VersionStore and the FormatStore. The VersionStore contract on a fresh file
 * each test (bare and through the caching adapter); two connections on one file, as two processes have them, and two
 * real processes; a file removed, replaced or damaged under the store; and the upgrade of an old data dir, importing
 * the items the DynamoDB adapters wrote (on dynalite) and reading them back through the SQLite adapters.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { pinnedRow, pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import { BUNDLED_RECORD_FILES } from '#formats/records/index.ts';
import { OPEN_END, type SectionVersion } from '#law/model.ts';
import type { EditionRecord, KeyHistory } from '#law/ports.ts';
import { ConcurrentUpdateError, StoreUnavailableError } from '#shared/errors.ts';
import { CachingVersionStore } from '#stores/cache/version-store.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { FORMAT_STORE_SCHEMA, importDynamoItems as importFormatItems, SqliteFormatStore } from '#stores/sqlite/format-store.ts';
import { importDynamoItems as importVersionItems, SqliteVersionStore, VERSION_STORE_SCHEMA } from '#stores/sqlite/version-store.ts';
import { useDynaliteTables } from './dynalite-tables.ts';
import { bigHistoryOf, bodyOf, describeVersionStoreContract, historyOf, refOf, versionOf } from './version-store.contract.ts';

const LAW_SCHEMAS = [VERSION_STORE_SCHEMA, FORMAT_STORE_SCHEMA];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRITER = fileURLToPath(new URL('../support/sqlite-history-writer.ts', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'asof-sqlite-law-'));
const opened: SqliteDatabase[] = [];
let files = 0;

const newFile = () => join(work, `law-${++files}.sqlite`);
function openLaw(file = newFile(), options: { busyTimeoutMs?: number } = {}): SqliteDatabase {
  const db = SqliteDatabase.open(file, { store: 'versions', schemas: LAW_SCHEMAS, ...options });
  opened.push(db);
  return db;
}

afterAll(() => {
  for (const db of opened) db.close();
  rmSync(work, { recursive: true, force: true });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const from = '2020-01-01T00:00:00-05:00';

describeVersionStoreContract('SQLite', async () => new SqliteVersionStore(openLaw()));
describeVersionStoreContract('caching adapter over SQLite', async () => {
  const db = openLaw();
  return new CachingVersionStore(new SqliteVersionStore(db), { stamps: db, table: 'law' });
});

describe('SQLite version store: what its own layout must get right', () => {
  it('pages scans and prefix reads past a page of rows, in key order, without repeats', async () => {
    // Prepare: more histories and versions than one page holds (the adapter reads some hundreds at a time)
    const store = new SqliteVersionStore(openLaw());
    const keys = Array.from({ length: 1_234 }, (_, i) => `1-${String(i).padStart(5, '0')}`);
    await store.putHistories(keys.map((k) => historyOf(refOf(k))));
    await store.putHistories([historyOf(refOf('10-1')), historyOf(refOf('1-1', 'rules'))]);
    await store.applyWrites(keys.map((k) => ({ kind: 'put', version: versionOf(refOf(k), from, OPEN_END) })));

    // Act
    const prefixed = (await collect(store.historiesWithPrefix('us', 'statutes', '1-'))).map((h) => h.key);
    const scanned = await collect(store.scanHistories());
    const versions = await collect(store.scanVersions());

    // Assess
    expect(prefixed).toEqual(keys);
    expect(scanned.map((h) => `${h.corpus}#${h.key}`).sort()).toEqual(
      [...keys, '10-1']
        .map((k) => `statutes#${k}`)
        .concat('rules#1-1')
        .sort(),
    );
    expect(versions.map((v) => v.citation.key)).toEqual(keys);
  });

  it('reads getSummaries and getHistories of more keys than one statement names', async () => {
    const store = new SqliteVersionStore(openLaw());
    const keys = Array.from({ length: 1_100 }, (_, i) => `2-${i}`);
    await store.applyWrites(keys.filter((_, i) => i % 2 === 0).map((k) => ({ kind: 'put', version: versionOf(refOf(k), from, OPEN_END) })));
    await store.putHistories(keys.filter((_, i) => i % 3 === 0).map((k) => historyOf(refOf(k))));

    const summaries = await store.getSummaries(keys.map((k) => ({ ref: refOf(k), validFrom: from })));
    const histories = await store.getHistories('us', 'statutes', keys);

    expect(summaries.map((s, i) => (s === null ? i % 2 !== 0 : s.citation.key === keys[i]))).toEqual(keys.map(() => true));
    expect([...histories.keys()].sort()).toEqual(keys.filter((_, i) => i % 3 === 0).sort());
  });

  it('orders keys as their UTF-8 bytes, as DynamoDB orders its sort keys', async () => {
    const store = new SqliteVersionStore(openLaw());
    for (const k of ['1-a', '1-B', '1-§1', '1-Z', '1-é']) await store.putHistory(historyOf(refOf(k)));
    expect(await store.nearbyKeys('us', 'statutes', '1-', 5)).toEqual(['1-B', '1-Z', '1-a', '1-é', '1-§1'].sort(byBytes));
    expect(await store.nearbyKeys('us', 'statutes', '1-', 5)).toEqual(['1-B', '1-Z', '1-a', '1-§1', '1-é']);
  });

  it('undoes the whole applyWrites call when one of its writes fails', async () => {
    // Prepare
    const store = new SqliteVersionStore(openLaw());
    const r = refOf('1-1');
    const kept = versionOf(r, from, OPEN_END, 'Kept.');
    await store.applyWrites([{ kind: 'put', version: kept }]);

    // Act: a put, a re-dating and a delete, then a setValidTo of a version never stored
    const call = store.applyWrites([
      { kind: 'put', version: versionOf(refOf('1-2'), from, OPEN_END) },
      { kind: 'setValidTo', ref: r, validFrom: from, validTo: '2022-01-03T00:00:00-05:00' },
      { kind: 'delete', ref: r, validFrom: from },
      { kind: 'setValidTo', ref: refOf('1-3'), validFrom: from, validTo: OPEN_END },
    ]);

    // Assess
    await expect(call).rejects.toThrow(/us#statutes#1-3 valid from 2020-01-01/);
    expect(await store.getVersion(r, from)).toEqual(kept);
    expect(await store.getVersion(refOf('1-2'), from)).toBeNull();
  });

  it('undoes the whole putHistories call when a write fails, and refuses a history over the limit in putHistory too', async () => {
    const db = openLaw();
    const store = new SqliteVersionStore(db);
    await expect(store.putHistory(bigHistoryOf(refOf('1-5'), 450_000))).rejects.toThrow(/us#statutes#1-5 is \d+ bytes/);
    // A history the adapter cannot store: its JSON text fails (a BigInt), after the first was written in the call
    const broken = { ...historyOf(refOf('1-7')), summary: { ...historyOf(refOf('1-7')).summary, versions: 1n as unknown as number } };
    await expect(store.putHistories([historyOf(refOf('1-6')), broken])).rejects.toThrow();
    expect((await store.getHistories('us', 'statutes', ['1-5', '1-6', '1-7'])).size).toBe(0);
  });
});

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('two connections on one file, as two processes have it', () => {
  it('sees the other connection’s writes at its next read, and the cache over it does too', async () => {
    // Prepare
    const file = newFile();
    const one = new SqliteVersionStore(openLaw(file));
    const otherDb = openLaw(file);
    const other = new SqliteVersionStore(otherDb);
    const cached = new CachingVersionStore(other, { stamps: otherDb, table: 'law' });
    const r = refOf('1-1');
    expect(await cached.findInForce(r, '2024-01-01')).toBeNull();
    expect(await other.carries('us')).toBe(false);

    // Act
    await one.applyWrites([{ kind: 'put', version: versionOf(r, from, OPEN_END, 'First.') }]);
    await one.putHistory(historyOf(r));

    // Assess
    expect((await other.getHistories('us', 'statutes', ['1-1'])).get('1-1')?.rev).toBe(1);
    expect(await other.carries('us')).toBe(true);
    expect((await cached.findInForce(r, '2024-01-01'))?.bodyText).toBe('First.');
    await one.applyWrites([{ kind: 'put', version: versionOf(r, from, OPEN_END, 'Second.') }]);
    expect((await cached.findInForce(r, '2024-01-01'))?.bodyText).toBe('Second.');
  });

  it('lets exactly one of two writers holding one revision win, each on its own connection', async () => {
    const file = newFile();
    const one = new SqliteVersionStore(openLaw(file));
    const other = new SqliteVersionStore(openLaw(file));
    const h = historyOf(refOf('1-1'));
    await one.putHistory(h);
    const read = { ...h, rev: 1 };

    const results = await Promise.allSettled([
      one.putHistory({ ...read, collection: 'one' }),
      other.putHistory({ ...read, collection: 'other' }),
      other.putHistories([{ ...read, collection: 'batch' }]),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentUpdateError);
    expect((results[2] as PromiseFulfilledResult<string[]>).value).toEqual(['1-1']);
    expect((await other.getHistories('us', 'statutes', ['1-1'])).get('1-1')).toMatchObject({ rev: 2, collection: 'one' });
  });

  it('reads while another connection holds an open write transaction; a write waits, then fails as busy', async () => {
    // Prepare: a connection in the middle of a write (uncommitted), as a long ingest would hold it
    const file = newFile();
    const store = new SqliteVersionStore(openLaw(file, { busyTimeoutMs: 200 }));
    await store.putHistory(historyOf(refOf('1-1')));
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare("UPDATE law_histories SET rev = 99 WHERE key = '1-1'").run();
    try {
      // Act / Assess
      expect((await store.getHistories('us', 'statutes', ['1-1'])).get('1-1')?.rev).toBe(1);
      const started = performance.now();
      const write = store.putHistory(historyOf(refOf('1-2')));
      await expect(write).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(write).rejects.toMatchObject({ reason: 'busy', store: 'versions' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    await store.putHistory(historyOf(refOf('1-2')));
    expect((await store.getHistories('us', 'statutes', ['1-1', '1-2'])).size).toBe(2);
  });

  it('keeps every update of three processes racing on one history (each a read and a conditional write)', async () => {
    // Prepare
    const file = newFile();
    const store = new SqliteVersionStore(openLaw(file));
    await store.putHistory({ ...historyOf(refOf('1-1')), summary: { ...historyOf(refOf('1-1')).summary, versions: 0 } });
    const run = promisify(execFile);
    const times = 40;

    // Act
    const outputs = await Promise.all(
      [1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', WRITER, file, '1-1', String(times)], { cwd: ROOT })),
    );

    // Assess: 120 increments, none lost, each at its own revision
    const reports = outputs.map((o) => JSON.parse(o.stdout) as { done: number; lost: number });
    expect(reports.map((r) => r.done)).toEqual([times, times, times]);
    const final = (await store.getHistories('us', 'statutes', ['1-1'])).get('1-1');
    expect(final?.summary.versions).toBe(3 * times);
    expect(final?.rev).toBe(1 + 3 * times);
  }, 60_000);
});

describe('a file removed, replaced or damaged under the store', () => {
  it('fails as StoreUnavailableError (damaged) once its file is removed: ping and writes at once, reads soon after', async () => {
    // Prepare
    const file = newFile();
    const store = new SqliteVersionStore(openLaw(file));
    const r = refOf('1-1');
    await store.applyWrites([{ kind: 'put', version: versionOf(r, from, OPEN_END) }]);

    // Act
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });

    // Assess
    await expect(store.ping()).rejects.toMatchObject({ name: 'StoreUnavailableError', reason: 'damaged' });
    await expect(store.putHistory(historyOf(r))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.applyWrites([{ kind: 'delete', ref: r, validFrom: from }])).rejects.toThrow(/was removed/);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(store.findInForce(r, '2024-01-01')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('fails when another file is put in its place, or it is truncated', async () => {
    const file = newFile();
    const store = new SqliteVersionStore(openLaw(file));
    await store.putHistory(historyOf(refOf('1-1')));
    const replacement = newFile();
    openLaw(replacement).close();
    renameSync(replacement, file);
    await expect(store.ping()).rejects.toThrow(/was replaced/);

    const second = newFile();
    const other = new SqliteVersionStore(openLaw(second));
    await other.putHistory(historyOf(refOf('1-1')));
    opened.at(-1)?.close(); // the checkpoint at close fills the file; the next connection truncates it under itself
    const third = new SqliteVersionStore(openLaw(second));
    truncateSync(second, 0);
    await expect(third.putHistory(historyOf(refOf('1-2')))).rejects.toThrow(/was truncated/);
  });

  it('refuses to open a file that is not a database, and answers a damaged table as StoreUnavailableError', async () => {
    // A file of another kind
    const notADatabase = newFile();
    writeFileSync(notADatabase, 'x'.repeat(8_192));
    expect(() => openLaw(notADatabase)).toThrow(StoreUnavailableError);

    // A database whose versions table's pages were overwritten (the header and the schema left whole)
    const file = newFile();
    const db = openLaw(file);
    const store = new SqliteVersionStore(db);
    const r = refOf('1-1');
    await store.applyWrites(
      Array.from({ length: 50 }, (_, i) => ({ kind: 'put', version: versionOf(refOf(`1-${i}`), from, OPEN_END, bodyOf(3_000)) })),
    );
    db.close(); // checkpoints the WAL into the file
    const raw = new Database(file, { readonly: true });
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    const root = raw.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_law_versions_1'").pluck().get() as number;
    raw.close();
    const handle = await openFile(file, 'r+');
    await handle.write(Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
    await handle.close();

    const damaged = new SqliteVersionStore(openLaw(file));
    await expect(damaged.findInForce(r, '2024-01-01')).rejects.toMatchObject({ name: 'StoreUnavailableError', reason: 'damaged' });
  });
});

// ---- the upgrade of an old data dir ------------------------------------------------------------------------------

describe('importing the DynamoDB tables of an old data dir', () => {
  const dynamo = useDynaliteTables('sqlite-import');

  /** Every item of a table, a scan page at a time, as the upgrade reads them. */
  async function scanPages(table: string): Promise<Record<string, unknown>[][]> {
    const pages: Record<string, unknown>[][] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await dynamo.doc.send(new ScanCommand({ TableName: table, Limit: 7, ...(start && { ExclusiveStartKey: start }) }));
      pages.push(out.Items ?? []);
      start = out.LastEvaluatedKey;
    } while (start);
    return pages;
  }

  /** Every row of the law tables, to tell that a second import changed nothing. */
  const dump = (db: SqliteDatabase) =>
    ['law_versions', 'law_histories', 'law_editions', 'format_records', 'format_pins'].map((t) =>
      db.read(() =>
        db
          .prepare(`SELECT * FROM ${t}`)
          .all()
          .map((row) => JSON.stringify(row))
          .sort(),
      ),
    );

  it('takes the versions, histories and editions, each exactly as the DynamoDB adapter stored it', async () => {
    // Prepare: through the DynamoDB adapter, every kind of item and field it writes
    const names = await dynamo.fresh();
    const old = new DynamoVersionStore(dynamo.doc, names.versions);
    const r = refOf('1-1');
    const versions: SectionVersion[] = [
      versionOf(r, '2019-01-02T00:00:00-05:00', from, 'Line one.\nLine two — “quoted” § 7.'),
      { ...versionOf(r, from, OPEN_END), note: 'Editorial note.', status: 'repealed', topics: ['format', 'definitions'] },
      versionOf(refOf('22-404.05', 'statutes', 'dc'), '2024-03-11T00:00:00-04:00', OPEN_END, bodyOf(120_000)),
      versionOf(refOf('frap-32', 'rules'), '2024-12-01T00:00:00-05:00', OPEN_END),
    ];
    await old.applyWrites(versions.map((version) => ({ kind: 'put', version })));
    await old.applyWrites([{ kind: 'setValidTo', ref: r, validFrom: from, validTo: '2025-01-01T00:00:00-05:00' }]);
    const histories: KeyHistory[] = [
      historyOf(r),
      historyOf(refOf('22-404.05', 'statutes', 'dc')),
      bigHistoryOf(refOf('frap-32', 'rules'), 200_000),
    ];
    await old.putHistories(histories);
    await old.putHistory({
      ...histories[0]!,
      rev: 1,
      observations: [...histories[0]!.observations, { date: '2025-01-01', editionId: 'e', identity: null }],
    });
    const editions: EditionRecord[] = [
      {
        id: 'usc@2024-06-01#prefix:1-',
        collection: 'usc',
        date: '2024-06-01',
        label: 'Release point 118-70',
        temporalBasis: 'compiled-edition',
        sourceSystem: 'OLRC',
        retrievedAt: '2024-06-01T10:00:00Z',
        scope: { kind: 'prefix', prefix: '1-' },
        source: 'data/usc/xml_usc01@118-70.zip',
        sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/118/70/xml_usc01@118-70.zip',
        documents: 58,
        ingestedAt: '2024-06-01T11:00:00.000Z',
        skipped: { count: 1, sample: [{ where: '§ 9', reason: 'unreadable-identifier', detail: 'no @identifier', key: '1-9' }] },
        completeDigest: 'c0ffee'.padEnd(64, '0'),
      },
      {
        id: 'dcc@2024-03-11#keys',
        collection: 'dcc',
        date: '2024-03-11',
        label: 'DC Code as of 2024-03-11',
        temporalBasis: 'publication-date',
        sourceSystem: 'DC Council',
        retrievedAt: '2024-03-11T10:00:00Z',
        scope: { kind: 'keys', keys: ['22-404.05'] },
        source: 'dc-law-xml',
        documents: 1,
        ingestedAt: '2024-03-11T11:00:00.000Z',
      },
    ];
    for (const e of editions) await old.putEdition(e);
    const pages = await scanPages(names.versions);
    expect(pages.length).toBeGreaterThan(1);
    const db = openLaw();
    const store = new SqliteVersionStore(db);

    // Act
    const taken = pages.map((items) => importVersionItems(db, 'versions', items));

    // Assess: every field, exactly, read through each of the adapter's reads
    expect(taken.reduce((a, b) => a + b, 0)).toBe(versions.length + histories.length + editions.length);
    const scanned = await collect(store.scanVersions());
    expect(scanned).toHaveLength(versions.length);
    for (const v of await collect(old.scanVersions())) {
      expect(await store.getVersion(v.citation, v.validFrom)).toEqual(v);
      expect(scanned).toContainEqual(v);
    }
    expect(await store.getVersion(r, from)).toEqual({ ...versions[1], validTo: '2025-01-01T00:00:00-05:00' });
    expect(await store.listVersions(r)).toEqual(await old.listVersions(r));
    expect(await store.findInForce(r, '2024-06-01')).toEqual(await old.findInForce(r, '2024-06-01'));
    for (const corpus of ['statutes', 'rules'] as const) {
      for (const j of ['us', 'dc']) {
        const keys = histories.map((h) => h.key);
        expect(await store.getHistories(j, corpus, keys)).toEqual(await old.getHistories(j, corpus, keys));
      }
    }
    expect((await store.getHistories('us', 'statutes', ['1-1'])).get('1-1')?.rev).toBe(2);
    expect(await store.nearbyKeySummaries('us', 'statutes', '1-0', 3)).toEqual(await old.nearbyKeySummaries('us', 'statutes', '1-0', 3));
    for (const c of ['usc', 'dcc', 'frap']) expect(await store.listEditions(c)).toEqual(await old.listEditions(c));
    expect(await store.listEditions('usc')).toEqual([editions[0]]);
    // Idempotent: a second import of the same pages changes nothing
    const before = dump(db);
    expect(pages.map((items) => importVersionItems(db, 'versions', items))).toEqual(taken);
    expect(dump(db)).toEqual(before);

    // The store goes on from the imported revision
    await expect(store.putHistory({ ...histories[1]!, rev: 0 })).rejects.toBeInstanceOf(ConcurrentUpdateError);
    await store.putHistory({ ...histories[1]!, rev: 1 });
    expect((await store.getHistories('dc', 'statutes', ['22-404.05'])).get('22-404.05')?.rev).toBe(2);
  });

  it('ignores what is not its own: other tables, other kinds of item, items whose keys do not match their fields', async () => {
    const db = openLaw();
    const version = versionOf(refOf('1-1'), from, OPEN_END);
    const item = { pk: 'us#statutes#1-1', sk: from, itemKind: 'version', ...version };
    expect(importVersionItems(db, 'ops', [item])).toBe(0);
    expect(importVersionItems(db, 'accounts', [item])).toBe(0);
    expect(
      importVersionItems(db, 'versions', [
        { pk: 'ping', sk: 'ping' },
        { ...item, itemKind: 'other' },
        { ...item, pk: 'us#statutes#1-2' },
        { ...item, sk: '2020-01-02T00:00:00-05:00' },
        { pk: 'hist#us#statutes', sk: '1-2', itemKind: 'history', ...historyOf(refOf('1-1')), rev: 1 },
        { pk: 'edition#usc', sk: 'x', itemKind: 'edition', collection: 'usc', date: '2024-06-01', id: 'y' },
      ]),
    ).toBe(0);
    expect(await collect(new SqliteVersionStore(db).scanVersions())).toEqual([]);
    expect(importVersionItems(db, 'versions', [item])).toBe(1);
    expect(await new SqliteVersionStore(db).getVersion(version.citation, from)).toEqual(version);
  });

  it('takes the format records of the ops table (not the ops store’s items), their pins answered as before', async () => {
    // Prepare: records through the DynamoDB adapter (one replaced, one deleted), and ops items beside them
    const names = await dynamo.fresh();
    const oldFormats = new DynamoFormatStore(dynamo.doc, names.ops);
    const ops = new DynamoOpsStore(dynamo.doc, names.ops);
    const nd = BUNDLED_RECORD_FILES.find((f) => f.file === 'nd-2026-03-07.json')!.content as StoredFormatRecord['record'];
    const stored = (id: string, loadedAt: string, rules = nd.rules): StoredFormatRecord => ({
      record: { ...nd, id, rules },
      file: `${id}.json`,
      digest: `digest of ${id}`,
      loadedAt,
      pinned: { [nd.rules[0]!.key]: { validFrom: '2026-03-07T00:00:00-06:00', sourceUrl: 'https://ndcourts.gov/', versionLabel: '2026' } },
    });
    const extra = { ...nd.rules[0]!, key: 'ndrappp-999', pin: `sha256:${'0'.repeat(64)}` };
    await oldFormats.putRecord(stored('a', '2026-01-01T00:00:00.000Z', [...nd.rules, extra]));
    await oldFormats.putRecord(stored('b', '2026-01-01T00:00:00.000Z'));
    await oldFormats.putRecord(stored('a', '2026-02-01T00:00:00.000Z'));
    await oldFormats.putRecord(stored('gone', '2026-01-01T00:00:00.000Z'));
    await oldFormats.deleteRecord('gone');
    await ops.putMarker('last-ingest', 'x');
    await ops.putHealthVerdict({ checkedAt: '2026-01-01T00:00:00.000Z' } as never);
    const pages = await scanPages(names.ops);
    const db = openLaw();
    const formats = new SqliteFormatStore(db);

    // Act
    const taken = pages.reduce((n, items) => n + importFormatItems(db, 'ops', items), 0);

    // Assess
    expect(taken).toBe(2);
    expect(await formats.listRecords()).toEqual(await oldFormats.listRecords());
    const rows = [...pinnedRowsOf(nd), pinnedRow({ jurisdiction: 'nd', corpus: 'rules', key: 'ndrappp-999' }, extra.pin), 'nd#rules#x#y'];
    for (const row of rows) expect(await formats.isPinned(row)).toBe(await oldFormats.isPinned(row));
    expect(await formats.isPinned(rows[0]!)).toBe(true);
    const before = dump(db);
    expect(pages.reduce((n, items) => n + importFormatItems(db, 'ops', items), 0)).toBe(2);
    expect(dump(db)).toEqual(before);
    expect(pages.reduce((n, items) => n + importFormatItems(db, 'versions', items), 0)).toBe(0);
    expect(pages.reduce((n, items) => n + importVersionItems(db, 'ops', items), 0)).toBe(0);
  });
});

describe('SQLite format store', () => {
  it('keeps a record and its pins together: a put that fails writes neither', async () => {
    const db = openLaw();
    const formats = new SqliteFormatStore(db);
    const nd = BUNDLED_RECORD_FILES.find((f) => f.file === 'nd-2026-03-07.json')!.content as StoredFormatRecord['record'];
    const broken = {
      record: { ...nd, id: 'broken' },
      file: 'x',
      digest: 'd',
      loadedAt: 'now',
      pinned: {},
      bad: 1n,
    } as unknown as StoredFormatRecord;
    await expect(formats.putRecord(broken)).rejects.toThrow();
    expect(await formats.listRecords()).toEqual([]);
    for (const row of pinnedRowsOf(nd)) expect(await formats.isPinned(row)).toBe(false);
  });
});
