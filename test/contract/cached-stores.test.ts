/**
 * The caching adapters (functions/stores/cache/) are adapters of the same ports: they pass the same contract suites
 * on the real embedded stores, and a cached answer is always the answer the store itself would give at that moment:
 * after writes by this client or any other, during a write, and once the store is gone.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_END, type SectionRef, type SectionVersion } from '#law/model.ts';
import type { StoreWrite } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { CachingAccountStore } from '#stores/cache/account-store.ts';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { CachingSearchIndex } from '#stores/cache/search-index.ts';
import { CachingVersionStore } from '#stores/cache/version-store.ts';
import { ACCOUNT_SCHEMA, SqliteAccountStore } from '#stores/sqlite/account-store.ts';
import { SqliteDatabase } from '#stores/sqlite/database.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { SqliteVersionStore, VERSION_STORE_SCHEMA } from '#stores/sqlite/version-store.ts';
import { describeAccountStoreContract, keyRecord } from './account-store.contract.ts';
import { describeSearchIndexContract, searchDoc } from './search-index.contract.ts';
import { describeVersionStoreContract, refOf, versionOf } from './version-store.contract.ts';

let dir: string;
let fileCount = 0;
const opened: SqliteDatabase[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asof-cached-'));
});

afterAll(async () => {
  for (const db of opened) db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh database file and two connections to it: this process's, and another's (an `asof` command elsewhere). */
function freshFile(): { db: SqliteDatabase; other: SqliteDatabase } {
  const file = join(dir, `cached-${++fileCount}.sqlite`);
  const open = () => {
    const db = SqliteDatabase.open(file, { store: 'versions', schemas: [VERSION_STORE_SCHEMA, ACCOUNT_SCHEMA] });
    opened.push(db);
    return db;
  };
  return { db: open(), other: open() };
}

/** The SQLite adapter and the caching adapter over it, stamped by its database, on a fresh file. */
function versionStores() {
  const { db, other } = freshFile();
  const base = new SqliteVersionStore(db);
  return { db, base, cached: new CachingVersionStore(base, { stamps: db, table: 'law' }), writer: new SqliteVersionStore(other) };
}

describeVersionStoreContract('caching adapter over SQLite', async () => versionStores().cached);
describeAccountStoreContract('caching adapter over SQLite', async () => {
  const { db } = freshFile();
  return new CachingAccountStore(new SqliteAccountStore(db), { stamps: db, table: 'accounts' });
});

/** A SQLite search index on a fresh file of its own. */
const searchIndexFile = (): Promise<SqliteSearchIndex> => SqliteSearchIndex.open(join(dir, `search-${++fileCount}.sqlite`), { readers: 1 });

describe('SearchIndex contract over SQLite, through the caching adapter', () => {
  const searchTracker = new WriteTracker();
  describeSearchIndexContract('caching adapter over SQLite FTS5', {
    open: async () => {
      const base = await searchIndexFile();
      const index = new CachingSearchIndex(base, { tracker: searchTracker, table: 'search' });
      return {
        index,
        // The fixture empties the index behind the adapter's back, so it announces that write as any writer must.
        clear: () => searchTracker.around('search', () => base.workers.exec('DELETE FROM search_docs')),
        dispose: () => base.close(),
      };
    },
    openClosed: async () => {
      const closed = await searchIndexFile();
      await closed.close();
      return new CachingSearchIndex(closed, { tracker: new WriteTracker(), table: 'search' });
    },
  });
});

const puts = (...versions: SectionVersion[]): StoreWrite[] => versions.map((version) => ({ kind: 'put', version }));
const DATES = ['2019-06-01', '2020-01-01', '2020-12-31', '2021-01-01', '2021-06-30', '2021-07-01', '2022-06-01', '2030-01-01'];
const DAYS = ['2020-01-01', '2021-01-01', '2021-07-01', '2022-01-01'].map((d) => `${d}T00:00:00-05:00`);

async function answers(store: { findInForce(ref: SectionRef, date: string): Promise<SectionVersion | null> }, refs: SectionRef[]) {
  const out: Array<string | null> = [];
  for (const ref of refs) for (const date of DATES) out.push((await store.findInForce(ref, date))?.bodyText ?? null);
  return out;
}

