import { describe, expect, it } from 'vitest';
import { fixture, get, post } from './client.ts';

describe('GET /law/coverage', () => {
  it('lists every bundled collection with dates, counts and provenance time, no key needed', async () => {
    const r = await get('/law/coverage', {}, null);
    expect(r.status).toBe(200);
    const names = r.body.coverage.map(
      (c: { jurisdiction: string; corpus: string; name: string }) => `${c.jurisdiction}/${c.corpus}/${c.name}`,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'us/statutes/United States Code',
        'dc/statutes/Code of the District of Columbia',
        'us/rules/Federal Rules of Appellate Procedure',
        'nd/rules/North Dakota Rules of Appellate Procedure',
      ]),
    );
    const usc = r.body.coverage.find((c: { name: string }) => c.name === 'United States Code');
    expect(usc).toMatchObject({
      coverageFrom: '2013-07-26',
      latestVersion: '117-80',
      sections: 39 + 70 + 153 + 27 + 175,
      cadenceClass: 'edition',
      temporalBasis: 'compiled-edition',
    });
    expect(usc.versions).toBe(44 + 72 + 169 + 27 + 197);
    expect(usc).toMatchObject({ coverageTo: null, latestVersionDate: '2022-01-27' });
    expect(usc.editions.map((e: { label: string }) => e.label)).toEqual(['113-31', '117-80']);
    // Titles 1, 13, 17 and 35 at both release points, the Title 18 appendix at 117-80 (its criminal rules are FRCrP's).
    expect(usc.titles.map((t: { title: string; editionCount: number }) => `${t.title}:${t.editionCount}`)).toEqual([
      '1:2',
      '13:2',
      '17:2',
      '18a:1',
      '35:2',
    ]);
    expect(usc.titles.filter((t: { title: string }) => t.title === '1')).toEqual([
      {
        title: '1',
        name: 'General Provisions',
        coverageFrom: '2013-07-26',
        coverageTo: null,
        firstVersion: '113-31',
        latestVersion: '117-80',
        latestVersionDate: '2022-01-27',
        editionCount: 2,
        sections: 39,
        versions: 44,
      },
    ]);
    const dc = r.body.coverage.find((c: { jurisdiction: string }) => c.jurisdiction === 'dc');
    expect(dc).toMatchObject({ coverageFrom: '2021-10-18', sections: 6 });
    expect(dc.titles.map((t: { title: string; sections: number }) => `${t.title}:${t.sections}`)).toEqual([
      '1:1',
      '2:1',
      '9:1',
      '22:2',
      '28:1',
    ]);
    expect(dc.titles.every((t: { name?: string }) => t.name === undefined)).toBe(true);
    const rules = r.body.coverage.filter((c: { corpus: string }) => c.corpus === 'rules');
    for (const set of rules) expect(set.titles).toBeUndefined();
    expect(r.body.note).toMatch(/no_edition_on_file/);
    expect(Date.parse(r.body.generatedAt)).not.toBeNaN();
    expect(r.body.stale).toBeUndefined();
  });

  it('filters by jurisdiction and corpus, GET or POST, /law or /statutes', async () => {
    const a = await get('/law/coverage', { jurisdiction: 'us', corpus: 'rules' }, null);
    const b = await post('/statutes/coverage', { jurisdiction: 'us', corpus: 'rules' }, null);
    expect(a.body.coverage.map((c: { name: string }) => c.name).sort()).toEqual([
      'Federal Rules of Appellate Procedure',
      'Federal Rules of Bankruptcy Procedure',
      'Federal Rules of Civil Procedure',
      'Federal Rules of Criminal Procedure',
      'Federal Rules of Evidence',
    ]);
    expect(b.body.coverage).toEqual(a.body.coverage);
    const bad = await get('/law/coverage', { corpus: 'nonsense' }, null);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'bad_corpus']);
  });

  it('accepts a key and ignores it (even an invalid one)', async () => {
    const withKey = await get('/law/coverage', {}, fixture().keys.lookup);
    const withJunk = await get('/law/coverage', {}, 'not-a-key');
    expect(withKey.status).toBe(200);
    expect(withJunk.status).toBe(200);
  });
});

describe('GET /law/quality', () => {
  it('reports the latest audit run of the stored data with only non-passing findings', async () => {
    const r = await get('/law/quality', {}, null);
    expect(r.status).toBe(200);
    expect(r.body.run).toMatchObject({ jurisdiction: 'all', totalChecks: expect.any(Number), passed: expect.any(Number) });
    expect(r.body.run.passed + r.body.run.warned + r.body.run.failed).toBe(r.body.run.totalChecks);
    for (const f of r.body.findings) expect(['warn', 'fail']).toContain(f.status);
    expect(r.body.findings.filter((f: { status: string }) => f.status === 'fail')).toEqual([]);
  });

  it('narrows to a jurisdiction and adds history on request', async () => {
    const r = await get('/law/quality', { jurisdiction: 'dc', history: 'true' }, null);
    expect(r.status).toBe(200);
    expect(r.body.run.jurisdiction).toBe('dc');
    expect(r.body.history.length).toBeGreaterThanOrEqual(1);
    const none = await get('/law/quality', { jurisdiction: 'zz' }, null);
    expect(none.body).toMatchObject({ run: null, findings: [] });
    expect(none.body.note).toMatch(/No audit/);
  });
});

describe('health', () => {
  it('liveness is always 200 and never needs a key', async () => {
    const r = await get('/health', {}, null);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, status: 'healthy', reason: 'ok', service: 'asof' });
  });

  it('corpus health reports the probe verdict and its age', async () => {
    let r = await get('/health/corpus', {}, null);
    for (let i = 0; i < 20 && r.status !== 200; i++) {
      await new Promise((done) => setTimeout(done, 250));
      r = await get('/health/corpus', {}, null);
    }
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, status: 'healthy', reason: 'ok' });
    expect(r.body.checkedSecondsAgo).toBeGreaterThanOrEqual(0);
    expect(r.body.checkedSecondsAgo).toBeLessThan(900);
  });
});
