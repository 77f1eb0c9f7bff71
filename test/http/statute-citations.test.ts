/**
 * Statute and court-rule citations in POST /law/citations/lookup, over a real socket on the local server with the
 * bundled sample: each answered apart from the case results with the version /law/lookup gives on `asOf` (or its
 * 404), billed one unit each, counted in the 250-citation limit.
 */
import { describe, expect, it } from 'vitest';
import { REAL_STATUTE_SENTENCES } from '../support/real-statute-citations.ts';
import { fixture, get, post } from './client.ts';

const dayLeft = (headers: Headers) => Number(/"day";r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);
const lookup = (body: unknown, key?: string) => post('/law/citations/lookup', body, key);
/** The section's permalink, as /law/lookup gives it (which may name the version's first day: `?asOf=`). */
const escaped = (s: string) => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
const permalinkOf = (path: string) => new RegExp(`^${escaped(fixture().siteUrl + path)}(?:\\?asOf=\\d{4}-\\d{2}-\\d{2})?$`);

describe('POST /law/citations/lookup: statute citations', () => {
  it('answers a U.S. Code section of the sample with the version /law/lookup gives on asOf, apart from the case results', async () => {
    const text = 'Chester v. State, 267 Ga. 9 (1996), read 1 U.S.C. § 112b(a) as the Secretary of State must.';
    const r = await lookup({ text, asOf: '2019-03-01' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((c: any) => c.citation)).toEqual(['267 Ga. 9']);
    expect(r.body.statutes).toHaveLength(1);
    const s = r.body.statutes[0];
    expect(s).toMatchObject({
      citation: '1 U.S.C. § 112b(a)',
      start_index: text.indexOf('1 U.S.C.'),
      end_index: text.indexOf('1 U.S.C.') + '1 U.S.C. § 112b(a)'.length,
      jurisdiction: 'us',
      corpus: 'statutes',
      key: '1-112b',
      normalized_citation: '1 U.S.C. § 112b(a)',
      asOf: '2019-03-01',
      status: 200,
      error: null,
    });
    const direct = await get('/law/lookup', { jurisdiction: 'us', citation: '1 U.S.C. § 112b(a)', asOf: '2019-03-01' });
    expect(direct.status).toBe(200);
    expect(s.result).toEqual(direct.body.result);
    expect(s.result.permalink).toMatch(permalinkOf('/law/us/statutes/1-112b'));
    expect(s.result.provenance.contentHash).toMatch(/^sha256:/);
    expect(s.result.pinpoint).toMatchObject({ requested: '(a)', applied: true });
  });

  it('answers D.C. Code § 22-404.05 in force on 2024-04-01, and no_edition_on_file with didYouMean on 2024-07-01', async () => {
    const text = 'Strangulation is a felony. D.C. Code § 22-404.05.';
    const before = await lookup({ text, asOf: '2024-04-01' });
    expect(before.status, before.text).toBe(200);
    expect(before.body.statutes[0]).toMatchObject({ citation: 'D.C. Code § 22-404.05', key: '22-404.05', jurisdiction: 'dc', status: 200 });
    expect(before.body.statutes[0].result.citation.display).toBe('D.C. Code § 22-404.05');
    expect(before.body.statutes[0].result.permalink).toMatch(permalinkOf('/law/dc/statutes/22-404.05'));

    const after = await lookup({ text, asOf: '2024-07-01' });
    expect(after.status).toBe(200);
    const miss = after.body.statutes[0];
    expect(miss).toMatchObject({ status: 404, result: null, asOf: '2024-07-01', error: { code: 'no_edition_on_file' } });
    const direct = await get('/law/lookup', { jurisdiction: 'dc', citation: 'D.C. Code § 22-404.05', asOf: '2024-07-01' });
    expect(direct.status).toBe(404);
    expect(miss.error.message).toBe(direct.body.error.message);
    expect(miss.error.didYouMean).toEqual(direct.body.error.didYouMean);
    expect(miss.error.didYouMean[0]).toMatchObject({ citation: '22-404.05', reason: 'latest-version' });
  });

  it('answers Fed. R. App. P. 32(a)(7) as of 2010 with the subdivision it quotes (14,000 words)', async () => {
    const r = await lookup({ text: 'The brief exceeds the limit of Fed. R. App. P. 32(a)(7).', asOf: '2010-06-01' });
    expect(r.status, r.text).toBe(200);
    const s = r.body.statutes[0];
    expect(s).toMatchObject({ key: 'frap-32', corpus: 'rules', status: 200, normalized_citation: 'Fed. R. App. P. 32(a)(7)' });
    expect(s.result.pinpoint).toMatchObject({ requested: '(a)(7)', applied: true });
    expect(s.result.pinpoint.text).toMatch(/14,000 words/);
    expect(s.result.permalink).toMatch(permalinkOf('/law/us/rules/frap-32'));
  });

  it('answers Tennessee and Mississippi sections of the releases carried', async () => {
    const text = "Mother's Day is a holiday, Tenn. Code Ann. § 15-2-102; see also Miss. Code Ann. § 1-3-1.";
    const r = await lookup({ text, asOf: '2020-09-15' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.statutes.map((s: any) => [s.citation, s.jurisdiction, s.key, s.status])).toEqual([
      ['Tenn. Code Ann. § 15-2-102', 'tn', '15-2-102', 200],
      ['Miss. Code Ann. § 1-3-1', 'ms', '1-3-1', 200],
    ]);
    expect(r.body.statutes[0].result.provenance.versionLabel).toBe('r72');
  });

  it('finds a state code that is not carried and answers the lookup’s not_carried', async () => {
    const r = await lookup({ text: 'The claim arises under Mass. Gen. Laws ch. 93A, § 2.', asOf: '2020-01-01' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.statutes).toEqual([
      expect.objectContaining({
        citation: 'Mass. Gen. Laws ch. 93A, § 2',
        jurisdiction: 'ma',
        key: null,
        status: 404,
        result: null,
        error: expect.objectContaining({ code: 'not_carried', message: expect.stringMatching(/jurisdiction 'ma'/) }),
      }),
    ]);
  });

  it('answers each section of a § list, and a code cited by its acronym, of codes not carried with not_carried', async () => {
    const list = REAL_STATUTE_SENTENCES.find((s) => s.id === '2741328')!.text;
    const acronym = REAL_STATUTE_SENTENCES.find((s) => s.id === '1757896')!.text;
    const r = await lookup({ text: `${list} ${acronym}`, asOf: '2020-01-01' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.statutes.map((s: any) => [s.citation, s.jurisdiction, s.normalized_citation, s.status, s.error.code])).toEqual([
      ['W. Va. Code §§ 61-8B-1(6)', 'wv', 'W. Va. Code § 61-8B-1(6)', 404, 'not_carried'],
      ['61-8B-9(a)', 'wv', 'W. Va. Code § 61-8B-9(a)', 404, 'not_carried'],
      ['KRS 160.290(2)', 'ky', 'Ky. Rev. Stat. Ann. § 160.290(2)', 404, 'not_carried'],
    ]);
  });

  it('answers a title that is not carried with the lookup’s no_edition_on_file, naming the title', async () => {
    const sentence = REAL_STATUTE_SENTENCES.find((s) => s.id === '931093')!.text;
    const r = await lookup({ text: sentence });
    expect(r.status).toBe(200);
    expect(r.body.statutes[0]).toMatchObject({ key: '28-1291', status: 404, error: { code: 'no_edition_on_file' } });
    expect(r.body.statutes[0].error.message).toMatch(/Title 28 of the United States Code .* is not carried/);
    expect(r.body.statutes[0].error.coverageUrl).toMatch(/\/law\/coverage\?jurisdiction=us&corpus=statutes$/);
  });

  it('asks for today (UTC) when asOf is not given', async () => {
    const r = await lookup({ text: 'See 1 U.S.C. § 1.' });
    expect(r.status).toBe(200);
    expect(r.body.statutes[0].asOf).toBe(new Date().toISOString().slice(0, 10));
    expect(r.body.statutes[0].status).toBe(200);
  });

  it('takes statute citations in a citations list too', async () => {
    const r = await lookup({ citations: ['1 U.S.C. § 1', '267 Ga. 9'], asOf: '2019-03-01' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((c: any) => [c.citation, c.status])).toEqual([['267 Ga. 9', 200]]);
    expect(r.body.statutes.map((s: any) => [s.citation, s.key, s.start_index, s.end_index, s.status])).toEqual([
      ['1 U.S.C. § 1', '1-1', 0, 12, 200],
    ]);
  });

  it('bills one unit per citation, cases and statutes alike', async () => {
    const key = fixture().keys.pool[11]!;
    const text = 'Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996); 1 U.S.C. §§ 1, 2; Fed. R. App. P. 32(a)(7).';
    const first = await lookup({ text, asOf: '2019-03-01' }, key);
    const second = await lookup({ text, asOf: '2019-03-01' }, key);
    expect(second.status).toBe(200);
    expect(second.body.results).toHaveLength(2);
    expect(second.body.statutes).toHaveLength(3);
    expect(dayLeft(first.headers) - dayLeft(second.headers)).toBe(5);
  });

  it('counts statutes in the 250-citation limit', async () => {
    const cases = Array.from({ length: 200 }, () => '267 Ga. 9').join('; ');
    const statutes = (n: number) => Array.from({ length: n }, () => '1 U.S.C. § 1').join('; ');
    const over = await lookup({ text: `${cases}; ${statutes(51)}.`, asOf: '2019-03-01' });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'too_many', citations: 251, limit: 250 });
    expect(over.body.error.message).toMatch(/251 citations \(200 of cases, 51 of statutes and rules\)/);

    const key = fixture().keys.pool[13]!;
    const at = await lookup({ text: `${cases}; ${statutes(50)}.`, asOf: '2019-03-01' }, key);
    const again = await lookup({ text: `${cases}; ${statutes(50)}.`, asOf: '2019-03-01' }, key);
    expect(again.status).toBe(200);
    expect(again.body.results).toHaveLength(200);
    expect(again.body.statutes).toHaveLength(50);
    expect(dayLeft(at.headers) - dayLeft(again.headers)).toBe(250);
  });

  it('answers a request of 250 distinct statute citations, each as its own lookup would, and bills 250 units once', async () => {
    // Sections 1 to 8 of Title 1 are carried; the sections of Title 28 are not: 250 lookups, run a few at a time.
    const printed = Array.from({ length: 250 }, (_, i) => (i < 8 ? `1 U.S.C. § ${i + 1}` : `28 U.S.C. § ${i + 1}`));
    const key = fixture().keys.pool[12]!;
    const first = await lookup({ text: `See ${printed.join('; ')}.`, asOf: '2019-03-01' }, key);
    const second = await lookup({ text: `See ${printed.join('; ')}.`, asOf: '2019-03-01' }, key);
    expect(second.status, second.text).toBe(200);
    expect(second.body.results).toEqual([]);
    expect(second.body.statutes.map((s: any) => s.citation)).toEqual(printed);
    expect(second.body.statutes.slice(0, 8).map((s: any) => [s.key, s.status, s.result.citation.key])).toEqual(
      printed.slice(0, 8).map((_, i) => [`1-${i + 1}`, 200, `1-${i + 1}`]),
    );
    for (const s of second.body.statutes.slice(8)) expect(s).toMatchObject({ status: 404, error: { code: 'no_edition_on_file' } });
    expect(dayLeft(first.headers) - dayLeft(second.headers)).toBe(250);
  });

  it.each([['2019-02-30'], ['2019-3-1'], ['yesterday'], ['']])('refuses asOf %j with bad_as_of, billing nothing', async (asOf) => {
    const r = await lookup({ text: 'See 1 U.S.C. § 1.', asOf });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_as_of');
    expect(r.body.error.message).toMatch(/asOf/);
  });
});
