import { describe, expect, it } from 'vitest';
import { call, fixture, get, post } from './client.ts';

const localDate = (iso: string) => iso.slice(0, 10);

describe('GET /law/lookup: the version in force on a date', () => {
  it('answers 1 U.S.C. § 1 as of 2019-03-01 with provenance, from the 2013 compiled edition', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: '1 U.S.C. § 1', asOf: '2019-03-01' });
    expect(r.status).toBe(200);
    const v = r.body.result;
    expect(v.citation).toEqual({
      jurisdiction: 'us',
      corpus: 'statutes',
      key: '1-1',
      display: '1 U.S.C. § 1',
      parts: expect.objectContaining({ title: '1', section: '1' }),
    });
    expect(v.catchline).toMatch(/Words denoting number, gender/);
    expect(v.bodyText).toMatch(/^In determining the meaning of any Act of Congress/);
    expect(v.status).toBe('active');
    expect(v.temporalBasis).toBe('compiled-edition');
    expect(v.validFrom).toBe('2013-07-26T00:00:00-04:00');
    expect(localDate(v.validFrom) <= '2019-03-01' && '2019-03-01' < localDate(v.validTo)).toBe(true);
    expect(v.provenance).toMatchObject({
      // OLRC's download address of Title 1 at the release point the version was first read from.
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip',
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      versionLabel: '113-31',
      sourceSystem: expect.any(String),
      retrievedAt: expect.any(String),
    });
    // The permalink opens the version answered (its first day), not whatever is in force when it is followed.
    expect(v.permalink).toBe(`${fixture().siteUrl}/law/us/statutes/1-1?asOf=2013-07-26`);
    expect(v.disclaimer).toMatch(/Unofficial/);
    expect(v.note).toMatch(/compiled edition/);
    expect(typeof v.ingestedAt).toBe('string');
  });

  it.each([
    ['us', '1-1'],
    ['us', '1 USC 1'],
    ['us', '1 U.S.C. 1'],
    ['us', '1 U.S.C. §1'],
  ])('reads %s %j as the key 1-1', async (jurisdiction, citation) => {
    const r = await get('/law/lookup', { jurisdiction, citation, asOf: '2019-03-01' });
    expect(r.status).toBe(200);
    expect(r.body.result.citation.key).toBe('1-1');
  });

  it.each([
    ['dc', 'D.C. Code § 22-404.05', '22-404.05', '2024-04-01'],
    ['dc', '22-404.05', '22-404.05', '2024-04-01'],
    ['us', 'Fed. R. App. P. 32', 'frap-32', '2025-01-01'],
    ['us', 'FRAP 32(a)(5)', 'frap-32', '2025-01-01'],
    ['nd', 'N.D.R.App.P. 32', 'ndrappp-32', '2026-03-07'],
  ])('reads %s %j as the key %s', async (jurisdiction, citation, key, asOf) => {
    const r = await get('/law/lookup', { jurisdiction, citation, asOf });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.citation.key).toBe(key);
  });

  it('finds D.C. Code § 22-404.05 only while it existed (2024-03-18 … 2024-06-22)', async () => {
    const on = async (asOf: string) => get('/law/lookup', { jurisdiction: 'dc', citation: '22-404.05', asOf });
    const first = await on('2024-03-18');
    expect(first.status).toBe(200);
    expect(first.body.result.validFrom).toBe('2024-03-18T00:00:00-04:00');
    expect(first.body.result.catchline).toBe('Strangulation.');
    expect((await on('2024-06-21')).status).toBe(200);

    const after = await on('2024-06-22');
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe('no_edition_on_file');
    expect(after.body.error.didYouMean).toEqual([
      expect.objectContaining({ citation: '22-404.05', reason: 'latest-version', validTo: '2024-06-22T00:00:00-04:00' }),
    ]);

    const before = await on('2024-03-17');
    expect(before.status).toBe(404);
    expect(before.body.error.didYouMean[0]).toMatchObject({ reason: 'earliest-version', validFrom: '2024-03-18T00:00:00-04:00' });
  });

  it('never answers with a version that was not in force on the date asked', async () => {
    const dates = [
      '2021-10-17',
      '2021-10-18',
      '2022-01-01',
      '2022-06-30',
      '2023-03-15',
      '2024-01-01',
      '2024-03-19',
      '2024-06-30',
      '2024-10-19',
      '2025-06-01',
    ];
    for (const citation of ['9-204.01', '2-534', '28-3814', '1-204.46', '22-4234', '22-404.05']) {
      for (const asOf of dates) {
        const r = await get('/law/lookup', { jurisdiction: 'dc', citation, asOf });
        if (r.status === 200) {
          const v = r.body.result;
          expect(localDate(v.validFrom) <= asOf && asOf < localDate(v.validTo), `${citation} ${asOf}`).toBe(true);
        } else {
          expect(r.status).toBe(404);
          expect(r.body.error.code).toBe('no_edition_on_file');
        }
      }
    }
  });

  it('defaults asOf to today (UTC)', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: '1-1' });
    expect(r.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(localDate(r.body.result.validFrom) <= today && today < localDate(r.body.result.validTo)).toBe(true);
  });

  it('suggests neighbouring keys for a key that does not exist', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: '1-112c', asOf: '2019-03-01' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('no_edition_on_file');
    expect(r.body.error.didYouMean.length).toBeGreaterThan(0);
    expect(r.body.error.didYouMean.every((s: { reason: string }) => s.reason === 'similar-key')).toBe(true);
    expect(r.body.error.didYouMean.map((s: { citation: string }) => s.citation)).toContain('1-112b');
  });

  it('says so when a citation of another jurisdiction is asked of this one', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'dc', citation: '1 U.S.C. § 1' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('no_edition_on_file');
    expect(r.body.error.message).toMatch(/jurisdiction 'us'/);
  });

  it('is not_carried for a jurisdiction or corpus with nothing held', async () => {
    const ca = await get('/law/lookup', { jurisdiction: 'ca', citation: '1' });
    expect([ca.status, ca.body.error.code]).toEqual([404, 'not_carried']);
    const regs = await get('/law/lookup', { jurisdiction: 'us', citation: '1-1', corpus: 'regulations' });
    expect([regs.status, regs.body.error.code]).toEqual([404, 'not_carried']);
  });
});

