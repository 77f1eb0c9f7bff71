import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditFinding, AuditRun, CoverageCache, CoverageRecord, OpsStore, StoredAuditRun } from '#ops/ports.ts';

const record = (jurisdiction: string, sections: number): CoverageRecord => ({
  jurisdiction,
  corpus: 'statutes',
  name: jurisdiction === 'us' ? 'United States Code' : 'Code of the District of Columbia',
  cadenceClass: 'edition',
  temporalBasis: 'compiled-edition',
  coverageFrom: '2021-01-04',
  latestVersion: 'Release point 118-50',
  sections,
  versions: sections * 2,
  lastRetrievedAt: '2024-06-01T00:00:00Z',
  coverageTo: null,
  latestVersionDate: '2024-05-28',
  editions: [
    { label: 'Release point 117-80', date: '2021-01-04' },
    { label: 'Release point 118-50', date: '2024-05-28' },
  ],
  titles: [
    {
      title: '28',
      name: 'Judiciary and Judicial Procedure',
      coverageFrom: '2021-01-04',
      coverageTo: null,
      firstVersion: 'Release point 117-80',
      latestVersion: 'Release point 118-50',
      latestVersionDate: '2024-05-28',
      editionCount: 2,
      sections,
      versions: sections * 2,
    },
  ],
});

const coverage = (generatedAt: string): CoverageCache => ({
  records: [record('dc', 412), record('us', 58)],
  format: 2,
  generatedAt,
  refreshFailures: 0,
  lastError: null,
  lastAttemptAt: generatedAt,
  dirtySince: null,
});

const finding: AuditFinding = {
  scope: 'us/statutes/usc',
  checkName: 'gaps-explained',
  status: 'warn',
  detail: '1 problem(s): 1-112b 2022-01-03–2023-03-15',
  rows: 58,
  avgChars: 2310,
  maxChars: 40_112,
  unexplainedEmpty: 0,
  misattributed: 0,
};

const auditRun = (jurisdiction: string, ranAt: string, failed = 0): StoredAuditRun => ({
  run: { ranAt, jurisdiction, trigger: 'schedule', totalChecks: 9, passed: 8 - failed, warned: 1, failed } satisfies AuditRun,
  findings: [finding],
});

