/**
 * The case-law endpoints over a real socket: citation resolution (units reserved after parsing, every error of the
 * spec), a case, the cases citing it, and the replica going away under a running server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssueKeyParams, issueKey } from '#accounts/issue-key.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { MARSH_CITED_BY, SAMPLE_CASELAW_PATHS } from '../contract/caselaw-store.contract.ts';
import { testLogger } from '../support/test-logger.ts';

let server: LocalServer;
const clock = new Date('2026-11-23T12:00:00Z');

beforeAll(async () => {
  server = await serveLocal({
    dataDir: null,
    port: 0,
    sample: false,
    schedules: false,
    now: () => clock,
    // The replica is closed under the server on purpose below: its warnings print only if a test fails.
    logger: testLogger(),
  });
  await loadCourtListenerFiles(server.stores.caselaw, SAMPLE_CASELAW_PATHS);
});
afterAll(() => server?.close());

const keyWith = async (params: Partial<IssueKeyParams> = {}) =>
  (await issueKey(server.stores.accounts, { name: 'caselaw', ...params }, clock)).key;
const call = async (method: 'GET' | 'POST', path: string, key: string | null, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(key !== null && { authorization: `Bearer ${key}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as any };
};
const lookup = (key: string, body: unknown) => call('POST', '/law/citations/lookup', key, body);
/** Units left today, from the RateLimit header of a metered answer. */
const dayLeft = (headers: Headers) => Number(/"day";r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

describe('POST /law/citations/lookup', () => {
  it('resolves the citations of a text in order, with offsets, provenance, and one unit billed per citation', async () => {
    const key = await keyWith({ limits: { daily: 100 } });
    const text = 'See Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996); but see Roe v. Wade, 410 U. S. 113 (1973).';
    const answer = await lookup(key, { text });

    expect(answer.status).toBe(200);
    expect(
      answer.body.results.map((r: any) => [r.status, r.citation, r.normalized_citations, text.slice(r.start_index, r.end_index)]),
    ).toEqual([
      [200, '267 Ga. 9', ['267 Ga. 9'], '267 Ga. 9'],
      [200, '471 S.E.2d 836', ['471 S.E.2d 836'], '471 S.E.2d 836'],
      [404, '410 U. S. 113', ['410 U.S. 113'], '410 U. S. 113'],
    ]);
    const chester = answer.body.results[0].clusters[0];
    expect(chester).toMatchObject({
      id: 1296689,
      absolute_url: '/opinion/1296689/chester-v-state/',
      courtlistener_url: 'https://www.courtlistener.com/opinion/1296689/chester-v-state/',
      case_name: 'Chester v. State',
      court: 'ga',
      date_filed: '1996-05-06',
      docket_id: 1571851,
      docket: null,
      precedential_status: 'Published',
      citations: [
        { volume: '267', reporter: 'Ga.', page: '9', type: 2 },
        { volume: '471', reporter: 'S.E.2d', page: '836', type: 3 },
      ],
    });
    expect(answer.body.provenance).toMatchObject({ dataAsOf: '2018-06-20' });
    expect(answer.body.fallback).toBeUndefined();
    expect(answer.body.disclaimer).toMatch(/good law/);
    expect(dayLeft(answer.headers)).toBe(97);
  });

  it('counts offsets in code points as CourtListener does, and neither resolves nor bills a placeholder citation', async () => {
    const key = await keyWith({ limits: { daily: 100 } });
    const text = '😀 Cafe\u0301 — Chester v. State, 267 Ga. 9 (1996); Patterson v. Shumate, ___ U.S. ___ (1992).';
    const answer = await lookup(key, { text });
    expect(answer.status).toBe(200);
    const codePoints = Array.from(text);
    expect(answer.body.results.map((r: any) => [r.citation, r.start_index, codePoints.slice(r.start_index, r.end_index).join('')])).toEqual(
      [['267 Ga. 9', text.indexOf('267') - 1, '267 Ga. 9']],
    );
    expect(dayLeft(answer.headers)).toBe(99);
  });

  it('takes a list of strings and {volume, reporter, page} objects; an unknown reporter is 400 inside a 200', async () => {
    const key = await keyWith({ limits: { daily: 100 } });
    const answer = await lookup(key, { citations: ['97 F.3d 553', { volume: 267, reporter: 'Ga.', page: 9 }, '12 Foo. Rptr. 34'] });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: any) => [r.status, r.clusters.map((c: any) => c.id)])).toEqual([
      [200, [727295]],
      [200, [1296689]],
      [400, []],
    ]);
    expect(dayLeft(answer.headers)).toBe(97);
  });

  it('bills nothing for a text without a citation, and one unit for a statute citation (issue 18)', async () => {
    const key = await keyWith({ limits: { daily: 100 } });
    const none = await lookup(key, { text: 'Id. at 5; see supra.' });
    expect(none.body.results).toEqual([]);
    expect(none.body.statutes).toEqual([]);
    expect(dayLeft(none.headers)).toBe(100);
    const answer = await lookup(key, { text: '42 U.S.C. § 1983; Id. at 5.' });
    expect(answer.body.results).toEqual([]);
    expect(answer.body.statutes.map((s: any) => [s.citation, s.key])).toEqual([['42 U.S.C. § 1983', '42-1983']]);
    expect(dayLeft(answer.headers)).toBe(99);
  });

  it('refuses more than 250 citations with too_many, before anything is billed', async () => {
    const key = await keyWith({ limits: { daily: 1000 } });
    const tooMany = await lookup(key, { text: Array.from({ length: 251 }, (_, i) => `${i + 1} U.S. ${i + 2}`).join('; ') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'too_many', citations: 251, limit: 250 });
    const asList = await lookup(key, { citations: Array.from({ length: 251 }, () => '267 Ga. 9') });
    expect(asList.body.error.code).toBe('too_many');
    const after = await lookup(key, { citations: ['267 Ga. 9'] });
    expect(dayLeft(after.headers)).toBe(999);
  });

  it('answers too_large (413) for a text over 64,000 characters', async () => {
    const answer = await lookup(await keyWith(), { text: 'x'.repeat(64_001) });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('too_large');
  });

  it('answers missing_fields for neither or both of text and citations, bad_parameter for a malformed item, and bad_fallback for an unknown provider', async () => {
    const key = await keyWith();
    const neither = await lookup(key, {});
    expect([neither.status, neither.body.error.code, neither.body.error.message]).toEqual([
      400,
      'missing_fields',
      'Missing required parameter(s): text or citations.',
    ]);
    const both = await lookup(key, { text: '267 Ga. 9', citations: ['267 Ga. 9'] });
    expect([both.status, both.body.error.code, both.body.error.message]).toEqual([
      400,
      'missing_fields',
      'Give either text or citations, not both.',
    ]);
    const malformed = await lookup(key, { citations: [{ volume: 1 }] });
    expect([malformed.status, malformed.body.error.code, malformed.body.error.message, malformed.body.error.field]).toEqual([
      400,
      'bad_parameter',
      'citations[0].reporter must be a string (got nothing).',
      'citations',
    ]);
    const fallback = await lookup(key, { text: '267 Ga. 9', fallback: 'westlaw' });
    expect([fallback.status, fallback.body.error.code]).toEqual([400, 'bad_fallback']);
    expect((await call('POST', '/law/citations/lookup', key, '{not json')).body.error.code).toBe('bad_json');
  });

  it('refuses a call whose citations do not fit the day’s budget, billing nothing', async () => {
    const key = await keyWith({ limits: { daily: 2 } });
    const refused = await lookup(key, { citations: ['267 Ga. 9', '471 S.E.2d 836', '97 F.3d 553'] });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('daily_limit_exceeded');
    const fits = await lookup(key, { citations: ['267 Ga. 9', '471 S.E.2d 836'] });
    expect([fits.status, dayLeft(fits.headers)]).toEqual([200, 0]);
  });

  it('says what became of a requested fallback: none configured here, and a test key never reaches it', async () => {
    const live = await lookup(await keyWith(), { text: '267 Ga. 9 and 410 U.S. 113', fallback: 'courtlistener' });
    expect(live.body.fallback).toEqual({ attempted: 0, resolved: 0, capped: 1, backfilled: 0, status: 'unavailable' });
    expect(live.headers.get('x-asof-fallback-remaining')).toBe('0');
    const test = await lookup(await keyWith({ test: true }), { text: '410 U.S. 113', fallback: 'courtlistener' });
    expect(test.body.fallback.status).toBe('skipped');
    const nothingToDo = await lookup(await keyWith(), { text: '267 Ga. 9', fallback: 'courtlistener' });
    expect(nothingToDo.body.fallback.status).toBe('none');
  });

  it('wants a key with the lookup scope', async () => {
    expect((await call('POST', '/law/citations/lookup', null, { text: '267 Ga. 9' })).body.error.code).toBe('missing_bearer');
  });
});

