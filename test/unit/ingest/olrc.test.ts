/**
 * The OLRC connector's pure parts: the publisher's two pages read into release points (on pages in the real pages'
 * shape, as the fake publisher serves them), title codes, zip addresses, and what a choice of options fetches.
 */
import { describe, expect, it } from 'vitest';
import {
  parseCurrentReleasePoint,
  parseReleasePointId,
  parseReleasePointList,
  ReleasePointError,
  releasePointHistory,
} from '#ingest/olrc/release-points.ts';
import { needsPages, needsPriorList, selectWork } from '#ingest/olrc/select.ts';
import { TitleCodeError, titleCode, titleEntryPattern } from '#ingest/olrc/titles.ts';
import { normalizeSource, OLRC_SOURCE, SourceError, titleZipUrl } from '#ingest/olrc/urls.ts';
import { currentPage, FAKE_RELEASE_POINTS, priorPage } from '../../support/fake-olrc.ts';

const SOURCE = 'https://mirror.example';
const LIST_URL = `${SOURCE}/download/priorreleasepoints.htm`;
const CURRENT_URL = `${SOURCE}/download/download.shtml`;
const TITLES_117_80 = ['01', '05a', '11a', '13', '14', '17', '18a', '24', '27', '30', '32', '35', '37', '39', '41'];
const prior = parseReleasePointList(priorPage(FAKE_RELEASE_POINTS.current, FAKE_RELEASE_POINTS.prior), LIST_URL);
const current = parseCurrentReleasePoint(currentPage(FAKE_RELEASE_POINTS.current, TITLES_117_80), CURRENT_URL);

describe('the prior release points page', () => {
  it('lists the release points in the page order, leaves out the commented-out current one, and reads date and titles', () => {
    expect(prior).toEqual([
      {
        id: '113-31',
        congress: 113,
        law: '31',
        lawDate: '2013-08-09',
        affectedTitles: ['01', '06', '17', '35'],
        page: `${SOURCE}/download/releasepoints/us/pl/113/31/usc-rp@113-31.htm`,
      },
      {
        id: '113-21',
        congress: 113,
        law: '21',
        lawDate: '2013-07-18',
        affectedTitles: ['16', '42'],
        page: `${SOURCE}/download/releasepoints/us/pl/113/21/usc-rp@113-21.htm`,
      },
    ]);
  });

  it('reads release points that except laws or update one, single and appendix titles, and entries without titles', () => {
    // The first four: ids, dates and affected titles of real release points, in the list's wording; the last two are
    // made up, for an entry without titles and one naming something that is not a title.
    const html = `<ul class="releasepoints">
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/119/72not60/usc-rp@119-72not60.htm">Public Law 119-72 (01/20/2026), except 119-60, affecting titles 38, 42.</a></li>
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/116/108not92not94/usc-rp@116-108not92not94.htm">Public Law 116-108 (01/24/2020), except 116-92 and 116-94, affecting titles 1, 5.</a></li>
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/116/68u1/usc-rp@116-68u1.htm">Public Law 116-68 (11/08/2019), affecting titles 11A, 18A, 28, 28A.</a></li>
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/116/35/usc-rp@116-35.htm">Public Law 116-35 (07/30/2019), affecting title 36.</a></li>
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/113/2/usc-rp@113-2.htm">Public Law 113-2 (01/29/2013)</a></li>
      <li class="releasepoint"><a class="releasepoint" href="releasepoints/us/pl/113/1/usc-rp@113-1.htm">Public Law 113-1 (01/04/2013), affecting titles 5, Popular Names.</a></li>
    </ul>`;
    const list = parseReleasePointList(html);
    expect(list.map((rp) => [rp.id, rp.law, rp.lawDate, rp.affectedTitles])).toEqual([
      ['119-72not60', '72not60', '2026-01-20', ['38', '42']],
      ['116-108not92not94', '108not92not94', '2020-01-24', ['01', '05']],
      ['116-68u1', '68u1', '2019-11-08', ['11a', '18a', '28', '28a']],
      ['116-35', '35', '2019-07-30', ['36']],
      ['113-2', '2', '2013-01-29', undefined],
      // A name that is not a title: the titles are unknown, so every title is taken.
      ['113-1', '1', '2013-01-04', undefined],
    ]);
  });

  it('refuses a page that lists no release point', () => {
    expect(() => parseReleasePointList('<html><body>Service Unavailable</body></html>')).toThrow(ReleasePointError);
  });
});

describe('the download page (the current release point)', () => {
  it('reads the release point, the date of its law, the changed titles and every title zip', () => {
    expect(current).toMatchObject({ id: '117-80', congress: 117, law: '80', lawDate: '2021-12-27', affectedTitles: ['01', '05a', '17'] });
    expect(Object.keys(current.titleZips).sort()).toEqual(TITLES_117_80);
    expect(current.titleZips['05a']).toBe(`${SOURCE}/download/releasepoints/us/pl/117/80/xml_usc05a@117-80.zip`);
  });

  it('refuses a page whose zips name several release points, or none', () => {
    const two = `<a href="releasepoints/us/pl/119/73/xml_usc01@119-73.zip">[XML]</a><a href="releasepoints/us/pl/119/72/xml_usc02@119-72.zip">[XML]</a>`;
    expect(() => parseCurrentReleasePoint(two)).toThrow(/several release points \(119-73, 119-72\)/);
    expect(() => parseCurrentReleasePoint('<h3 class="releasepointinformation">Public Law 119-73 (01/23/2026)</h3>')).toThrow(
      /links no title zip/,
    );
  });

  it('puts the current release point after the listed ones, once', () => {
    expect(releasePointHistory(prior, current).map((rp) => rp.id)).toEqual(['113-21', '113-31', '117-80']);
    expect(releasePointHistory([current, ...prior], current).map((rp) => rp.id)).toEqual(['113-21', '113-31', '117-80']);
  });
});

