/**
 * Coverage per title and rule set, and what a lookup in a title or rule set that is not carried answers, over a real
 * socket: a server of its own, holding the sample's US Code Title 1 at release point 113-31 only (117-80 comes with
 * an ingest under test), its D.C. Code sections (five titles: a missing key has carried titles on both sides) and
 * FRAP (the one rule set carried, whatever the default corpus carries).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '#accounts/issue-key.ts';
import { type IngestRequest, runIngest } from '#ingest/jobs.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const RETRIEVED_AT = '2026-11-24T09:00:00Z';

let server: LocalServer;
let key: string;

const ingest = (request: IngestRequest) => runIngest(server.stores, { ...request, retrievedAt: RETRIEVED_AT } as IngestRequest);

beforeAll(async () => {
  server = await serveLocal({ dataDir: null, port: 0, sample: false, schedules: false });
  await ingest({ kind: 'uslm', files: [`${SAMPLE}uslm/usc01@113-31.xml`] });
  await ingest({ kind: 'dc-code', manifest: `${SAMPLE}dc-code/manifest.csv` });
  await ingest({ kind: 'rules', set: 'frap', paths: [`${SAMPLE}rules/frap`] });
  key = (await issueKey(server.stores.accounts, { name: 'coverage', limits: { perMinute: 120 } }, new Date())).key;
}, 120_000);

afterAll(() => server?.close());

async function get(path: string, query: Record<string, string>, withKey = true) {
  const url = new URL(`${server.url}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, { headers: withKey ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

interface TitleEntry {
  title: string;
  sections: number;
  versions: number;
  editionCount: number;
}

const coverageOf = async (jurisdiction: string, corpus: string) => (await get('/law/coverage', { jurisdiction, corpus }, false)).body;
const addressOf = (jurisdiction: string, corpus: string) => `${server.url}/law/coverage?jurisdiction=${jurisdiction}&corpus=${corpus}`;

describe('coverage per title and rule set', () => {
  it('lists the carried titles of a collection published in titles, adding up to its record', async () => {
    const { coverage, stale } = await coverageOf('dc', 'statutes');
    expect(stale).toBeUndefined();
    const dc = coverage[0];
    expect(dc.titles.map((t: TitleEntry) => t.title)).toEqual(['1', '2', '9', '22', '28']);
    const sum = (field: 'sections' | 'versions') => dc.titles.reduce((n: number, t: TitleEntry) => n + t[field], 0);
    expect([dc.sections, dc.versions]).toEqual([sum('sections'), sum('versions')]);
    expect(dc.titles[3]).toEqual({
      title: '22',
      coverageFrom: '2021-10-18',
      coverageTo: null,
      firstVersion: '2021-10-18',
      latestVersion: '2024-08-22',
      latestVersionDate: '2024-08-22',
      editionCount: 30,
      sections: 2,
      versions: 22,
    });
  });

  it('names a US Code title and says which release points of it are on file', async () => {
    const { coverage } = await coverageOf('us', 'statutes');
    expect(coverage[0]).toMatchObject({
      name: 'United States Code',
      coverageFrom: '2013-07-26',
      coverageTo: null,
      latestVersion: '113-31',
      latestVersionDate: '2013-07-26',
      editions: [{ label: '113-31', date: '2013-07-26' }],
      titles: [
        {
          title: '1',
          name: 'General Provisions',
          coverageFrom: '2013-07-26',
          coverageTo: null,
          firstVersion: '113-31',
          latestVersion: '113-31',
          latestVersionDate: '2013-07-26',
          editionCount: 1,
          sections: 39,
          versions: 39,
        },
      ],
    });
  });

  it('keeps a rule set its own record, with its editions and no titles', async () => {
    const { coverage } = await coverageOf('us', 'rules');
    expect(coverage).toEqual([
      expect.objectContaining({
        name: 'Federal Rules of Appellate Procedure',
        coverageFrom: '2024-12-01',
        coverageTo: null,
        latestVersion: 'FRAP as amended to December 1, 2024',
        latestVersionDate: '2024-12-01',
        editions: [{ label: 'FRAP as amended to December 1, 2024', date: '2024-12-01' }],
      }),
    ]);
    expect(coverage[0].titles).toBeUndefined();
  });
});

describe('a lookup in what is not carried', () => {
  it.each([
    ['us', '28 U.S.C. § 1291', 'No version of 28 U.S.C. § 1291', 'Title 28 of the United States Code (Judiciary and Judicial Procedure)'],
    // in key order between carried titles 1 and 2, and 28 and 9
    ['dc', 'D.C. Code § 16-1001', 'No version of D.C. Code § 16-1001', 'Title 16 of the Code of the District of Columbia'],
    ['dc', '51-101', 'No version of D.C. Code § 51-101', 'Title 51 of the Code of the District of Columbia'],
  ])('%s %s: the title is not carried, coverage says which are, nothing is suggested', async (jurisdiction, citation, what, title) => {
    for (const path of ['/law/lookup', '/law/text']) {
      const r = await get(path, { jurisdiction, citation, asOf: '2024-04-01' });
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual({
        code: 'no_edition_on_file',
        message: `${what} is on file: ${title} is not carried. See ${addressOf(jurisdiction, 'statutes')} for the titles that are.`,
        didYouMean: [],
        coverageUrl: addressOf(jurisdiction, 'statutes'),
        requestId: expect.any(String),
      });
    }
  });

  it('a key that does not exist in a carried title: suggestions from that title only', async () => {
    // 22-9999 sorts after D.C. Title 22's keys, right before Title 28's; 9-999 last, after Title 28's and 9's
    for (const [citation, title] of [
      ['22-9999', '22-'],
      ['9-999', '9-'],
    ] as const) {
      const r = await get('/law/lookup', { jurisdiction: 'dc', citation, asOf: '2024-04-01' });
      expect([r.status, r.body.error.code]).toEqual([404, 'no_edition_on_file']);
      expect(r.body.error.message).toBe(`No version of D.C. Code § ${citation} is on file.`);
      expect(r.body.error.coverageUrl).toBeUndefined();
      const keys = r.body.error.didYouMean.map((s: { citation: string }) => s.citation);
      expect(keys.length, citation).toBeGreaterThan(0);
      expect(
        keys.every((k: string) => k.startsWith(title)),
        keys.join(' '),
      ).toBe(true);
    }
  });

  it('a rule of a rule set that is not carried: the rule set is not carried, coverage lists those that are', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: 'Fed. R. Civ. P. 12(b)(6)' });
    const rules = addressOf('us', 'rules');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({
      code: 'no_edition_on_file',
      message: `No version of Fed. R. Civ. P. 12 is on file: Federal Rules of Civil Procedure is not a carried collection. See ${rules} for what is.`,
      didYouMean: [],
      coverageUrl: rules,
    });
    const listed = (await coverageOf('us', 'rules')).coverage;
    expect(listed.map((c: { name: string }) => c.name)).toEqual(['Federal Rules of Appellate Procedure']);
  });
});

describe('after an ingest', () => {
  it('coverage shows the title’s new release point once the refresh the ingest set off has run', async () => {
    await ingest({ kind: 'uslm', files: [`${SAMPLE}uslm/usc01@117-80.xml`] });
    let body = await coverageOf('us', 'statutes');
    for (let i = 0; i < 100 && body.stale; i++) {
      await new Promise((done) => setTimeout(done, 100));
      body = await coverageOf('us', 'statutes');
    }
    expect(body.stale).toBeUndefined();
    expect(body.coverage[0]).toMatchObject({
      latestVersion: '117-80',
      latestVersionDate: '2022-01-27',
      editions: [
        { label: '113-31', date: '2013-07-26' },
        { label: '117-80', date: '2022-01-27' },
      ],
      titles: [{ title: '1', firstVersion: '113-31', latestVersion: '117-80', editionCount: 2, sections: 39, versions: 44 }],
    });
  });
});