describe('lookup validation', () => {
  it.each([
    [{ citation: '1-1' }, 'missing_fields', /jurisdiction/],
    [{ jurisdiction: 'us' }, 'missing_fields', /citation/],
    [{ jurisdiction: '  ', citation: '' }, 'missing_fields', /jurisdiction, citation/],
    [{ jurisdiction: 'us', citation: '1-1', asOf: '2019-02-30' }, 'bad_as_of', /YYYY-MM-DD/],
    [{ jurisdiction: 'us', citation: '1-1', asOf: '2019-3-1' }, 'bad_as_of', /2019-3-1/],
    [{ jurisdiction: 'us', citation: '1-1', asOf: '' }, 'bad_as_of', /asOf/],
    [{ jurisdiction: 'us', citation: '1-1', corpus: 'statute' }, 'bad_corpus', /statutes, rules/],
  ])('%j → 400 %s', async (query, code, message) => {
    for (const r of [await get('/law/lookup', query), await post('/law/lookup', query)]) {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('rejects a POST body that is not a JSON object', async () => {
    const broken = await call('POST', '/law/lookup', { rawBody: '{"jurisdiction": "us",' });
    expect([broken.status, broken.body.error.code]).toEqual([400, 'bad_json']);
    const array = await call('POST', '/law/lookup', { rawBody: '["us"]' });
    expect([array.status, array.body.error.code]).toEqual([400, 'bad_json']);
  });

  it('treats a JSON number where a string is wanted as invalid, not as a crash', async () => {
    const r = await post('/law/lookup', { jurisdiction: 'us', citation: '1-1', asOf: 20190301 });
    expect([r.status, r.body.error.code]).toEqual([400, 'bad_as_of']);
  });
});

describe('GET and POST, /law and /statutes: identical answers', () => {
  it('gives the same body for all four forms', async () => {
    const params = { jurisdiction: 'dc', citation: '22-404.05', asOf: '2024-04-01' };
    const forms = await Promise.all([
      get('/law/lookup', params),
      post('/law/lookup', params),
      get('/statutes/lookup', params),
      post('/statutes/lookup', params),
    ]);
    for (const f of forms) expect(f.status).toBe(200);
    for (const f of forms.slice(1)) expect(f.body).toEqual(forms[0]!.body);
  });
});

describe('GET /law/text', () => {
  it('answers the quotable parts only', async () => {
    const r = await get('/law/text', { jurisdiction: 'us', citation: 'frap-32', asOf: '2025-01-01' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.result).sort()).toEqual(
      [
        'bodyText',
        'catchline',
        'citation',
        'disclaimer',
        'historyNote',
        'note',
        'permalink',
        'status',
        'temporalBasis',
        'versionLabel',
      ].sort(),
    );
    expect(r.body.result.citation.display).toBe('Fed. R. App. P. 32');
    expect(r.body.result.bodyText).toMatch(/14-point/);
  });

  it('shares lookup’s miss semantics', async () => {
    const r = await get('/law/text', { jurisdiction: 'us', citation: 'frap-32', asOf: '2006-12-31' });
    expect([r.status, r.body.error.code]).toEqual([404, 'no_edition_on_file']);
  });
});

describe('authentication', () => {
  const params = { jurisdiction: 'us', citation: '1-1' };
  it.each([
    ['no header', undefined, 'missing_bearer', 401],
    ['empty bearer', 'Bearer ', 'missing_bearer', 401],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'missing_bearer', 401],
    ['garbage', 'Bearer nonsense', 'invalid_key', 401],
  ])('%s → %s', async (_what, header, code, status) => {
    const r = await call('GET', '/law/lookup', {
      query: params,
      key: null,
      ...(header !== undefined && { headers: { authorization: header } }),
    });
    expect([r.status, r.body.error.code]).toEqual([status, code]);
  });

  it('rejects a revoked key as invalid_key and never echoes the key', async () => {
    const { keys } = fixture();
    const r = await get('/law/lookup', params, keys.revoked);
    expect([r.status, r.body.error.code]).toEqual([401, 'invalid_key']);
    expect(r.text).not.toContain(keys.revoked);
  });

  it('rejects a well-formed key that was never issued', async () => {
    const { keys } = fixture();
    const forged = keys.lookup.slice(0, 10) + 'A'.repeat(keys.lookup.length - 10);
    const r = await get('/law/lookup', params, forged);
    expect([r.status, r.body.error.code]).toEqual([401, 'invalid_key']);
  });

  it('gives 403 missing_scope naming the scope wanted', async () => {
    const r = await get('/law/lookup', params, fixture().keys.noScope);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'missing_scope', requiredScope: 'lookup' });
  });

  it('matches the Bearer prefix case-insensitively', async () => {
    const r = await call('GET', '/law/lookup', { query: params, key: null, headers: { authorization: `bEaReR ${fixture().keys.lookup}` } });
    expect(r.status).toBe(200);
  });

  it('accepts a test key', async () => {
    expect((await get('/law/lookup', params, fixture().keys.test)).status).toBe(200);
  });

  it('checks the key before the parameters', async () => {
    const r = await get('/law/lookup', {}, null);
    expect(r.body.error.code).toBe('missing_bearer');
  });
});

