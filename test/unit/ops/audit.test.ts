import { describe, expect, it } from 'vitest';
import { OPEN_END, type SectionVersion } from '#law/model.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { runAudit } from '#ops/audit.ts';
import type { OpsStore, StoredAuditRun } from '#ops/ports.ts';
import { contentHash } from '#shared/hash.ts';

const unused = (name: string) => () => {
  throw new Error(`the audit must not call ${name}`);
};

/** The audit reads versions and histories by scanning: a store that can do only that (and list editions), yielding `n` versions. */
function scanOnlyStore(n: number): VersionStore {
  return {
    async *scanVersions(): AsyncIterable<SectionVersion> {
      for (let i = 1; i <= n; i++) {
        const bodyText = `(a) Section ${i} of a long title.${i === n ? ' '.repeat(5_000) : ''}`;
        yield {
          citation: {
            jurisdiction: 'us',
            corpus: 'statutes',
            key: `99-${i}`,
            display: `99 U.S.C. § ${i}`,
            parts: { title: '99', section: String(i) },
          },
          catchline: `Section ${i}`,
          bodyText,
          historyNote: '',
          note: null,
          status: 'active',
          validFrom: '2015-01-01T00:00:00-05:00',
          validTo: OPEN_END,
          ingestedAt: '2026-11-22T00:00:00.000Z',
          temporalBasis: 'compiled-edition',
          provenance: {
            sourceUrl: 'https://uscode.house.gov/',
            retrievedAt: '2026-11-22T00:00:00Z',
            contentHash: contentHash(bodyText),
            sourceSystem: 'test',
            versionLabel: 'Bench@1',
          },
        };
      }
    },
    async *scanHistories() {},
    findInForce: unused('findInForce'),
    listVersions: unused('listVersions'),
    getVersion: unused('getVersion'),
    getSummaries: unused('getSummaries'),
    nearbyKeySummaries: unused('nearbyKeySummaries'),
    nearbyKeys: unused('nearbyKeys'),
    carries: unused('carries'),
    getHistories: unused('getHistories'),
    historiesWithPrefix: unused('historiesWithPrefix'),
    putHistory: unused('putHistory'),
    putHistories: unused('putHistories'),
    applyWrites: unused('applyWrites'),
    putEdition: unused('putEdition'),
    // Besides scanning, the audit reads each collection's edition records (a few each), for the sections they skipped.
    listEditions: async () => [],
    ping: unused('ping'),
  };
}

describe('runAudit at scale', () => {
  it('audits a collection of 200,000 versions (it once overflowed the stack) and names only ten problems per check', async () => {
    const stored: StoredAuditRun[] = [];
    const ops = { putAuditRun: async (r: StoredAuditRun) => void stored.push(r) } as unknown as OpsStore;
    const search = { count: async () => 200_000 } as unknown as SearchIndex;

    const runs = await runAudit({ versions: scanOnlyStore(200_000), search, ops, now: () => new Date('2026-11-22T00:00:00Z') }, 'manual');

    const all = runs.find((r) => r.run.jurisdiction === 'all')!;
    const history = all.findings.find((f) => f.checkName === 'history-matches-versions')!;
    expect(history).toMatchObject({ status: 'fail', rows: 200_000, maxChars: '(a) Section 200000 of a long title.'.length + 5_000 });
    expect(history.detail).toMatch(/^200000 problem\(s\): /);
    expect(history.detail.match(/99-\d+: stored/g)).toHaveLength(10); // ten named...
    expect(history.detail.endsWith('; …')).toBe(true); // ...the rest counted
    expect(stored).toHaveLength(runs.length);
  });
});