describe('titles, release points and addresses', () => {
  it('writes titles as the publisher names its zips, and refuses what is not a title', () => {
    expect(['1', '01', '42', '5a', '05A', '11a', '18A', '50a'].map(titleCode)).toEqual([
      '01',
      '01',
      '42',
      '05a',
      '05a',
      '11a',
      '18a',
      '50a',
    ]);
    for (const bad of ['0', '55', '6a', 'All', '../etc', '1,2', '']) expect(() => titleCode(bad), bad).toThrow(TitleCodeError);
    expect(titleEntryPattern('05a').test('usc05A.xml')).toBe(true);
    expect(titleEntryPattern('05a').test('usc05.xml')).toBe(false);
  });

  it('reads release point ids as OLRC writes them', () => {
    expect(parseReleasePointId('114-329not328')).toEqual({ id: '114-329not328', congress: 114, law: '329not328' });
    for (const bad of ['118', '118-', 'pl-118-158', '118-158/..', '118 158'])
      expect(() => parseReleasePointId(bad), bad).toThrow(ReleasePointError);
  });

  it('builds the zip address of a title at a release point', () => {
    expect(titleZipUrl(OLRC_SOURCE, parseReleasePointId('114-329not328'), '05a')).toBe(
      'https://uscode.house.gov/download/releasepoints/us/pl/114/329not328/xml_usc05a@114-329not328.zip',
    );
    expect(normalizeSource('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(normalizeSource('https://mirror.example/olrc//')).toBe('https://mirror.example/olrc');
    for (const bad of ['uscode.house.gov', 'ftp://x', 'https://x/?a=1', 'file:///tmp'])
      expect(() => normalizeSource(bad), bad).toThrow(SourceError);
  });
});

describe('what a choice of options fetches', () => {
  const pages = { current, prior };
  const pick = (work: ReturnType<typeof selectWork>) => work.map((w) => `${w.releasePoint.id}/${w.title}`);

  it('with a release point and titles: only those zips, with no page read', () => {
    const options = { which: { releasePoint: '113-31' }, titles: ['01', '17'], source: SOURCE };
    expect(needsPages(options)).toBe(false);
    const work = selectWork(null, options);
    expect(work.map((w) => w.url)).toEqual([
      `${SOURCE}/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip`,
      `${SOURCE}/download/releasepoints/us/pl/113/31/xml_usc17@113-31.zip`,
    ]);
    expect(work.every((w) => w.named)).toBe(true);
  });

  it('--latest: every title the download page links, at the current release point, from the page’s links', () => {
    expect(needsPages({ which: { latest: true } })).toBe(true);
    expect(needsPriorList({ latest: true }, current)).toBe(false);
    const work = selectWork({ current }, { which: { latest: true }, source: SOURCE });
    expect(pick(work)).toEqual(TITLES_117_80.map((t) => `117-80/${t}`));
    expect(work.some((w) => w.named)).toBe(false);
    expect(pick(selectWork({ current }, { which: { latest: true }, titles: ['17', '01'], source: SOURCE }))).toEqual([
      '117-80/17',
      '117-80/01',
    ]);
  });

  it('a named prior release point without titles: every title, at that release point', () => {
    expect(needsPriorList({ releasePoint: '113-31' }, current)).toBe(true);
    expect(needsPriorList({ releasePoint: '117-80' }, current)).toBe(false);
    const work = selectWork(pages, { which: { releasePoint: '113-31' }, source: SOURCE });
    expect(pick(work)).toEqual(TITLES_117_80.map((t) => `113-31/${t}`));
    expect(() => selectWork(pages, { which: { releasePoint: '118-158' }, source: SOURCE })).toThrow(
      /release point 118-158 is not in the publisher's list \(3 listed, from 113-21 to 113-21, 113-31, 117-80\)/,
    );
  });

  it('--since: every title at the first release point, then at each later one the titles it changed', () => {
    expect(pick(selectWork(pages, { which: { since: '113-31' }, titles: ['01', '06', '35'], source: SOURCE }))).toEqual([
      '113-31/01',
      '113-31/06',
      '113-31/35',
      '117-80/01',
    ]);
    expect(pick(selectWork(pages, { which: { since: '113-21' }, titles: ['01', '17', '42'], source: SOURCE }))).toEqual([
      '113-21/01',
      '113-21/17',
      '113-21/42',
      '113-31/01',
      '113-31/17',
      '117-80/01',
      '117-80/17',
    ]);
    expect(pick(selectWork(pages, { which: { since: '117-80' }, titles: ['35'], source: SOURCE }))).toEqual(['117-80/35']);
    expect(() => selectWork(pages, { which: { since: '112-1' }, source: SOURCE })).toThrow(/not in the publisher's list/);
  });
});
