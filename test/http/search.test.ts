import { describe, expect, it } from 'vitest';
import { get, post } from './client.ts';

const keys = (r: { body: { results: { citation: { key: string } }[] } }) => r.body.results.map((h) => h.citation.key);

describe('GET /law/search', () => {
  it('finds D.C. Code § 22-404.05 for "strangulation" while it was in force, with a <b> snippet and provenance', async () => {
    const r = await get('/law/search', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01' });
    expect(r.status).toBe(200);
    expect(keys(r)).toContain('22-404.05');
    const hit = r.body.results.find((h: { citation: { key: string } }) => h.citation.key === '22-404.05');
    expect(hit.snippet).toMatch(/<b>[Ss]trangulation<\/b>/);
    expect(hit.catchline).toBe('Strangulation.');
    expect(hit.provenance.contentHash).toMatch(/^sha256:/);
    expect(hit.versionLabel).toBeTruthy();
    expect(r.body.disclaimer).toMatch(/Unofficial/);
  });

  it('does not find it once the section was deleted', async () => {
    const r = await get('/law/search', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-07-01' });
    expect(r.status).toBe(200);
    expect(keys(r)).not.toContain('22-404.05');
  });

  it('ANDs its terms', async () => {
    const both = await get('/law/search', { q: 'strangulation breathing', jurisdiction: 'dc', asOf: '2024-04-01' });
    expect(keys(both)).toContain('22-404.05');
    const none = await get('/law/search', { q: 'strangulation zebra', jurisdiction: 'dc', asOf: '2024-04-01' });
    expect(none.body.results).toEqual([]);
  });

  it('ranks and limits, default 10, at most 50, and snippets carry no markup but <b>', async () => {
    const all = await get('/law/search', { q: 'United States', jurisdiction: 'us', asOf: '2023-01-01' });
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBe(10);
    const many = await get('/law/search', { q: 'United States', jurisdiction: 'us', asOf: '2023-01-01', limit: '500' });
    expect(many.body.results.length).toBeGreaterThan(10);
    expect(many.body.results.length).toBeLessThanOrEqual(50);
    const two = await get('/law/search', { q: 'United States', jurisdiction: 'us', asOf: '2023-01-01', limit: '2' });
    expect(keys(two)).toEqual(keys(all).slice(0, 2));
    for (const h of many.body.results) expect(h.snippet.replace(/<\/?b>/g, '')).not.toMatch(/[<>]/);
  });

  it('searches a comma list or all jurisdictions, and narrows by corpus', async () => {
    const q = { q: 'brief', asOf: '2026-04-01' };
    const all = await get('/law/search', { ...q, jurisdiction: 'all', limit: '50' });
    const list = await get('/law/search', { ...q, jurisdiction: 'us,nd', limit: '50' });
    const none = await get('/law/search', { ...q, limit: '50' });
    expect(new Set(all.body.results.map((h: { citation: { jurisdiction: string } }) => h.citation.jurisdiction))).toEqual(
      new Set(['us', 'nd']),
    );
    expect(keys(list).sort()).toEqual(keys(all).sort());
    expect(keys(none).sort()).toEqual(keys(all).sort());
    const rules = await get('/law/search', { ...q, jurisdiction: 'us', corpus: 'rules', limit: '50' });
    expect(rules.body.results.every((h: { citation: { corpus: string } }) => h.citation.corpus === 'rules')).toBe(true);
    const ghost = await get('/law/search', { ...q, jurisdiction: 'us,zz' });
    expect(ghost.status).toBe(200);
  });

  it('is 404 not_carried for a single jurisdiction that holds nothing of the corpus', async () => {
    const ca = await get('/law/search', { q: 'brief', jurisdiction: 'ca' });
    expect([ca.status, ca.body.error.code]).toEqual([404, 'not_carried']);
    const ndStatutes = await get('/law/search', { q: 'brief', jurisdiction: 'nd', corpus: 'statutes' });
    expect([ndStatutes.status, ndStatutes.body.error.code]).toEqual([404, 'not_carried']);
  });

  it.each([
    [{}, 'missing_fields'],
    [{ q: '   ' }, 'missing_fields'],
    [{ q: 'x', asOf: '2024-13-01' }, 'bad_as_of'],
    [{ q: 'x', corpus: 'laws' }, 'bad_corpus'],
    [{ q: 'x', limit: '0' }, 'bad_limit'],
    [{ q: 'x', limit: 'ten' }, 'bad_limit'],
    [{ q: 'x', limit: '-3' }, 'bad_limit'],
  ])('%j → 400 %s', async (query, code) => {
    const r = await get('/law/search', query);
    expect([r.status, r.body.error.code]).toEqual([400, code]);
  });

  it('takes the same parameters as a JSON body', async () => {
    const q = { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01', limit: 5 };
    const viaPost = await post('/law/search', q);
    const viaGet = await get('/statutes/search', { ...q, limit: '5' });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
  });

  it('answers 200 with no results for a query of stop words only', async () => {
    const r = await get('/law/search', { q: 'the of and', jurisdiction: 'us' });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
  });
});
