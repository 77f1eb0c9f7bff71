import { beforeEach, describe, expect, it } from 'vitest';
import type { Observation } from '#law/history.ts';
import { type Corpus, OPEN_END, type SectionRef, type SectionVersion, summarize } from '#law/model.ts';
import type { EditionRecord, KeyHistory, StoreWrite, VersionStore } from '#law/ports.ts';
import { localMidnight } from '#shared/dates.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';
import { contentHash } from '#shared/hash.ts';

// ---- factories ------------------------------------------------------------------------------------------------

const NY = 'America/New_York';

export const refOf = (key: string, corpus: Corpus = 'statutes', jurisdiction = 'us'): SectionRef => ({ jurisdiction, corpus, key });

/** Law-like text of about `chars` characters (ASCII, so as many UTF-8 bytes). */
export function bodyOf(chars: number, seed = 'section'): string {
  const sentence = `(a) In this ${seed}, the term "person" includes a corporation, company, association, firm, partnership, or society. `;
  return sentence
    .repeat(Math.ceil(chars / sentence.length))
    .slice(0, chars)
    .trim();
}

export function versionOf(
  ref: SectionRef,
  validFrom: string,
  validTo: string,
  bodyText = `Text of ${ref.key} from ${validFrom}.`,
): SectionVersion {
  const [title = ref.key, section = ref.key] = ref.key.split('-');
  return {
    citation: { ...ref, display: `${title} U.S.C. § ${section}`, parts: { title, section } },
    catchline: `Heading of ${ref.key}`,
    bodyText,
    historyNote: `(July 30, 1947, ch. 388, 61 Stat. 633; amended ${validFrom.slice(0, 4)}.)`,
    note: null,
    status: 'active',
    validFrom,
    validTo,
    ingestedAt: '2024-06-01T12:00:00.000Z',
    temporalBasis: 'compiled-edition',
    provenance: {
      sourceUrl: `https://uscode.house.gov/view.xhtml?req=${encodeURIComponent(ref.key)}`,
      retrievedAt: '2024-06-01T00:00:00Z',
      contentHash: contentHash(bodyText),
      sourceSystem: 'OLRC United States Code (USLM XML release points)',
      versionLabel: `Release point ${validFrom.slice(0, 10)}`,
    },
  };
}

export function historyOf(
  ref: SectionRef,
  observations: Observation[] = [{ date: '2024-01-01', editionId: 'usc@2024-01-01#prefix:1-', identity: 'a1' }],
  rev = 0,
): KeyHistory {
  return {
    ...ref,
    collection: 'usc',
    observations,
    rev,
    summary: {
      versions: 1,
      firstValidFrom: `${observations[0]?.date ?? '2024-01-01'}T00:00:00-05:00`,
      latestVersionLabel: 'Release point 118-50',
      lastRetrievedAt: '2024-06-01T00:00:00Z',
    },
  };
}

/** A history whose observations fill about `bytes` bytes: one per day, long edition ids. */
export function bigHistoryOf(ref: SectionRef, bytes: number): KeyHistory {
  const observations: Observation[] = [];
  const pad = 'x'.repeat(120);
  for (let i = 0, size = 0; size < bytes; i++) {
    const date = new Date(Date.UTC(1900, 0, 1 + i)).toISOString().slice(0, 10);
    const o = { date, editionId: `usc@${date}#prefix:${ref.key}-${pad}`, identity: i % 2 ? 'a1' : 'b2' };
    observations.push(o);
    size += 180;
  }
  return historyOf(ref, observations);
}

const edition = (collection: string, date: string, documents = 0): EditionRecord => ({
  id: `${collection}@${date}#prefix:1-`,
  collection,
  date,
  label: `Release point ${date}`,
  temporalBasis: 'compiled-edition',
  sourceSystem: 'OLRC United States Code (USLM XML release points)',
  retrievedAt: `${date}T10:00:00Z`,
  scope: { kind: 'prefix', prefix: '1-' },
  source: `data/usc/${date}.xml`,
  documents,
  ingestedAt: `${date}T11:00:00.000Z`,
});