describe('the caching version store answers as the store does', () => {
  it('serves a warm lookup from memory, and sees a write by another client at once', async () => {
    // Prepare
    const { base, cached, writer } = versionStores();
    const r = refOf('1-112b');
    await base.applyWrites(puts(versionOf(r, DAYS[0]!, OPEN_END, 'first text')));
    expect((await cached.findInForce(r, '2024-01-01'))?.bodyText).toBe('first text');

    // Act: the other client ends the first version and adds a second
    await writer.applyWrites([
      { kind: 'setValidTo', ref: r, validFrom: DAYS[0]!, validTo: DAYS[2]! },
      { kind: 'put', version: versionOf(r, DAYS[2]!, OPEN_END, 'second text') },
    ]);

    // Assess
    expect((await cached.findInForce(r, '2024-01-01'))?.bodyText).toBe('second text');
    expect((await cached.findInForce(r, '2020-06-01'))?.bodyText).toBe('first text');
    expect((await cached.listVersions(r)).map((v) => v.validTo)).toEqual([DAYS[2], OPEN_END]);
  });

  it('costs no store call for a warm key (one listing and one point read when cold)', async () => {
    const { db } = freshFile();
    const base = new SqliteVersionStore(db);
    const sent: string[] = [];
    // The store's reads, each recorded as it is asked.
    const recording = new Proxy(base, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          sent.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const cached = new CachingVersionStore(recording, { stamps: db, table: 'law' });
    const r = refOf('1-1');
    await base.applyWrites(puts(versionOf(r, DAYS[0]!, OPEN_END)));

    sent.length = 0;
    await cached.findInForce(r, '2024-01-01');
    const cold = [...sent];
    sent.length = 0;
    await cached.findInForce(r, '2023-01-01');
    await cached.findInForce(r, '2019-01-01');
    await cached.listVersions(r);
    const warm = [...sent];

    expect(cold).toEqual(['listVersions', 'getVersion']);
    expect(warm).toEqual([]);
  });

  it('matches the store after every write of a random sequence, by this client or another (property)', async () => {
    const refs = [refOf('1-1'), refOf('1-2')];
    const write = fc.record({
      ref: fc.nat(1),
      day: fc.nat(DAYS.length - 1),
      kind: fc.constantFrom('put' as const, 'setValidTo' as const, 'delete' as const),
      text: fc.constantFrom('alpha', 'beta', 'gamma'),
      end: fc.nat(DAYS.length),
      byOther: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 12 }), async (steps) => {
        const { base, cached, writer } = versionStores();
        for (const s of steps) {
          const ref = refs[s.ref]!;
          const from = DAYS[s.day]!;
          const to = DAYS.slice(s.day + 1)[s.end] ?? OPEN_END;
          const w: StoreWrite =
            s.kind === 'put'
              ? { kind: 'put', version: versionOf(ref, from, to, `${s.text} ${s.day}`) }
              : s.kind === 'setValidTo'
                ? { kind: 'setValidTo', ref, validFrom: from, validTo: to }
                : { kind: 'delete', ref, validFrom: from };
          await cached.findInForce(ref, DATES[s.day]!); // warm the cache before each write
          await (s.byOther ? writer : base).applyWrites([w]).catch(() => undefined); // setValidTo of a missing item may fail
          expect(await answers(cached, refs)).toEqual(await answers(base, refs));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('answers reads that race a write with either the state before it or the state after it', async () => {
    const { base, cached, writer } = versionStores();
    const r = refOf('1-3');
    await base.applyWrites(puts(versionOf(r, DAYS[0]!, OPEN_END, 'before')));
    await cached.findInForce(r, '2024-01-01');

    const reads = Array.from({ length: 40 }, (_, i) =>
      new Promise((done) => setTimeout(done, i % 8)).then(() => cached.findInForce(r, '2024-01-01')),
    );
    const written = writer.applyWrites([{ kind: 'put', version: versionOf(r, DAYS[0]!, OPEN_END, 'after') }]);
    const seen = (await Promise.all([...reads, written.then(() => null)])).slice(0, -1).map((v) => (v as SectionVersion | null)?.bodyText);
    const afterwards = (await cached.findInForce(r, '2024-01-01'))?.bodyText;

    for (const text of seen) expect(['before', 'after']).toContain(text);
    expect(afterwards).toBe('after');
  });
});

describe('the caching account store', () => {
  it('sees a key created or revoked by another client at the very next read', async () => {
    const { db, other } = freshFile();
    const cached = new CachingAccountStore(new SqliteAccountStore(db), { stamps: db, table: 'accounts' });
    const writer = new SqliteAccountStore(other);
    const k = keyRecord('key_x');
    expect(await cached.findByHash(k.hash)).toBeNull(); // an unknown hash is remembered...

    await writer.createKey(k);
    const created = await cached.findByHash(k.hash); // ...until the table changes
    await writer.revoke(k.id, '2026-11-22T00:00:00.000Z');
    const revoked = await cached.findByHash(k.hash);

    expect(created?.revokedAt).toBeNull();
    expect(revoked?.revokedAt).toBe('2026-11-22T00:00:00.000Z');
  });
});

describe('once the store is closed', () => {
  it('no cached answer survives: reads fail as the store does', async () => {
    const { db } = freshFile();
    const cached = new CachingVersionStore(new SqliteVersionStore(db), { stamps: db, table: 'law' });
    const accounts = new CachingAccountStore(new SqliteAccountStore(db), { stamps: db, table: 'accounts' });
    const r = refOf('1-1');
    await cached.applyWrites(puts(versionOf(r, DAYS[0]!, OPEN_END)));
    expect(await cached.findInForce(r, '2024-01-01')).not.toBeNull();
    expect(await accounts.findByHash('0'.repeat(64))).toBeNull();

    db.close();

    await expect(cached.findInForce(r, '2024-01-01')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(cached.carries('us')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(accounts.findByHash('0'.repeat(64))).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('the caching search index', () => {
  it('keeps a result until its own write changes the index', async () => {
    const base = await searchIndexFile();
    const t = new WriteTracker();
    const index = new CachingSearchIndex(base, { tracker: t, table: 'search' });
    const q = { q: 'strangulation', jurisdictions: null, corpus: null, asOf: '2024-06-01', limit: 10 };
    await index.upsert([searchDoc({ key: '22-404.05', body: 'Strangulation is a felony.' })]);

    const first = await index.search(q);
    await base.workers.exec('DELETE FROM search_docs'); // unannounced, on the file's writer: the cache may not notice...
    const cachedAnswer = await index.search(q);
    const behind = await base.search(q);
    await index.upsert([searchDoc({ key: '22-404.06', body: 'Strangulation of a minor.' })]); // ...an announced write ends it
    const fresh = await index.search(q);
    const uncached = await base.search(q);
    await base.close();

    expect(first.map((h) => h.citation.key)).toEqual(['22-404.05']);
    expect(behind).toEqual([]);
    expect(cachedAnswer).toBe(first);
    expect(fresh.map((h) => h.citation.key)).toEqual(['22-404.06']);
    expect(uncached).toEqual(fresh);
  });
});
