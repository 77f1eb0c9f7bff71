import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, inject, it } from 'vitest';
import { type AsofClient, AsofError, createAsofClient, type ErrorCode, isAsofError, unwrap } from '../../src/index.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const { url, siteUrl, dataDir, keys } = inject('asof');

/** A client on one of the fixture's keys: the last few of the pool, which the other http suites use least. */
let next = 0;
const client = (): AsofClient => createAsofClient({ baseUrl: url, key: keys.pool.at(-1 - (next++ % 4))! });
const publicClient = createAsofClient({ baseUrl: url });

/** The error a call ends in, for the unhappy paths. */
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail('expected an AsofError'),
    (e: unknown) => e as AsofError,
  );

/** The `asof` command against the fixture's data dir (through the running server), as a second terminal would. */
function asofCommand(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const US_112B = { jurisdiction: 'us', citation: '1 U.S.C. § 112b', asOf: '2019-03-01' } as const;

describe('@asof/client against the local server: the section in force on a date', () => {
  it('looks up 1 U.S.C. § 112b as of 2019-03-01: the 2013 compiled edition, with provenance and rate-limit headers', async () => {
    const { data, error, response } = await client().GET('/law/lookup', { params: { query: US_112B } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toMatch(/"minute";q=\d+;w=60/);
    const v = data!.result;
    expect(v.citation).toMatchObject({ jurisdiction: 'us', corpus: 'statutes', key: '1-112b', display: '1 U.S.C. § 112b' });
    expect(v.catchline).toBe('United States international agreements; transmission to Congress');
    expect(v.bodyText).toMatch(/^\(a\) The Secretary of State shall transmit to the Congress the text of any international agreement/);
    expect(v).toMatchObject({
      status: 'active',
      temporalBasis: 'compiled-edition',
      validFrom: '2013-07-26T00:00:00-04:00',
      validTo: '2022-01-27T00:00:00-05:00',
    });
    expect(v.provenance).toMatchObject({
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip',
      versionLabel: '113-31',
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(v.permalink.startsWith(`${siteUrl}/law/us/statutes/1-112b`)).toBe(true);
  });

  it('answers the later version after the 2022 edition, and the same by POST as by GET, on /statutes/* as on /law/*', async () => {
    const before = await unwrap(client().GET('/law/lookup', { params: { query: US_112B } }));
    const after = await unwrap(client().GET('/law/lookup', { params: { query: { ...US_112B, asOf: '2023-01-01' } } }));
    expect(after.result.validFrom).toBe('2022-01-27T00:00:00-05:00');
    expect(after.result.provenance.contentHash).not.toBe(before.result.provenance.contentHash);
    const posted = await unwrap(client().POST('/law/lookup', { body: US_112B }));
    const aliased = await unwrap(client().POST('/statutes/lookup', { body: US_112B }));
    expect(posted).toEqual(before);
    expect(aliased).toEqual(before);
  });

  it('gives the quotable text only, by GET and POST', async () => {
    const got = await unwrap(client().GET('/law/text', { params: { query: US_112B } }));
    const posted = await unwrap(client().POST('/law/text', { body: US_112B }));
    expect(got.result.citation.key).toBe('1-112b');
    expect(got.result.versionLabel).toBe('113-31');
    expect(got.result.bodyText).toMatch(/^\(a\) The Secretary of State shall transmit/);
    expect(got.result).not.toHaveProperty('provenance');
    expect(posted).toEqual(got);
  });

  it('answers a pinpoint with the subdivision it names (Fed. R. App. P. 32(a)(7) on 2010-06-01: 14,000 words)', async () => {
    const { result } = await unwrap(
      client().GET('/law/lookup', {
        params: { query: { jurisdiction: 'us', corpus: 'rules', citation: 'Fed. R. App. P. 32(a)(7)', asOf: '2010-06-01' } },
      }),
    );
    expect(result.citation.key).toBe('frap-32');
    expect(result.pinpoint?.text).toMatch(/14,000 words/);
  });
});

describe('@asof/client: search, coverage, formats', () => {
  it('searches the D.C. Code in force on 2024-04-01, by GET and POST', async () => {
    const query = { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01', limit: 5 };
    const got = await unwrap(client().GET('/law/search', { params: { query } }));
    expect(got.results.map((hit) => hit.citation.key)).toContain('22-404.05');
    const hit = got.results.find((h) => h.citation.key === '22-404.05')!;
    expect(hit).toMatchObject({ catchline: 'Strangulation.', status: 'active', versionLabel: '2024-03-26' });
    expect(hit.snippet).toMatch(/<b>strangulation<\/b>/);
    const posted = await unwrap(client().POST('/statutes/search', { body: query }));
    expect(posted).toEqual(got);
    const afterRepeal = await unwrap(client().GET('/law/search', { params: { query: { ...query, asOf: '2024-07-01' } } }));
    expect(afterRepeal.results.map((h) => h.citation.key)).not.toContain('22-404.05');
  });

  it('reads coverage without a key, by GET and POST', async () => {
    const query = { jurisdiction: 'us', corpus: 'statutes' } as const;
    const got = await unwrap(publicClient.GET('/law/coverage', { params: { query } }));
    const [code] = got.coverage;
    expect(code).toMatchObject({ jurisdiction: 'us', corpus: 'statutes', name: 'United States Code', coverageFrom: '2013-07-26' });
    expect(code!.titles).toContainEqual(expect.objectContaining({ title: '1', name: 'General Provisions' }));
    const posted = await unwrap(publicClient.POST('/law/coverage', { body: query }));
    expect(posted.coverage).toEqual(got.coverage);
  });

  it('gives the Ninth Circuit’s brief limits in force on 2010-06-01, tied to the rule text read', async () => {
    const { result } = await unwrap(
      client().GET('/law/format', { params: { query: { jurisdiction: 'us', court: 'ca9', asOf: '2010-06-01' } } }),
    );
    const [ca9] = result;
    expect(ca9).toMatchObject({ court: 'ca9', level: 'intermediate-appellate', governingRuleKey: 'frap-32' });
    expect(ca9!.limits).toContainEqual(
      expect.objectContaining({ document: 'principal brief', basis: 'words', words: 14_000, ruleKey: 'frap-32' }),
    );
    expect(ca9!.rulePins['frap-32']).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('@asof/client: case law', () => {
  it('resolves the case citations of a text, and a list of citations', async () => {
    const found = await unwrap(
      client().POST('/law/citations/lookup', { body: { text: 'Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996)' } }),
    );
    expect(found.results.map((r) => [r.citation, r.status])).toEqual([
      ['267 Ga. 9', 200],
      ['471 S.E.2d 836', 200],
    ]);
    expect(found.results[0]!.clusters[0]).toMatchObject({ id: 1296689, case_name: 'Chester v. State', date_filed: '1996-05-06' });
    const listed = await unwrap(
      client().POST('/law/citations/lookup', {
        body: { citations: ['267 Ga. 9', { volume: '12', reporter: 'Foo.', page: '3' }, { volume: '999', reporter: 'Ga.', page: '1' }] },
      }),
    );
    expect(listed.results.map((r) => [r.status, r.error_message])).toEqual([
      [200, ''],
      [400, "Unknown reporter 'Foo.' in '12 Foo. 3'."],
      [404, "Citation not found: '999 Ga. 1'."],
    ]);
  });

  it('reads a case by its cluster id (a path parameter) and pages through the cases citing it', async () => {
    const marsh = await unwrap(client().GET('/law/cases/{clusterId}', { params: { path: { clusterId: '111014' } } }));
    expect(marsh.result).toMatchObject({ id: 111014, case_name: 'Marsh v. Chambers', date_filed: '1983-07-05', cited_by_count: 14 });
    const first = await unwrap(
      client().GET('/law/cases/{clusterId}/cited-by', { params: { path: { clusterId: '111014' }, query: { limit: 2 } } }),
    );
    expect(first.results.map((c) => c.case_name)).toEqual(['Lynch v. Donnelly', 'WALLACE, GOVERNOR OF ALABAMA, et al. v. JAFFREE et al.']);
    expect(first.next).toEqual(expect.any(String));
    const second = await unwrap(
      client().GET('/law/cases/{clusterId}/cited-by', {
        params: { path: { clusterId: '111014' }, query: { limit: 2, cursor: first.next! } },
      }),
    );
    expect(second.results).toHaveLength(2);
    expect(second.results.map((c) => c.id)).not.toContain(first.results[0]!.id);
    const missing = await failure(unwrap(client().GET('/law/cases/{clusterId}', { params: { path: { clusterId: '4' } } })));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('@asof/client: errors carry the spec’s code', () => {
  it('401 without a key (missing_bearer) and with a revoked one (invalid_key); 403 without the scope (missing_scope)', async () => {
    const lookup = (asof: AsofClient) => unwrap(asof.GET('/law/lookup', { params: { query: US_112B } }));
    const noKey = await failure(lookup(publicClient));
    expect(noKey).toBeInstanceOf(AsofError);
    expect(noKey).toMatchObject({ status: 401, code: 'missing_bearer', requestId: expect.any(String) });
    expect(noKey.message).toMatch(/Authorization: Bearer/);
    const revoked = await failure(lookup(createAsofClient({ baseUrl: url, key: keys.revoked })));
    expect(revoked).toMatchObject({ status: 401, code: 'invalid_key' });
    const noScope = await failure(lookup(createAsofClient({ baseUrl: url, key: keys.noScope })));
    expect(noScope).toMatchObject({ status: 403, code: 'missing_scope', requiredScope: 'lookup' });
  });

  it('404 no_edition_on_file with didYouMean: before the first version, and after a section was deleted', async () => {
    const before = await failure(
      unwrap(client().GET('/law/lookup', { params: { query: { jurisdiction: 'us', citation: '1-112b', asOf: '2010-01-01' } } })),
    );
    expect(isAsofError(before, 'no_edition_on_file')).toBe(true);
    expect(before.status).toBe(404);
    expect(before.didYouMean).toEqual([
      expect.objectContaining({
        citation: '1-112b',
        reason: 'earliest-version',
        validFrom: '2013-07-26T00:00:00-04:00',
        versionLabel: '113-31',
      }),
    ]);
    const deleted = await failure(
      unwrap(client().POST('/law/lookup', { body: { jurisdiction: 'dc', citation: 'D.C. Code § 22-404.05', asOf: '2024-07-01' } })),
    );
    expect(deleted).toMatchObject({ status: 404, code: 'no_edition_on_file' });
    expect(deleted.didYouMean).toEqual([
      expect.objectContaining({ citation: '22-404.05', reason: 'latest-version', validTo: '2024-06-22T00:00:00-04:00' }),
    ]);
    const notCarried = await failure(unwrap(client().GET('/law/lookup', { params: { query: { jurisdiction: 'zz', citation: '1' } } })));
    expect(notCarried).toMatchObject({ status: 404, code: 'not_carried', coverageUrl: `${url}/law/coverage` });
  });

  it('400 bad_as_of for a date that does not exist, thrown by unwrap or returned as a typed error', async () => {
    const query = { ...US_112B, asOf: '2019-02-30' };
    const thrown = await failure(unwrap(client().GET('/law/lookup', { params: { query } })));
    expect(thrown).toMatchObject({
      status: 400,
      code: 'bad_as_of',
      message: "asOf must be a calendar date written YYYY-MM-DD (got '2019-02-30').",
    });
    const { data, error, response } = await client().POST('/law/lookup', { body: query });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe('bad_as_of');
    expect(error?.error.requestId).toBe(response.headers.get('x-request-id'));
    // The operation's error codes as the document lists them, each status's own, not any string.
    expectTypeOf<NonNullable<typeof error>['error']['code']>().toExtend<ErrorCode>();
    expectTypeOf<'bad_as_of' | 'no_edition_on_file' | 'missing_bearer'>().toExtend<NonNullable<typeof error>['error']['code']>();
    expectTypeOf<'bad_id'>().not.toExtend<NonNullable<typeof error>['error']['code']>();
  });

  it('429 rate_limited with Retry-After, for a key allowed one request a minute', async () => {
    const created = await asofCommand([
      'bin/asof.js',
      'keys',
      'create',
      '--name',
      'client one a minute',
      '--per-minute',
      '1',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const asof = createAsofClient({ baseUrl: url, key: (JSON.parse(created.stdout) as { key: string }).key });
    // Minutes are fixed UTC windows: two calls may straddle a boundary, three calls in a few seconds cannot straddle two.
    const outcomes: unknown[] = [];
    for (let i = 0; i < 3 && !(outcomes.at(-1) instanceof AsofError); i++) {
      outcomes.push(await unwrap(asof.GET('/law/lookup', { params: { query: US_112B } })).catch((e: unknown) => e));
    }
    expect(outcomes[0]).toMatchObject({ result: { citation: { key: '1-112b' } } });
    const limited = outcomes.at(-1) as AsofError;
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(limited.retryAfter).toBeLessThanOrEqual(60);
  });
});

describe('the README example (clients/typescript/examples/quick-start.ts)', () => {
  it('runs as written against the server, with a key from the environment', async () => {
    const run = await asofCommand(['--import', 'tsx', 'clients/typescript/examples/quick-start.ts'], {
      ASOF_KEY: keys.pool.at(-5)!,
      ASOF_BASE_URL: url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^1 U\.S\.C\. § 112b 2013-07-26T00:00:00-04:00 2022-01-27T00:00:00-05:00 sha256:[0-9a-f]{64}$/),
      '404 no_edition_on_file earliest-version 2013-07-26T00:00:00-04:00',
      "bad_as_of asOf must be a calendar date written YYYY-MM-DD (got '2019-02-30').",
      'D.C. Code § 22-404.05 Strangulation.',
    ]);
  });
});