/** Every OpsStore adapter must pass this; `factory` returns a store over fresh, empty storage. */
export function describeOpsStoreContract(name: string, factory: () => Promise<OpsStore>): void {
  describe(`OpsStore contract: ${name}`, () => {
    let store: OpsStore;
    beforeEach(async () => {
      store = await factory();
    });

    describe('coverage cache', () => {
      it('is absent at first and round-trips', async () => {
        expect(await store.getCoverage()).toBeNull();
        await store.putCoverage(coverage('2024-06-01T10:00:00.000Z'));
        expect(await store.getCoverage()).toEqual(coverage('2024-06-01T10:00:00.000Z'));
        await store.putCoverage({ ...coverage('2024-06-02T10:00:00.000Z'), refreshFailures: 2, lastError: 'store unreachable' });
        expect(await store.getCoverage()).toEqual({
          ...coverage('2024-06-02T10:00:00.000Z'),
          refreshFailures: 2,
          lastError: 'store unreachable',
        });
      });

      it('keeps a dirty mark made while the numbers being stored were computed, and clears an older one', async () => {
        // Prepare: numbers computed from 10:00; an ingest completes at 10:05
        await store.putCoverage(coverage('2024-06-01T09:00:00.000Z'));
        await store.markIngestCompleted('2024-06-01T10:05:00.000Z');

        // Act: the 10:00 computation lands after the mark
        await store.putCoverage(coverage('2024-06-01T10:00:00.000Z'), '2024-06-01T10:00:00.000Z');

        // Assess: new numbers, still dirty
        expect(await store.getCoverage()).toEqual({ ...coverage('2024-06-01T10:00:00.000Z'), dirtySince: '2024-06-01T10:05:00.000Z' });
        await store.putCoverage(coverage('2024-06-01T10:10:00.000Z'), '2024-06-01T10:10:00.000Z');
        expect((await store.getCoverage())?.dirtySince).toBeNull();
      });

      it('markIngestCompleted without a cache changes nothing', async () => {
        await expect(store.markIngestCompleted('2024-06-01T11:00:00.000Z')).resolves.toBeUndefined();
        expect(await store.getCoverage()).toBeNull();
      });
    });

    describe('coverage while an ingest is under way', () => {
      it('an ingest mark keeps the cache dirty through every refresh until an ingest completes', async () => {
        // Prepare: numbers from 10:00; an ingest starts writing at 10:05
        await store.putCoverage(coverage('2024-06-01T10:00:00.000Z'));
        await store.markIngestStarted('2024-06-01T10:05:00.000Z');
        const marked = { dirtySince: '2024-06-01T10:05:00.000Z', ingestingSince: '2024-06-01T10:05:00.000Z' };

        // Act: a refresh computed from 10:10, in the middle of the ingest
        const stored = await store.putCoverage(coverage('2024-06-01T10:10:00.000Z'), '2024-06-01T10:10:00.000Z');

        // Assess: the new numbers, still marked, and what putCoverage returns is what is stored
        expect(stored).toEqual({ ...coverage('2024-06-01T10:10:00.000Z'), ...marked });
        expect(await store.getCoverage()).toEqual(stored);

        // Act: the ingest completes at 10:20; a refresh from 10:15 lands after it, then one from 10:25
        await store.markIngestCompleted('2024-06-01T10:20:00.000Z');
        const during = await store.putCoverage(coverage('2024-06-01T10:15:00.000Z'), '2024-06-01T10:15:00.000Z');
        const after = await store.putCoverage(coverage('2024-06-01T10:25:00.000Z'), '2024-06-01T10:25:00.000Z');

        // Assess
        expect(during).toEqual({ ...coverage('2024-06-01T10:15:00.000Z'), dirtySince: '2024-06-01T10:20:00.000Z' });
        expect(after).toEqual(coverage('2024-06-01T10:25:00.000Z'));
        expect(await store.getCoverage()).toEqual(coverage('2024-06-01T10:25:00.000Z'));
      });

      it('keeps the first ingest mark and an earlier dirty mark: a dead ingest is not hidden by the next start', async () => {
        await store.putCoverage(coverage('2024-06-01T10:00:00.000Z'));
        await store.markIngestCompleted('2024-06-01T10:01:00.000Z');
        await store.markIngestStarted('2024-06-01T10:05:00.000Z');
        await store.markIngestStarted('2024-06-01T10:30:00.000Z');
        expect(await store.getCoverage()).toEqual({
          ...coverage('2024-06-01T10:00:00.000Z'),
          dirtySince: '2024-06-01T10:01:00.000Z',
          ingestingSince: '2024-06-01T10:05:00.000Z',
        });
      });

      it('is marked before any numbers exist: no cache yet, and the first numbers stored are marked', async () => {
        await store.markIngestStarted('2024-06-01T10:05:00.000Z');
        expect(await store.getCoverage()).toBeNull();
        const first = await store.putCoverage(coverage('2024-06-01T10:10:00.000Z'), '2024-06-01T10:10:00.000Z');
        expect(first).toEqual({
          ...coverage('2024-06-01T10:10:00.000Z'),
          dirtySince: '2024-06-01T10:05:00.000Z',
          ingestingSince: '2024-06-01T10:05:00.000Z',
        });
      });

      it('never writes the ingest mark from the cache it is given (a cache read earlier may still carry one)', async () => {
        await store.putCoverage({ ...coverage('2024-06-01T10:00:00.000Z'), ingestingSince: '2024-06-01T09:00:00.000Z' });
        expect(await store.getCoverage()).toEqual(coverage('2024-06-01T10:00:00.000Z'));
      });
    });

    describe('audit runs', () => {
      it('keeps runs per jurisdiction: the latest with its findings, and the history newest first', async () => {
        // Prepare: stored out of order, another jurisdiction interleaved
        await store.putAuditRun(auditRun('us', '2024-06-02T03:00:00.000Z'));
        await store.putAuditRun(auditRun('us', '2024-06-03T03:00:00.000Z', 1));
        await store.putAuditRun(auditRun('dc', '2024-06-04T03:00:00.000Z'));
        await store.putAuditRun(auditRun('us', '2024-06-01T03:00:00.000Z'));

        // Act / Assess
        expect(await store.latestAuditRun('us')).toEqual(auditRun('us', '2024-06-03T03:00:00.000Z', 1));
        expect((await store.auditHistory('us', 10)).map((r) => r.ranAt)).toEqual([
          '2024-06-03T03:00:00.000Z',
          '2024-06-02T03:00:00.000Z',
          '2024-06-01T03:00:00.000Z',
        ]);
        expect(await store.auditHistory('us', 2)).toEqual([
          auditRun('us', '2024-06-03T03:00:00.000Z', 1).run,
          auditRun('us', '2024-06-02T03:00:00.000Z').run,
        ]);
        expect((await store.auditHistory('dc', 10)).map((r) => r.jurisdiction)).toEqual(['dc']);
      });

      it('orders by instant, not by how the timestamp is written', async () => {
        await store.putAuditRun(auditRun('us', '2024-06-01T03:00:00.500Z'));
        await store.putAuditRun(auditRun('us', '2024-06-01T03:00:00Z'));
        expect((await store.latestAuditRun('us'))?.run.ranAt).toBe('2024-06-01T03:00:00.500Z');
      });

      it('has nothing for a jurisdiction never audited', async () => {
        await store.putAuditRun(auditRun('us', '2024-06-01T03:00:00.000Z'));
        expect(await store.latestAuditRun('nd')).toBeNull();
        expect(await store.auditHistory('nd', 5)).toEqual([]);
        expect(await store.latestAuditRun('u')).toBeNull();
      });

      it('keeps one run per jurisdiction and time (a re-put replaces it)', async () => {
        await store.putAuditRun(auditRun('us', '2024-06-01T03:00:00.000Z'));
        await store.putAuditRun({ ...auditRun('us', '2024-06-01T03:00:00.000Z', 2), findings: [] });
        expect(await store.auditHistory('us', 10)).toHaveLength(1);
        expect(await store.latestAuditRun('us')).toEqual({ ...auditRun('us', '2024-06-01T03:00:00.000Z', 2), findings: [] });
      });

      it('pages through a long history', async () => {
        // ~60 runs with ~20 KB of findings each: more than one 1 MB page
        const detail = 'x'.repeat(20_000);
        const times = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2024, 0, 1, i)).toISOString());
        for (const t of times) await store.putAuditRun({ ...auditRun('us', t), findings: [{ ...finding, detail }] });
        const history = await store.auditHistory('us', 55);
        expect(history.map((r) => r.ranAt)).toEqual([...times].reverse().slice(0, 55));
      });
    });

    describe('health verdict', () => {
      it('is absent at first; the last one put is the one read', async () => {
        expect(await store.getHealthVerdict()).toBeNull();
        await store.putHealthVerdict({ checkedAt: '2024-06-01T10:00:00.000Z', reachable: true, detail: 'ok' });
        await store.putHealthVerdict({ checkedAt: '2024-06-01T10:05:00.000Z', reachable: false, detail: 'connect ECONNREFUSED' });
        expect(await store.getHealthVerdict()).toEqual({
          checkedAt: '2024-06-01T10:05:00.000Z',
          reachable: false,
          detail: 'connect ECONNREFUSED',
        });
      });
    });

    describe('leases', () => {
      const T0 = '2024-06-01T10:00:00.000Z';
      const T5 = '2024-06-01T10:05:00.000Z';
      const T10 = '2024-06-01T10:10:00.000Z';
      const T11 = '2024-06-01T10:11:00.000Z';
      const T20 = '2024-06-01T10:20:00.000Z';

      it('is exclusive while unexpired; the holder may renew it', async () => {
        expect(await store.acquireLease('ingest', 'a', T10, T0)).toBe(true);
        expect(await store.acquireLease('ingest', 'b', T20, T5)).toBe(false);
        expect(await store.acquireLease('ingest', 'a', T20, T5)).toBe(true); // renewal extends to T20
        expect(await store.acquireLease('ingest', 'b', T20, T11)).toBe(false); // would have expired at T10
        expect(await store.acquireLease('ingest', 'b', T20, T10)).toBe(false);
      });

      it('passes to another owner once expired (until < now), and the old owner is then refused', async () => {
        expect(await store.acquireLease('ingest', 'a', T10, T0)).toBe(true);
        expect(await store.acquireLease('ingest', 'b', T20, T10)).toBe(false); // until == now: still held
        expect(await store.acquireLease('ingest', 'b', T20, T11)).toBe(true);
        expect(await store.acquireLease('ingest', 'a', T20, T11)).toBe(false);
      });

      it('compares instants, whatever offset they are written with', async () => {
        expect(await store.acquireLease('ingest', 'a', '2024-06-01T06:10:00-04:00', T0)).toBe(true); // = T10
        expect(await store.acquireLease('ingest', 'b', T20, T5)).toBe(false);
        expect(await store.acquireLease('ingest', 'b', T20, T11)).toBe(true);
      });

      it('is released only by its owner; releasing a free lease is harmless', async () => {
        await store.acquireLease('ingest', 'a', T10, T0);
        await store.releaseLease('ingest', 'b');
        expect(await store.acquireLease('ingest', 'b', T20, T5)).toBe(false);
        await store.releaseLease('ingest', 'a');
        expect(await store.acquireLease('ingest', 'b', T20, T5)).toBe(true);
        await expect(store.releaseLease('reindex', 'a')).resolves.toBeUndefined();
      });

      it('keeps leases of different names apart', async () => {
        expect(await store.acquireLease('ingest', 'a', T10, T0)).toBe(true);
        expect(await store.acquireLease('audit', 'b', T10, T0)).toBe(true);
      });

      it('grants a free lease to exactly one of several concurrent claimants', async () => {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.acquireLease('ingest', `owner-${i}`, T10, T0)));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('reads the lease as stored, held or run out; none once released', async () => {
        expect(await store.getLease('ingest')).toBeNull();
        await store.acquireLease('ingest', 'a', T10, T0);
        expect(await store.getLease('ingest')).toEqual({ owner: 'a', until: T10 });
        await store.releaseLease('ingest', 'a');
        expect(await store.getLease('ingest')).toBeNull();
      });

      it('is taken over from the owner read, unexpired, and only from that owner', async () => {
        await store.acquireLease('ingest', 'dead', T20, T0);
        expect(await store.takeOverLease('ingest', 'someone-else', 'b', T20)).toBe(false);
        expect(await store.takeOverLease('ingest', 'dead', 'b', T20)).toBe(true);
        expect(await store.getLease('ingest')).toEqual({ owner: 'b', until: T20 });
        expect(await store.acquireLease('ingest', 'dead', T20, T5)).toBe(false); // the old owner has lost it
        expect(await store.takeOverLease('ingest', 'dead', 'c', T20)).toBe(false); // a second taker of the same dead owner
        expect(await store.takeOverLease('audit', 'dead', 'c', T20)).toBe(false); // no lease to take
        expect(await store.getLease('audit')).toBeNull();
      });

      it('passes a dead owner’s lease to exactly one of several concurrent takers', async () => {
        await store.acquireLease('ingest', 'dead', T20, T0);
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.takeOverLease('ingest', 'dead', `owner-${i}`, T20)));
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = `owner-${results.indexOf(true)}`;
        expect(await store.getLease('ingest')).toEqual({ owner: winner, until: T20 });
      });
    });

    describe('markers', () => {
      it('are null until set, then hold the last value put', async () => {
        expect(await store.getMarker('sample-corpus-loaded')).toBeNull();
        await store.putMarker('sample-corpus-loaded', '2026-11-22T07:00:00.000Z');
        await store.putMarker('sample-corpus-loaded', '2026-11-22T08:00:00.000Z');
        expect(await store.getMarker('sample-corpus-loaded')).toBe('2026-11-22T08:00:00.000Z');
        expect(await store.getMarker('another')).toBeNull();
      });
    });

    describe('quotas', () => {
      it('grant up to what is left, never more than the limit, and count what they granted', async () => {
        expect(await store.quotaUsed('fallback-2026-11-23')).toBe(0);
        expect(await store.takeQuota('fallback-2026-11-23', 3, 5)).toEqual({ granted: 3, used: 3 });
        expect(await store.takeQuota('fallback-2026-11-23', 3, 5)).toEqual({ granted: 2, used: 5 });
        expect(await store.takeQuota('fallback-2026-11-23', 1, 5)).toEqual({ granted: 0, used: 5 });
        expect(await store.quotaUsed('fallback-2026-11-24')).toBe(0);
      });

      it('grant exactly the limit to concurrent takers', async () => {
        const grants = await Promise.all(Array.from({ length: 6 }, () => store.takeQuota('burst', 1, 4)));
        expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(4);
        expect(await store.quotaUsed('burst')).toBe(4);
      });
    });

    it('ping resolves on a reachable store', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