const puts = (...versions: SectionVersion[]): StoreWrite[] => versions.map((version) => ({ kind: 'put', version }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const stored = (h: KeyHistory, rev = h.rev + 1): KeyHistory => ({ ...h, rev });

// ---- the suite ------------------------------------------------------------------------------------------------

/** Every VersionStore adapter must pass this; `factory` returns a store over fresh, empty storage. */
export function describeVersionStoreContract(name: string, factory: () => Promise<VersionStore>): void {
  describe(`VersionStore contract: ${name}`, () => {
    let store: VersionStore;
    beforeEach(async () => {
      store = await factory();
    });

    describe('findInForce', () => {
      it('answers the version whose [validFrom, validTo) local dates contain the date, and nothing before, between or after', async () => {
        // Prepare: two adjacent versions, a gap (the section was absent), then an open version
        const r = refOf('1-112b');
        const v1 = versionOf(r, '2020-01-01T00:00:00-05:00', '2021-07-01T00:00:00-04:00');
        const v2 = versionOf(r, '2021-07-01T00:00:00-04:00', '2022-01-03T00:00:00-05:00');
        const v3 = versionOf(r, '2023-03-15T00:00:00-04:00', OPEN_END);
        await store.applyWrites(puts(v1, v2, v3));

        // Act
        const on = async (date: string) => (await store.findInForce(r, date))?.validFrom ?? null;

        // Assess
        expect(await on('2019-12-31')).toBeNull(); // before the first version
        expect(await on('2020-01-01')).toBe(v1.validFrom); // validFrom's day is in force
        expect(await on('2021-06-30')).toBe(v1.validFrom);
        expect(await on('2021-07-01')).toBe(v2.validFrom); // validTo's day is not (the next one is)
        expect(await on('2022-01-02')).toBe(v2.validFrom);
        expect(await on('2022-01-03')).toBeNull(); // the gap
        expect(await on('2023-03-14')).toBeNull();
        expect(await on('2023-03-15')).toBe(v3.validFrom);
        expect(await on('2099-12-31')).toBe(v3.validFrom); // open end 9999-12-31T23:59:59Z
        expect(await on('9999-12-30')).toBe(v3.validFrom);
      });

      it('compares local dates across DST offsets (-05:00 and -04:00) on one key', async () => {
        // Prepare: midnights on both sides of the 2024 changes in New York, as the ingest writes them
        const r = refOf('22-404.05', 'statutes', 'dc');
        const march10 = localMidnight('2024-03-10', NY); // still -05:00: the change is at 02:00
        const march11 = localMidnight('2024-03-11', NY); // -04:00
        const nov4 = localMidnight('2024-11-04', NY); // -05:00 again
        expect([march10, march11, nov4]).toEqual(['2024-03-10T00:00:00-05:00', '2024-03-11T00:00:00-04:00', '2024-11-04T00:00:00-05:00']);
        await store.applyWrites(puts(versionOf(r, march10, march11), versionOf(r, march11, nov4), versionOf(r, nov4, OPEN_END)));

        // Act / Assess
        expect((await store.findInForce(r, '2024-03-09'))?.validFrom).toBeUndefined();
        expect((await store.findInForce(r, '2024-03-10'))?.validFrom).toBe(march10);
        expect((await store.findInForce(r, '2024-03-11'))?.validFrom).toBe(march11);
        expect((await store.findInForce(r, '2024-11-03'))?.validFrom).toBe(march11);
        expect((await store.findInForce(r, '2024-11-04'))?.validFrom).toBe(nov4);
      });

      it('uses the local date written with the offset, not the UTC date (east of UTC)', async () => {
        // 2024-03-18T00:00:00+10:00 is 2024-03-17T14:00Z: in force from the 18th, the local date
        const r = refOf('1-1', 'statutes', 'gu');
        await store.applyWrites(puts(versionOf(r, '2024-03-18T00:00:00+10:00', '2024-04-02T00:00:00+10:00')));
        expect(await store.findInForce(r, '2024-03-17')).toBeNull();
        expect(await store.findInForce(r, '2024-03-18')).not.toBeNull();
        expect(await store.findInForce(r, '2024-04-01')).not.toBeNull();
        expect(await store.findInForce(r, '2024-04-02')).toBeNull();
      });

      it('finds only the asked key: not a key it prefixes, nor the same key in another corpus or jurisdiction', async () => {
        const from = '2020-01-01T00:00:00-05:00';
        await store.applyWrites(
          puts(
            versionOf(refOf('1-11'), from, OPEN_END),
            versionOf(refOf('1-1', 'rules'), from, OPEN_END),
            versionOf(refOf('1-1', 'statutes', 'dc'), from, OPEN_END),
          ),
        );
        expect(await store.findInForce(refOf('1-1'), '2024-01-01')).toBeNull();
        expect((await store.findInForce(refOf('1-1', 'rules'), '2024-01-01'))?.citation.corpus).toBe('rules');
      });

      it('returns the version exactly as stored (texts, note, topics, parts, provenance)', async () => {
        const v: SectionVersion = {
          ...versionOf(refOf('1-7'), '2021-01-04T00:00:00-05:00', OPEN_END, 'Line one.\nLine two — “quoted” § 7.'),
          note: 'Editorial note.',
          status: 'repealed',
          topics: ['marriage', 'definitions'],
        };
        await store.applyWrites(puts(v));
        expect(await store.findInForce(refOf('1-7'), '2024-01-01')).toEqual(v);
        const plain = versionOf(refOf('1-8'), '2021-01-04T00:00:00-05:00', OPEN_END);
        await store.applyWrites(puts(plain));
        const found = await store.findInForce(refOf('1-8'), '2024-01-01');
        expect(found).toEqual(plain);
        expect(found && 'topics' in found && found.topics !== undefined).toBe(false);
      });
    });

    describe('getVersion', () => {
      it('finds a version by its exact validFrom only', async () => {
        const r = refOf('1-1');
        const v = versionOf(r, '2024-03-11T00:00:00-04:00', OPEN_END);
        await store.applyWrites(puts(v));
        expect(await store.getVersion(r, v.validFrom)).toEqual(v);
        expect(await store.getVersion(r, '2024-03-11T04:00:00Z')).toBeNull(); // the same instant, written otherwise
        expect(await store.getVersion(r, '2024-03-12T00:00:00-04:00')).toBeNull();
        expect(await store.getVersion(refOf('1-2'), v.validFrom)).toBeNull();
      });
    });

    describe('listVersions', () => {
      it('lists every version of the key, oldest first, as summaries without texts', async () => {
        // Prepare: written newest first; bodies large enough that reading them would span pages
        const r = refOf('1-106');
        const froms = ['2019-01-02', '2020-01-02', '2021-01-04', '2022-01-03', '2023-01-03', '2024-01-02', '2024-06-03', '2024-09-03'];
        const versions = froms.map((d, i) =>
          versionOf(r, localMidnight(d, NY), froms[i + 1] ? localMidnight(froms[i + 1]!, NY) : OPEN_END, bodyOf(150_000, d)),
        );
        await store.applyWrites(puts(...[...versions].reverse()));
        await store.applyWrites(puts(versionOf(refOf('1-1061'), localMidnight('2019-01-02', NY), OPEN_END)));

        // Act
        const list = await store.listVersions(r);

        // Assess
        expect(list).toEqual(versions.map(summarize));
        for (const s of list) {
          expect(Object.keys(s).sort()).toEqual([
            'catchline',
            'citation',
            'contentHash',
            'status',
            'temporalBasis',
            'validFrom',
            'validTo',
            'versionLabel',
          ]);
        }
      });

      it('lists nothing for an unknown key', async () => {
        expect(await store.listVersions(refOf('99-1'))).toEqual([]);
      });
    });

    describe('nearbyKeys', () => {
      const keys = ['1-101', '1-102', '1-103', '1-104', '1-105', '1-106', '1-107'];
      const storeKeys = async (list: string[], corpus: Corpus = 'statutes', jurisdiction = 'us') => {
        for (const k of list) await store.putHistory(historyOf(refOf(k, corpus, jurisdiction)));
      };

      it('takes the nearest keys on both sides, in key order, without the key itself', async () => {
        await storeKeys(keys);
        expect(await store.nearbyKeys('us', 'statutes', '1-104', 4)).toEqual(['1-102', '1-103', '1-105', '1-106']);
        const three = await store.nearbyKeys('us', 'statutes', '1-104', 3);
        expect(three).toHaveLength(3);
        expect(three).toEqual(expect.arrayContaining(['1-103', '1-105']));
        expect(three).not.toContain('1-104');
      });

      it('fills from the other side at either end, and handles a key that is not stored', async () => {
        await storeKeys(keys);
        expect(await store.nearbyKeys('us', 'statutes', '1-101', 3)).toEqual(['1-102', '1-103', '1-104']);
        expect(await store.nearbyKeys('us', 'statutes', '1-107', 2)).toEqual(['1-105', '1-106']);
        expect(await store.nearbyKeys('us', 'statutes', '1-1035', 4)).toEqual(['1-102', '1-103', '1-104', '1-105']);
        expect(await store.nearbyKeys('us', 'statutes', '1-104', 50)).toEqual(keys.filter((k) => k !== '1-104'));
        expect(await store.nearbyKeys('us', 'statutes', '1-104', 0)).toEqual([]);
      });

      it('stays within the corpus and jurisdiction', async () => {
        await storeKeys(['1-103', '1-105']);
        await storeKeys(['1-102'], 'rules');
        await storeKeys(['1-106'], 'statutes', 'dc');
        expect(await store.nearbyKeys('us', 'statutes', '1-104', 5)).toEqual(['1-103', '1-105']);
        expect(await store.nearbyKeys('us', 'regulations', '1-104', 5)).toEqual([]);
      });

      it('returns `limit` keys even when the histories are large', async () => {
        const big = ['1-201', '1-202', '1-203', '1-204', '1-205', '1-206'];
        for (const k of big) await store.putHistory(bigHistoryOf(refOf(k), 300_000));
        expect(await store.nearbyKeys('us', 'statutes', '1-200', 5)).toEqual(big.slice(0, 5));
        expect(await store.nearbyKeys('us', 'statutes', '1-207', 5)).toEqual(big.slice(1));
      });

      it('nearbyKeySummaries gives the same keys in the same order, each with its history summary', async () => {
        await storeKeys(keys);
        await store.putHistory({ ...historyOf(refOf('1-108')), summary: { ...historyOf(refOf('1-108')).summary, versions: 3 } });
        for (const [key, limit] of [
          ['1-104', 4],
          ['1-101', 3],
          ['1-1035', 4],
          ['1-108', 2],
          ['1-104', 0],
        ] as const) {
          const near = await store.nearbyKeySummaries('us', 'statutes', key, limit);
          expect(near.map((n) => n.key)).toEqual(await store.nearbyKeys('us', 'statutes', key, limit));
        }
        expect(await store.nearbyKeySummaries('us', 'statutes', '1-108', 2)).toEqual([
          { key: '1-106', summary: historyOf(refOf('1-106')).summary },
          { key: '1-107', summary: historyOf(refOf('1-107')).summary },
        ]);
        const [last] = await store.nearbyKeySummaries('us', 'statutes', '1-109', 1);
        expect(last).toEqual({ key: '1-108', summary: { ...historyOf(refOf('1-108')).summary, versions: 3 } });
        expect(await store.nearbyKeySummaries('us', 'regulations', '1-104', 5)).toEqual([]);
      });
    });

    describe('getSummaries', () => {
      it('reads versions by their exact validFrom, without texts, in the order asked; null where none is stored', async () => {
        const first = versionOf(refOf('1-101'), '2013-07-26T00:00:00-04:00', '2021-06-18T00:00:00-04:00');
        const second = versionOf(refOf('1-101'), '2021-06-18T00:00:00-04:00', OPEN_END);
        const other = versionOf(refOf('1-102'), '2013-07-26T00:00:00-04:00', OPEN_END);
        await store.applyWrites([first, second, other].map((version) => ({ kind: 'put', version }) as const));
        const read = await store.getSummaries([
          { ref: refOf('1-102'), validFrom: other.validFrom },
          { ref: refOf('1-101'), validFrom: second.validFrom },
          { ref: refOf('1-101'), validFrom: '2013-07-27T00:00:00-04:00' },
          { ref: refOf('9-1'), validFrom: other.validFrom },
          { ref: refOf('1-101', 'rules'), validFrom: first.validFrom },
          { ref: refOf('1-101'), validFrom: second.validFrom },
        ]);
        expect(read).toEqual([summarize(other), summarize(second), null, null, null, summarize(second)]);
        expect(JSON.stringify(read)).not.toContain(second.bodyText);
        expect(await store.getSummaries([])).toEqual([]);
      });
    });

    describe('carries', () => {
      it('tells whether a jurisdiction holds keys of one corpus, or of any', async () => {
        expect(await store.carries('us')).toBe(false);
        const r = refOf('frap-32', 'rules');
        await store.applyWrites(puts(versionOf(r, '2016-12-01T00:00:00-05:00', OPEN_END)));
        await store.putHistory(historyOf(r));

        expect(await store.carries('us', 'rules')).toBe(true);
        expect(await store.carries('us')).toBe(true);
        expect(await store.carries('us', 'statutes')).toBe(false);
        expect(await store.carries('dc')).toBe(false);
        expect(await store.carries('u')).toBe(false);
        expect(await store.carries('dc', 'rules')).toBe(false);
      });
    });

    describe('putHistory', () => {
      it('stores a new history at revision 1 and each update at the next revision', async () => {
        const h = historyOf(refOf('1-1'));
        await store.putHistory(h);
        expect((await store.getHistories('us', 'statutes', ['1-1'])).get('1-1')).toEqual(stored(h));

        const next = {
          ...stored(h),
          observations: [...h.observations, { date: '2024-06-01', editionId: 'usc@2024-06-01#prefix:1-', identity: null }],
        };
        await store.putHistory(next);
        expect((await store.getHistories('us', 'statutes', ['1-1'])).get('1-1')).toEqual(stored(next));
      });

      it('rejects a writer holding a stale revision with ConcurrentUpdateError, keeping the winner', async () => {
        // Prepare: two writers both read revision 1
        const h = historyOf(refOf('1-1'));
        await store.putHistory(h);
        const read = stored(h);
        const winner = { ...read, summary: { ...read.summary, latestVersionLabel: 'winner' } };
        const loser = { ...read, summary: { ...read.summary, latestVersionLabel: 'loser' } };

        // Act
        await store.putHistory(winner);
        const late = store.putHistory(loser);

        // Assess
        await expect(late).rejects.toBeInstanceOf(ConcurrentUpdateError);
        expect((await store.getHistories('us', 'statutes', ['1-1'])).get('1-1')).toEqual(stored(winner));
        await expect(store.putHistory(h)).rejects.toBeInstanceOf(ConcurrentUpdateError); // a second "new" history
      });

      it('lets exactly one of several concurrent writers of one revision win', async () => {
        const h = historyOf(refOf('1-1'));
        const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => store.putHistory({ ...h, collection: `c${i}` })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrentUpdateError);
      });

      it('rejects an update of a history that was never stored', async () => {
        await expect(store.putHistory(historyOf(refOf('1-1'), undefined, 3))).rejects.toBeInstanceOf(ConcurrentUpdateError);
        expect((await store.getHistories('us', 'statutes', ['1-1'])).size).toBe(0);
      });
    });

    describe('putHistories', () => {
      it('stores many histories (over 100, some large, new and updated) each at its next revision', async () => {
        // Prepare: 30 keys stored once, then 250 histories: those 30 updated, 220 new, 20 of them of 300 KB
        const keys = Array.from({ length: 250 }, (_, i) => `1-${1000 + i}`);
        const updated = keys.slice(0, 30);
        for (const k of updated) await store.putHistory(historyOf(refOf(k)));
        const histories = keys.map((k, i) => {
          if (updated.includes(k)) return { ...stored(historyOf(refOf(k))), summary: { ...historyOf(refOf(k)).summary, versions: 7 } };
          return i % 11 === 0 ? bigHistoryOf(refOf(k), 300_000) : historyOf(refOf(k));
        });

        // Act
        const lost = await store.putHistories(histories);

        // Assess
        expect(lost).toEqual([]);
        const found = await store.getHistories('us', 'statutes', keys);
        expect(found.size).toBe(250);
        for (const h of histories) expect(found.get(h.key)).toEqual(stored(h));
        expect(found.get(updated[0]!)?.rev).toBe(2);
      });

      it('returns the keys whose stored revision moved, writing nothing of theirs and everything else', async () => {
        // Prepare: 1-1 moved on to revision 2 since it was read at 1; 1-2 stored by another writer since it was read as new
        const read = stored(historyOf(refOf('1-1')));
        await store.putHistory(historyOf(refOf('1-1')));
        const winner = { ...read, summary: { ...read.summary, latestVersionLabel: 'winner' } };
        await store.putHistory(winner);
        await store.putHistory({ ...historyOf(refOf('1-2')), collection: 'other' });
        const fresh = ['1-3', '1-4', '1-5'].map((k) => historyOf(refOf(k)));

        // Act
        const lost = await store.putHistories([
          fresh[0]!,
          { ...read, summary: { ...read.summary, latestVersionLabel: 'loser' } },
          fresh[1]!,
          historyOf(refOf('1-2')),
          fresh[2]!,
        ]);

        // Assess
        expect(lost.sort()).toEqual(['1-1', '1-2']);
        const found = await store.getHistories('us', 'statutes', ['1-1', '1-2', '1-3', '1-4', '1-5']);
        expect(found.get('1-1')).toEqual(stored(winner));
        expect(found.get('1-2')?.collection).toBe('other');
        for (const h of fresh) expect(found.get(h.key)).toEqual(stored(h));
      });

      it('lets exactly one of several concurrent batches holding one revision win', async () => {
        const h = historyOf(refOf('1-1'));
        const others = (i: number) => [historyOf(refOf(`2-${i}`)), { ...h, collection: `c${i}` }];
        const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store.putHistories(others(i))));
        expect(results.filter((lost) => lost.length === 0)).toHaveLength(1);
        for (const lost of results) expect(lost.length === 0 || (lost.length === 1 && lost[0] === '1-1')).toBe(true);
        expect((await store.getHistories('us', 'statutes', ['2-0', '2-1', '2-2', '2-3', '2-4'])).size).toBe(5);
      });

      it('refuses a history over the item limit by name, writing nothing of the call', async () => {
        const histories = [historyOf(refOf('1-1')), bigHistoryOf(refOf('1-2'), 500_000)];
        await expect(store.putHistories(histories)).rejects.toThrow(/1-2 is \d+ bytes stored, over DynamoDB's 400 KB/);
        expect((await store.getHistories('us', 'statutes', ['1-1', '1-2'])).size).toBe(0);
      });
    });

    describe('getHistories', () => {
      it('returns the stored histories of many keys (over 100, some large), skipping missing and repeated keys', async () => {
        // Prepare
        const keys = Array.from({ length: 230 }, (_, i) => `1-${1000 + i}`);
        // Five ~300 KB histories in one 100-key request: more than one response holds, so some come back unprocessed
        const large = ['1-1001', '1-1010', '1-1020', '1-1030', '1-1040'];
        for (const k of keys) await store.putHistory(large.includes(k) ? bigHistoryOf(refOf(k), 300_000) : historyOf(refOf(k)));
        await store.putHistory(historyOf(refOf('1-1000', 'rules')));
        const asked = [...keys, '1-9998', '1-9999', ...keys.slice(0, 10)];

        // Act
        const found = await store.getHistories('us', 'statutes', asked);

        // Assess
        expect([...found.keys()].sort()).toEqual([...keys].sort());
        expect(found.get('1-1030')).toEqual(stored(bigHistoryOf(refOf('1-1030'), 300_000)));
        expect(found.get('1-1000')).toEqual(stored(historyOf(refOf('1-1000'))));
      });

      it('returns an empty map for no keys or unknown keys', async () => {
        expect((await store.getHistories('us', 'statutes', [])).size).toBe(0);
        expect((await store.getHistories('us', 'statutes', ['1-1'])).size).toBe(0);
      });
    });

    describe('historiesWithPrefix', () => {
      it('yields the histories whose key starts with the prefix, within the corpus', async () => {
        for (const k of ['1-1', '1-10', '1-112b', '10-1', '2-1']) await store.putHistory(historyOf(refOf(k)));
        await store.putHistory(historyOf(refOf('1-5', 'rules')));
        const keysOf = async (prefix: string) =>
          (await collect(store.historiesWithPrefix('us', 'statutes', prefix))).map((h) => h.key).sort();

        expect(await keysOf('1-')).toEqual(['1-1', '1-10', '1-112b']);
        expect(await keysOf('1-1')).toEqual(['1-1', '1-10', '1-112b']);
        expect(await keysOf('1')).toEqual(['1-1', '1-10', '1-112b', '10-1']);
        expect(await keysOf('3-')).toEqual([]);
        expect(await keysOf('')).toEqual(['1-1', '1-10', '1-112b', '10-1', '2-1']);
      });

      it('pages through more than a response can hold', async () => {
        // 9 × ~300 KB: several pages of a 1 MB-per-page store
        const keys = Array.from({ length: 9 }, (_, i) => `5-${i + 1}`);
        for (const k of keys) await store.putHistory(bigHistoryOf(refOf(k), 300_000));
        await store.putHistory(historyOf(refOf('50-1')));

        const found = await collect(store.historiesWithPrefix('us', 'statutes', '5-'));

        expect(found.map((h) => h.key).sort()).toEqual(keys);
        expect(found.find((h) => h.key === '5-3')).toEqual(stored(bigHistoryOf(refOf('5-3'), 300_000)));
      });
    });

    describe('applyWrites', () => {
      it('writes more puts than one batch holds, with large bodies, each readable in full', async () => {
        // Prepare: 40 keys, 30 of them with ~150 KB bodies
        const versions = Array.from({ length: 40 }, (_, i) =>
          versionOf(
            refOf(`7-${100 + i}`),
            '2022-01-03T00:00:00-05:00',
            OPEN_END,
            i < 30 ? bodyOf(150_000, `seed ${i}`) : `Short section ${i}.`,
          ),
        );

        // Act
        await store.applyWrites(puts(...versions));

        // Assess
        for (const v of versions) expect(await store.findInForce(v.citation, '2023-01-01')).toEqual(v);
        expect(await collect(store.scanVersions())).toHaveLength(40);
      });

      it('ends a version with setValidTo, changing nothing else', async () => {
        const r = refOf('1-1');
        const v = versionOf(r, '2020-01-01T00:00:00-05:00', OPEN_END);
        await store.applyWrites(puts(v));

        await store.applyWrites([{ kind: 'setValidTo', ref: r, validFrom: v.validFrom, validTo: '2023-07-01T00:00:00-04:00' }]);

        expect(await store.getVersion(r, v.validFrom)).toEqual({ ...v, validTo: '2023-07-01T00:00:00-04:00' });
        expect(await store.findInForce(r, '2023-06-30')).not.toBeNull();
        expect(await store.findInForce(r, '2023-07-01')).toBeNull();
      });

      it('fails loudly on setValidTo of a version that is not stored, creating nothing', async () => {
        const r = refOf('1-1');
        const write: StoreWrite = { kind: 'setValidTo', ref: r, validFrom: '2020-01-01T00:00:00-05:00', validTo: OPEN_END };
        await expect(store.applyWrites([write])).rejects.toThrow(/1-1/);
        expect(await store.getVersion(r, write.validFrom)).toBeNull();
        expect(await collect(store.scanVersions())).toEqual([]);
      });

      it('deletes idempotently', async () => {
        const r = refOf('1-1');
        const v = versionOf(r, '2020-01-01T00:00:00-05:00', OPEN_END);
        const keep = versionOf(r, '2019-01-02T00:00:00-05:00', v.validFrom);
        await store.applyWrites(puts(v, keep));
        const del: StoreWrite = { kind: 'delete', ref: r, validFrom: v.validFrom };

        await store.applyWrites([del]);
        await store.applyWrites([del]);
        await store.applyWrites([{ kind: 'delete', ref: refOf('1-404'), validFrom: v.validFrom }]);

        expect(await store.getVersion(r, v.validFrom)).toBeNull();
        expect(await store.listVersions(r)).toEqual([summarize(keep)]);
      });

      it('applies puts, re-datings and deletes of different keys in one call', async () => {
        const [a, b, c] = [refOf('1-1'), refOf('1-2'), refOf('1-3')];
        const from = '2020-01-01T00:00:00-05:00';
        await store.applyWrites(puts(versionOf(b, from, OPEN_END), versionOf(c, from, OPEN_END)));

        await store.applyWrites([
          ...puts(versionOf(a, from, OPEN_END)),
          { kind: 'setValidTo', ref: b, validFrom: from, validTo: '2022-01-03T00:00:00-05:00' },
          { kind: 'delete', ref: c, validFrom: from },
        ]);

        expect(await store.findInForce(a, '2023-01-01')).not.toBeNull();
        expect((await store.getVersion(b, from))?.validTo).toBe('2022-01-03T00:00:00-05:00');
        expect(await store.getVersion(c, from)).toBeNull();
      });

      it('applies two writes to one item in the order given, and replaces on a repeated put', async () => {
        const r = refOf('1-1');
        const from = '2020-01-01T00:00:00-05:00';
        await store.applyWrites([...puts(versionOf(r, from, OPEN_END, 'First.'), versionOf(r, from, OPEN_END, 'Second.'))]);
        expect((await store.getVersion(r, from))?.bodyText).toBe('Second.');

        await store.applyWrites([
          ...puts(versionOf(r, from, OPEN_END, 'Third.')),
          { kind: 'setValidTo', ref: r, validFrom: from, validTo: '2021-01-04T00:00:00-05:00' },
        ]);
        expect(await store.getVersion(r, from)).toEqual(versionOf(r, from, '2021-01-04T00:00:00-05:00', 'Third.'));
      });

      it('accepts an empty list', async () => {
        await expect(store.applyWrites([])).resolves.toBeUndefined();
      });
    });

    describe('editions', () => {
      it('lists a collection’s editions by date, a re-put replacing the record', async () => {
        await store.putEdition(edition('usc', '2024-06-01'));
        await store.putEdition(edition('usc', '2023-01-03'));
        await store.putEdition(edition('dcc', '2023-06-01'));
        // The record of an ingest that completed carries its digest; it is stored and listed as given.
        const complete = { ...edition('usc', '2024-06-01', 58), completeDigest: 'c0ffee'.repeat(10).padEnd(64, '0') };
        await store.putEdition(complete);

        expect(await store.listEditions('usc')).toEqual([edition('usc', '2023-01-03'), complete]);
        expect(await store.listEditions('dcc')).toEqual([edition('dcc', '2023-06-01')]);
        expect(await store.listEditions('frap')).toEqual([]);
      });
    });

    describe('scans', () => {
      it('scanVersions yields every version and nothing else; scanHistories every history and nothing else', async () => {
        // Prepare: versions across keys, corpora and jurisdictions (~2 MB of text), histories and editions beside them
        const versions = Array.from({ length: 24 }, (_, i) => {
          // scanHistories covers the catalog's jurisdiction/corpus pairs: us/statutes, us/rules, dc/statutes, nd/rules.
          const r = i % 3 === 0 ? refOf(`3-${i}`, 'rules', i % 2 ? 'us' : 'nd') : refOf(`3-${i}`, 'statutes', i % 2 ? 'us' : 'dc');
          return versionOf(r, '2021-01-04T00:00:00-05:00', OPEN_END, bodyOf(i % 2 ? 100_000 : 500, `scan ${i}`));
        });
        const histories = versions.slice(0, 10).map((v) => historyOf(v.citation));
        await store.applyWrites(puts(...versions));
        for (const h of histories) await store.putHistory(h);
        await store.putEdition(edition('usc', '2024-06-01'));

        // Act
        const scannedVersions = await collect(store.scanVersions());
        const scannedHistories = await collect(store.scanHistories());

        // Assess
        const byId = (v: SectionVersion) => `${v.citation.jurisdiction}#${v.citation.corpus}#${v.citation.key}`;
        expect(scannedVersions.sort((a, b) => byId(a).localeCompare(byId(b)))).toEqual(
          versions.sort((a, b) => byId(a).localeCompare(byId(b))),
        );
        const hid = (h: KeyHistory) => `${h.jurisdiction}#${h.corpus}#${h.key}`;
        expect(scannedHistories.sort((a, b) => hid(a).localeCompare(hid(b)))).toEqual(
          histories.map((h) => stored(h)).sort((a, b) => hid(a).localeCompare(hid(b))),
        );
      });

      it('yields nothing from an empty store', async () => {
        expect(await collect(store.scanVersions())).toEqual([]);
        expect(await collect(store.scanHistories())).toEqual([]);
      });
    });

    it('ping resolves on a reachable store', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