describe('envelope and headers', () => {
  it('carries x-request-id everywhere, repeats it in errors, and sends no CORS headers', async () => {
    const ok = await get('/law/lookup', { jurisdiction: 'us', citation: '1-1' });
    const bad = await get('/law/lookup', { jurisdiction: 'us' });
    for (const r of [ok, bad]) {
      expect(r.headers.get('x-request-id')).toMatch(/\S{8,}/);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect([...r.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    expect(bad.body.error.requestId).toBe(bad.headers.get('x-request-id'));
    expect(ok.headers.get('x-request-id')).not.toBe(bad.headers.get('x-request-id'));
  });

  it('answers unknown paths and methods with the envelope', async () => {
    const nowhere = await get('/law/nowhere');
    expect([nowhere.status, nowhere.body.error.code]).toEqual([404, 'no_route']);
    const del = await call('POST', '/law/quality');
    expect([del.status, del.body.error.code]).toEqual([405, 'method_not_allowed']);
    expect(del.headers.get('allow')).toBe('GET');
  });

  it('refuses an oversized body with 413 too_large', async () => {
    const r = await call('POST', '/law/lookup', { rawBody: JSON.stringify({ jurisdiction: 'us', citation: 'x'.repeat(1_100_000) }) });
    expect([r.status, r.body.error.code]).toEqual([413, 'too_large']);
  });
});

describe('collections and titles that are not carried', () => {
  const coverageOf = (corpus: string) => `${fixture().url}/law/coverage?jurisdiction=us&corpus=${corpus}`;

  it('reads Sup. Ct. R. 33 as a citation but says the collection is not carried, and where coverage is', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: 'Sup. Ct. R. 33' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('no_edition_on_file');
    expect(r.body.error.message).toMatch(/Rules of the Supreme Court of the United States is not a carried collection/);
    expect(r.body.error.message).toContain(`See ${coverageOf('rules')} for what is.`);
    expect(r.body.error.coverageUrl).toBe(coverageOf('rules'));
    expect(r.body.error.didYouMean).toEqual([]);
  });

  it('says a US Code title is not carried, names it, and points at the coverage that lists the titles that are', async () => {
    for (const citation of ['28 U.S.C. § 1291', '28-1291']) {
      for (const path of ['/law/lookup', '/law/text']) {
        const r = await get(path, { jurisdiction: 'us', citation, asOf: '2019-03-01' });
        expect([r.status, r.body.error.code]).toEqual([404, 'no_edition_on_file']);
        expect(r.body.error.message).toBe(
          `No version of 28 U.S.C. § 1291 is on file: Title 28 of the United States Code (Judiciary and Judicial Procedure) is not carried. See ${coverageOf('statutes')} for the titles that are.`,
        );
        expect(r.body.error.didYouMean).toEqual([]);
        expect(r.body.error.coverageUrl).toBe(coverageOf('statutes'));
      }
    }
    // The address it names answers, without a key, with the titles that are carried
    const coverage = await fetch(coverageOf('statutes'));
    const body = (await coverage.json()) as { coverage: Array<{ titles: Array<{ title: string }> }> };
    expect(coverage.status).toBe(200);
    const titles = body.coverage[0]!.titles.map((t) => t.title);
    expect(titles).toContain('1');
    expect(titles).not.toContain('28');
  });

  it('says so for a title of the D.C. Code too, suggesting nothing from the titles around it', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'dc', citation: 'D.C. Code § 16-1001' });
    expect([r.status, r.body.error.code]).toEqual([404, 'no_edition_on_file']);
    expect(r.body.error.message).toMatch(
      /^No version of D\.C\. Code § 16-1001 is on file: Title 16 of the Code of the District of Columbia is not carried\./,
    );
    expect(r.body.error.didYouMean).toEqual([]);
  });

  it('suggests keys of the same title only, for a key that does not exist in a carried title', async () => {
    // 22-9999 sorts between D.C. Code 22-4234 and 28-3814: only the first is of its title
    const dc = await get('/law/lookup', { jurisdiction: 'dc', citation: '22-9999', asOf: '2024-04-01' });
    expect([dc.status, dc.body.error.code]).toEqual([404, 'no_edition_on_file']);
    expect(dc.body.error.message).toBe('No version of D.C. Code § 22-9999 is on file.');
    expect(dc.body.error.coverageUrl).toBeUndefined();
    const keys = dc.body.error.didYouMean.map((s: { citation: string }) => s.citation);
    expect(keys).toContain('22-4234');
    expect(keys.every((k: string) => k.startsWith('22-'))).toBe(true);

    const usc = await get('/law/lookup', { jurisdiction: 'us', citation: '1 U.S.C. § 999', asOf: '2019-03-01' });
    expect([usc.status, usc.body.error.code]).toEqual([404, 'no_edition_on_file']);
    expect(usc.body.error.didYouMean.length).toBeGreaterThan(0);
    expect(usc.body.error.didYouMean.every((s: { citation: string }) => s.citation.startsWith('1-'))).toBe(true);
  });

  it('points not_carried at coverage too', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'ca', citation: '1' });
    expect([r.status, r.body.error.code]).toEqual([404, 'not_carried']);
    expect(r.body.error.coverageUrl).toBe(`${fixture().url}/law/coverage`);
  });
});
