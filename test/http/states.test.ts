import { describe, expect, it } from 'vitest';
import { fixture, get, post } from './client.ts';

/** The sample corpus carries Tennessee releases 72 and 76 and Mississippi releases 72 and 78 (data/sample/sources.json). */
describe('state codes through the running server', () => {
  it("look up a Tennessee section by its printed forms, in force on a date, with the publisher's file as provenance", async () => {
    const then = await get('/law/lookup', { jurisdiction: 'tn', citation: 'Tenn. Code Ann. § 15-2-102', asOf: '2021-01-01' });
    expect(then.status).toBe(200);
    expect(then.body.result).toMatchObject({
      citation: { jurisdiction: 'tn', corpus: 'statutes', key: '15-2-102', display: 'Tenn. Code Ann. § 15-2-102' },
      catchline: "Mothers' Day.",
      temporalBasis: 'compiled-edition',
      validFrom: '2020-09-01T00:00:00-05:00',
      validTo: '2021-05-21T00:00:00-05:00',
      permalink: `${fixture().siteUrl}/law/tn/statutes/15-2-102?asOf=2020-09-01`,
      provenance: {
        versionLabel: 'r72',
        sourceUrl:
          'https://github.com/UniCourt/cic-code-tn/blob/507a4fb0e463c55a81147a3deba042aa18f562c1/transforms/tn/octn/r72/gov.tn.tca.title.15.html',
      },
    });
    expect(then.body.result.bodyText).toContain('to be proclaimed as such by the governor');
    const now = await post('/law/lookup', { jurisdiction: 'tn', citation: 'T.C.A. § 15-2-102' });
    expect(now.status).toBe(200);
    expect(now.body.result.provenance.versionLabel).toBe('r76');
    expect(now.body.result.bodyText).not.toContain('to be proclaimed as such by the governor');
  });

  it('look up Mississippi by key and printed form, and quote a pinpoint', async () => {
    for (const citation of ['87-1-1', 'Miss. Code Ann. § 87-1-1', 'Miss. Code 1972 Ann. § 87-1-1']) {
      const r = await get('/law/text', { jurisdiction: 'ms', citation, asOf: '2019-01-01' });
      expect(r.status, citation).toBe(200);
      expect(r.body.result).toMatchObject({ citation: { key: '87-1-1', display: 'Miss. Code Ann. § 87-1-1' }, versionLabel: 'r72' });
      expect(r.body.result.bodyText).toMatch(/shall be utterly void\.$/);
    }
    const pin = await get('/law/lookup', { jurisdiction: 'ms', citation: 'Miss. Code Ann. § 5-8-9(2)(f)', asOf: '2020-08-01' });
    expect(pin.status).toBe(200);
    expect(pin.body.result.pinpoint).toMatchObject({ applied: true, display: 'Miss. Code Ann. § 5-8-9(2)(f)' });
    expect(pin.body.result.pinpoint.text).toMatch(/^\(f\) A payment or reimbursement for food, beverages, travel/);
  });

  it('answer a miss the way the spec says: before the first release, in a title not carried, of another state, of no state', async () => {
    const before = await get('/law/lookup', { jurisdiction: 'tn', citation: '1-3-101', asOf: '2020-08-31' });
    expect(before.status).toBe(404);
    expect(before.body.error.code).toBe('no_edition_on_file');
    expect(before.body.error.didYouMean[0]).toMatchObject({ citation: '1-3-101', reason: 'earliest-version', versionLabel: 'r72' });
    const title = await get('/law/lookup', { jurisdiction: 'tn', citation: 'Tenn. Code Ann. § 39-13-101' });
    expect(title.status).toBe(404);
    expect(title.body.error.message).toMatch(/Title 39 of the Tennessee Code Annotated is not carried/);
    const foreign = await get('/law/lookup', { jurisdiction: 'ms', citation: 'Tenn. Code Ann. § 1-3-101' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toMatch(/is a citation of jurisdiction 'tn'/);
    const none = await get('/law/search', { q: 'void', jurisdiction: 'ga' });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_carried');
  });

  it('search each state in force on a date, and both at once', async () => {
    const ms = await get('/law/search', { q: 'gaming wager void', jurisdiction: 'ms', asOf: '2019-01-01' });
    expect(ms.status).toBe(200);
    expect(ms.body.results[0]).toMatchObject({ citation: { key: '87-1-1' }, versionLabel: 'r72' });
    expect(ms.body.results[0].snippet).toContain('<b>void</b>');
    const both = await get('/law/search', { q: 'holiday', jurisdiction: 'tn,ms', limit: '50' });
    expect(both.status).toBe(200);
    expect(new Set(both.body.results.map((h: { citation: { jurisdiction: string } }) => h.citation.jurisdiction))).toEqual(
      new Set(['tn', 'ms']),
    );
    const beforeAny = await get('/law/search', { q: 'holiday', jurisdiction: 'tn', asOf: '2019-01-01' });
    expect(beforeAny.status).toBe(200);
    expect(beforeAny.body.results).toEqual([]);
  });

  it('list each state in coverage, with its titles, names, releases and dates', async () => {
    const r = await get('/law/coverage', { jurisdiction: 'ms' }, null);
    expect(r.status).toBe(200);
    const [ms] = r.body.coverage;
    expect(ms).toMatchObject({
      jurisdiction: 'ms',
      corpus: 'statutes',
      name: 'Mississippi Code of 1972 Annotated',
      cadenceClass: 'edition',
      temporalBasis: 'compiled-edition',
      coverageFrom: '2018-12-13',
      latestVersion: 'r78',
      editions: [
        { label: 'r72', date: '2018-12-13' },
        { label: 'r78', date: '2020-07-08' },
      ],
    });
    expect(ms.titles.map((t: { title: string; name: string }) => `${t.title} ${t.name}`)).toEqual([
      '1 Laws and Statutes',
      '3 State sovereignty, jurisdiction and holidays',
      '5 Legislative Department',
      '87 Contracts and Contractual Relations',
      '95 Torts',
    ]);
  });

  it('serve the permalink page of a state section, and name its audit in quality', async () => {
    const res = await fetch(`${fixture().siteUrl}/law/tn/statutes/1-3-101`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Tenn. Code Ann. § 1-3-101');
    expect(html).toContain('Repeals not retroactive.');
    expect(html).toContain('r72');
    const quality = await get('/law/quality', { jurisdiction: 'tn' }, null);
    expect(quality.status).toBe(200);
    expect(quality.body.run).toMatchObject({ jurisdiction: 'tn', failed: 0 });
  });
});
