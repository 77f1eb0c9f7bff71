/**
 * The CaseLawStore contract, on the bundled real records (the Town of Greece → Marsh v. Chambers network, the
 * CourtListener API v3 opinions, the court table): every adapter runs it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseLawStore } from '#caselaw/ports.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';

const SAMPLE_CASELAW = new URL('../../data/sample/caselaw/', import.meta.url).pathname;
export const SAMPLE_CASELAW_PATHS = [
  join(SAMPLE_CASELAW, 'courtlistener-fixtures', 'court_data.json'),
  join(SAMPLE_CASELAW, 'courtlistener-fixtures', 'tog_to_marsh.json'),
  join(SAMPLE_CASELAW, 'courtlistener-api-v3'),
];

export interface CaseLawFixture {
  store: CaseLawStore;
  /** Counts of the replica's tables, to see that a re-run changed nothing. */
  counts(): Promise<Record<string, number>>;
  dispose(): Promise<void>;
}

/** Marsh v. Chambers's citing cases in CourtListener's network fixture, most cited first (ties by id). */
export const MARSH_CITED_BY = [
  111113, 111464, 112779, 111505, 112331, 117967, 111924, 112874, 118377, 136984, 112646, 799990, 799993, 2674862,
];

export function describeCaseLawStoreContract(name: string, open: () => Promise<CaseLawFixture>): void {
  describe(`CaseLawStore contract: ${name}`, () => {
    let f: CaseLawFixture;
    beforeAll(async () => {
      f = await open();
      await loadCourtListenerFiles(f.store, SAMPLE_CASELAW_PATHS);
    });
    afterAll(async () => f?.dispose());

    it('finds a cluster by each of its reporter citations, and gives it with its court and citations', async () => {
      const byForm = await f.store.clustersByCitation([
        { volume: '267', reporter: 'Ga.', page: '9' },
        { volume: '471', reporter: 'S.E.2d', page: '836' },
        { volume: '410', reporter: 'U.S.', page: '113' },
      ]);
      expect([...byForm]).toEqual([
        ['267 Ga. 9', [1296689]],
        ['471 S.E.2d 836', [1296689]],
      ]);
      const [chester] = await f.store.clusters([1296689]);
      expect(chester).toMatchObject({
        id: 1296689,
        caseName: 'Chester v. State',
        courtId: 'ga',
        dateFiled: '1996-05-06',
        courtCitationString: 'Ga.',
      });
      expect(chester!.citations).toEqual([
        { volume: '267', reporter: 'Ga.', page: '9', type: 2 },
        { volume: '471', reporter: 'S.E.2d', page: '836', type: 3 },
      ]);
    });

    it('answers nothing for ids and forms it does not hold', async () => {
      expect(await f.store.clusters([1, 2])).toEqual([]);
      expect((await f.store.clustersByCitation([{ volume: '1', reporter: 'U.S.', page: '1' }])).size).toBe(0);
      expect(await f.store.citedBy(1, 10, null)).toEqual([]);
      expect(await f.store.citedByCount(1)).toBe(0);
    });

    it('lists the cases citing a case most-cited first, with depth, in pages that continue where the last ended', async () => {
      expect(await f.store.citedByCount(111014)).toBe(14);
      const all = await f.store.citedBy(111014, 100, null);
      expect(all.map((c) => c.cluster.id)).toEqual(MARSH_CITED_BY);
      expect(all.every((c) => c.depth === 1)).toBe(true);
      const first = await f.store.citedBy(111014, 5, null);
      const last = first[first.length - 1]!.cluster;
      const rest = await f.store.citedBy(111014, 100, { citationCount: last.citationCount, id: last.id });
      expect([...first, ...rest].map((c) => c.cluster.id)).toEqual(MARSH_CITED_BY);
    });

    it('is idempotent: loading the same records again changes no count', async () => {
      const before = await f.counts();
      await loadCourtListenerFiles(f.store, SAMPLE_CASELAW_PATHS);
      expect(await f.counts()).toEqual(before);
    });

    it('keeps the newest dataAsOf: a load of older records never moves it back', async () => {
      expect(await f.store.dataAsOf()).toBe('2018-06-20');
      await f.store.setDataAsOf('2017-01-01');
      expect(await f.store.dataAsOf()).toBe('2018-06-20');
    });

    it('knows the courts a parenthetical may name', async () => {
      const courts = new Map((await f.store.courts()).map((c) => [c.id, c.citationString]));
      expect(courts.get('ca9')).toBe('9th Cir.');
      expect(courts.size).toBeGreaterThan(300);
    });
  });
}
