/**
 * The title jobs of a run split over processes (functions/ingest/olrc/title-jobs.ts): which titles an update takes
 * from the release point the last run completed, what the store already holds, the per-run limit, and when a run
 * may call the store current. On the publisher's pages in the real pages' shape, served from memory.
 */
import { describe, expect, it } from 'vitest';
import { ingestedMarker } from '#ingest/olrc/ingest-title.ts';
import { CURRENT_MARKER, currentRecord, planTitleJobs, type TitleJobsRequest } from '#ingest/olrc/title-jobs.ts';
import { currentPage, FAKE_RELEASE_POINTS, priorPage } from '../../support/fake-olrc.ts';

const SOURCE = 'https://mirror.example';
const TITLES_117_80 = ['01', '05a', '11a', '13', '14', '17', '18a', '24', '27', '30', '32', '35', '37', '39', '41'];
const PAGES: Record<string, string> = {
  [`${SOURCE}/download/download.shtml`]: currentPage(FAKE_RELEASE_POINTS.current, TITLES_117_80),
  [`${SOURCE}/download/priorreleasepoints.htm`]: priorPage(FAKE_RELEASE_POINTS.current, FAKE_RELEASE_POINTS.prior),
};

function plan(request: TitleJobsRequest, markers: Record<string, string> = {}, limit = 200) {
  const requested: string[] = [];
  const fetch = async (url: string) => {
    requested.push(url.slice(SOURCE.length));
    const page = PAGES[url];
    return page ? new Response(page, { status: 200 }) : new Response('not found', { status: 404 });
  };
  const store = new Map(Object.entries(markers));
  return planTitleJobs({ source: SOURCE, ...request }, { fetch, markers: { getMarker: async (n) => store.get(n) ?? null }, limit }).then(
    (p) => ({ ...p, requested, at: p.jobs.map((j) => `${j.title}@${j.releasePoint}`) }),
  );
}
const held = (...at: [string, string][]) => Object.fromEntries(at.map(([rp, t]) => [ingestedMarker(rp, t), '{}']));
const currentAt = (rp: string) => ({ [CURRENT_MARKER]: currentRecord(rp, new Date('2026-11-24T00:00:00Z')) });

describe('an update (a run that names no release point)', () => {
  it('takes every title at the current release point the first time, and may then call the store current', async () => {
    const p = await plan({});
    expect(p.requested).toEqual(['/download/download.shtml']);
    expect(p.at).toEqual(TITLES_117_80.map((t) => `${t}@117-80`));
    expect(p).toMatchObject({ current: '117-80', through: '117-80', upToDate: false, held: 0, deferred: 0 });
  });

  it('takes, after the release point the last run completed, only the titles each later one changed', async () => {
    const p = await plan({}, currentAt('113-21'));
    expect(p.requested).toEqual(['/download/download.shtml', '/download/priorreleasepoints.htm']);
    // 113-31 changed 1, 6, 17, 35 and 117-80 changed 1, 5A, 17 (the fake's lists); the titles are the download page's
    // (title 6 is not on it); nothing at 113-21 itself.
    expect(p.at).toEqual(['01@113-31', '17@113-31', '35@113-31', '01@117-80', '05a@117-80', '17@117-80']);
    expect(p.through).toBe('117-80');
  });

  it('leaves out what the store holds at that release point, counting it', async () => {
    const p = await plan({}, { ...currentAt('113-31'), ...held(['117-80', '01'], ['113-31', '05a']) });
    expect(p.at).toEqual(['05a@117-80', '17@117-80']);
    expect(p).toMatchObject({ held: 1, through: '117-80' });
  });

  it('reads one page and has nothing to do when the last run completed the current release point', async () => {
    const p = await plan({}, currentAt('117-80'));
    expect(p.requested).toEqual(['/download/download.shtml']);
    expect(p).toMatchObject({ upToDate: true, through: '117-80', jobs: [], held: 0, deferred: 0 });
  });

  it('defers what is over the limit to the next run, and then does not call the store current', async () => {
    const p = await plan({}, {}, 4);
    expect(p.at).toEqual(['01@117-80', '05a@117-80', '11a@117-80', '13@117-80']);
    expect(p).toMatchObject({ deferred: TITLES_117_80.length - 4, through: null });
  });

  it('does not call the store current when only some titles are asked for', async () => {
    const p = await plan({ titles: ['1', '5a'] });
    expect(p.at).toEqual(['01@117-80', '05a@117-80']);
    expect(p.through).toBeNull();
  });
});

describe('the CLI’s choices', () => {
  it('a release point with titles: no page, the named titles, never current', async () => {
    const p = await plan({ releasePoint: '113-31', titles: ['6'] });
    expect(p.requested).toEqual([]);
    expect(p.jobs).toEqual([
      { releasePoint: '113-31', title: '06', url: `${SOURCE}/download/releasepoints/us/pl/113/31/xml_usc06@113-31.zip`, named: true },
    ]);
    expect(p).toMatchObject({ current: null, through: null });
  });

  it('since: every title at the first release point, the changed ones later; current when every title is taken', async () => {
    const p = await plan({ since: '113-31' }, held(['113-31', '01']));
    expect(p.at.filter((a) => a.endsWith('@117-80'))).toEqual(['01@117-80', '05a@117-80', '17@117-80']);
    expect(p.at).not.toContain('01@113-31');
    expect(p).toMatchObject({ held: 1, through: '117-80' });
  });

  it('refuses two choices at once, and a release point the publisher does not list', async () => {
    await expect(plan({ latest: true, since: '113-31' })).rejects.toThrow(/at most one of releasePoint, latest and since/);
    await expect(plan({ since: '112-1' })).rejects.toThrow(/release point 112-1 is not in the publisher's list/);
  });
});