describe('GET /law/cases/{clusterId} and /cited-by', () => {
  it('gives a case with its citations and the number of distinct cases citing it, also at /statutes', async () => {
    const key = await keyWith();
    const marsh = await call('GET', '/law/cases/111014', key);
    expect(marsh.status).toBe(200);
    expect(marsh.body.result).toMatchObject({
      id: 111014,
      case_name: 'Marsh v. Chambers',
      date_filed: '1983-07-05',
      court: null,
      cited_by_count: 14,
      citation_count: 14,
    });
    const chester = await call('GET', '/statutes/cases/1296689', key);
    expect(chester.body.result).toMatchObject({ court: 'ga', cited_by_count: 0 });
  });

  it('answers bad_id for an id that is not a positive integer, and not_found for one the replica lacks', async () => {
    const key = await keyWith();
    for (const id of ['abc', '0', '-4', '1.5']) {
      const answer = await call('GET', `/law/cases/${id}`, key);
      expect([id, answer.status, answer.body.error.code]).toEqual([id, 400, 'bad_id']);
    }
    const missing = await call('GET', '/law/cases/999999999', key);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });

  it('lists the citing cases most-cited first with their depth, page by page', async () => {
    const key = await keyWith({ limits: { daily: 100 } });
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call('GET', `/law/cases/111014/cited-by?limit=5${cursor ? `&cursor=${cursor}` : ''}`, key);
      expect(page.status).toBe(200);
      expect(page.body.results.length).toBeLessThanOrEqual(5);
      for (const r of page.body.results) expect(r.depth).toBe(1);
      seen.push(...page.body.results.map((r: any) => r.id));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toEqual(MARSH_CITED_BY);
    const none = await call('GET', '/law/cases/999999999/cited-by', key);
    expect([none.status, none.body.results, none.body.next]).toEqual([200, [], null]);
    expect((await call('GET', '/law/cases/111014/cited-by?limit=0', key)).body.error.code).toBe('bad_limit');
    const bogus = await call('GET', '/law/cases/111014/cited-by?cursor=bogus', key);
    expect([bogus.body.error.code, bogus.body.error.field]).toEqual(['bad_parameter', 'cursor']);
  });
});

describe('the replica going away under a running server', () => {
  it('answers caselaw_unavailable (503) on every case-law endpoint', async () => {
    const key = await keyWith();
    await server.stores.stopCaseLaw();
    for (const answer of [
      await lookup(key, { text: '267 Ga. 9' }),
      await call('GET', '/law/cases/111014', key),
      await call('GET', '/law/cases/111014/cited-by', key),
    ]) {
      expect([answer.status, answer.body.error.code]).toEqual([503, 'caselaw_unavailable']);
      expect(answer.headers.get('retry-after')).not.toBeNull();
    }
  });
});
