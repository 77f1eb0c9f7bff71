/**
 * A section through time (issue 19): every version on file with its gaps (/law/versions), and the difference between
 * the versions in force on two dates (/law/diff), black-box over real sockets on the bundled sample corpus.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sides } from '../support/diff-sides.ts';
import { call, fixture, get, post } from './client.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const versions = (citation: string, jurisdiction = 'dc', extra: Record<string, string> = {}) =>
  get('/law/versions', { jurisdiction, citation, ...extra });
const diff = (citation: string, from: string, to: string, jurisdiction = 'dc', extra: Record<string, string> = {}) =>
  get('/law/diff', { jurisdiction, citation, from, to, ...extra });

const bodyOn = async (jurisdiction: string, citation: string, asOf: string) =>
  (await get('/law/lookup', { jurisdiction, citation, asOf })).body.result.bodyText as string;

describe('GET/POST /law/versions', () => {
  it('lists every version of a D.C. section oldest first, each with its dates, labels, hash and a permalink that opens it', async () => {
    const r = await versions('D.C. Code § 2-534');
    expect(r.status, r.text).toBe(200);
    const list = r.body.result.versions;
    expect(list.length).toBeGreaterThan(3);
    expect(r.body.result.citation).toMatchObject({ jurisdiction: 'dc', corpus: 'statutes', key: '2-534', display: 'D.C. Code § 2-534' });
    for (const [i, v] of list.entries()) {
      expect(v).toEqual({
        kind: 'version',
        validFrom: expect.stringMatching(/^\d{4}-\d\d-\d\dT00:00:00-0[45]:00$/),
        validTo: expect.any(String),
        status: 'active',
        versionLabel: expect.any(String),
        temporalBasis: 'compiled-edition',
        contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        catchline: expect.any(String),
        permalink: `${fixture().siteUrl}/law/dc/statutes/2-534?asOf=${v.validFrom.slice(0, 10)}`,
      });
      // Oldest first, each starting where the one before ended (no gap in the D.C. Code's history of this section).
      if (i > 0) expect(v.validFrom).toBe(list[i - 1].validTo);
    }
    // The hash of each version is the one a lookup on its first day answers.
    const third = list[2];
    const lookup = await get('/law/lookup', { jurisdiction: 'dc', citation: '2-534', asOf: third.validFrom.slice(0, 10) });
    expect(lookup.body.result.provenance.contentHash).toBe(third.contentHash);
    expect(lookup.body.result.permalink).toBe(third.permalink);
  });

  it('shows the deleted D.C. § 22-404.05 ending on 2024-06-22, and says it is no longer in force', async () => {
    const r = await versions('22-404.05');
    expect(r.status).toBe(200);
    const list = r.body.result.versions;
    expect(list[0].validFrom).toBe('2024-03-18T00:00:00-04:00');
    expect(list.at(-1).validTo).toBe('2024-06-22T00:00:00-04:00');
    expect(list.every((v: any) => v.kind === 'version')).toBe(true);
    expect(r.body.result.endedAt).toBe('2024-06-22T00:00:00-04:00');
    expect(r.body.result.note).toBe('No longer in force since 2024-06-22: no version on file is valid on or after that date.');
  });

  it('shows the time between the FRAP editions of 2007-2012 and of 2024 as a gap, not as a version', async () => {
    const r = await versions('Fed. R. App. P. 32(a)(7)', 'us');
    expect(r.status).toBe(200);
    const kinds = r.body.result.versions.map((v: any) => v.kind);
    const gap = r.body.result.versions.find((v: any) => v.kind === 'gap');
    expect(kinds.at(-1)).toBe('version');
    expect(kinds.at(-2)).toBe('gap');
    expect(gap).toEqual({
      kind: 'gap',
      validFrom: '2012-12-01T00:00:00-05:00',
      validTo: '2024-12-01T00:00:00-05:00',
      note: 'No version of this section is on file from 2012-12-01 until 2024-12-01: a lookup of a date in between answers no_edition_on_file.',
    });
    expect(r.body.result.versions.at(-1)).toMatchObject({ validFrom: '2024-12-01T00:00:00-05:00', validTo: '9999-12-31T23:59:59Z' });
    expect(r.body.result.endedAt).toBeNull();
    expect(r.body.result.note).toBeNull();
    // The gap is what lookup says it is.
    const inGap = await get('/law/lookup', { jurisdiction: 'us', citation: 'frap-32', asOf: '2019-06-01' });
    expect(inGap.body.error.code).toBe('no_edition_on_file');
  });

  it('lists a US Code section at both release points, by printed form', async () => {
    const r = await versions('1 U.S.C. § 112b', 'us');
    expect(r.body.result.versions.map((v: any) => [v.versionLabel, v.validFrom, v.validTo])).toEqual([
      ['113-31', '2013-07-26T00:00:00-04:00', '2022-01-27T00:00:00-05:00'],
      ['117-80', '2022-01-27T00:00:00-05:00', '9999-12-31T23:59:59Z'],
    ]);
  });

  it('answers POST and /statutes/versions the same as GET', async () => {
    const viaGet = await versions('22-404.05');
    const viaPost = await post('/law/versions', { jurisdiction: 'dc', citation: '22-404.05' });
    const alias = await get('/statutes/versions', { jurisdiction: 'dc', citation: '22-404.05' });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
    expect(alias.body).toEqual(viaGet.body);
  });

  it('misses as lookup does: not_carried, no_edition_on_file with didYouMean, missing and bad input', async () => {
    const notCarried = await versions('1-1', 'zz');
    expect([notCarried.status, notCarried.body.error.code]).toEqual([404, 'not_carried']);
    const unknown = await versions('22-404.99');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'no_edition_on_file']);
    const lookupMiss = await get('/law/lookup', { jurisdiction: 'dc', citation: '22-404.99' });
    expect(unknown.body.error.message).toBe(lookupMiss.body.error.message);
    expect(unknown.body.error.didYouMean.length).toBeGreaterThan(0);
    expect(unknown.body.error.didYouMean.every((s: any) => s.reason === 'similar-key')).toBe(true);
    const title = await versions('28 U.S.C. § 1291', 'us');
    expect(title.body.error).toMatchObject({ code: 'no_edition_on_file', didYouMean: [] });
    expect(title.body.error.message).toMatch(/Title 28 of the United States Code .* is not carried/);
    const missing = await get('/law/versions', { jurisdiction: 'dc' });
    expect([missing.status, missing.body.error.code, missing.body.error.fields]).toEqual([400, 'missing_fields', ['citation']]);
    const corpus = await versions('22-404.05', 'dc', { corpus: 'laws' });
    expect([corpus.status, corpus.body.error.code]).toEqual([400, 'bad_corpus']);
  });

  it('needs a key with the lookup scope', async () => {
    expect((await get('/law/versions', { jurisdiction: 'dc', citation: '22-404.05' }, null)).body.error.code).toBe('missing_bearer');
    const noScope = await get('/law/versions', { jurisdiction: 'dc', citation: '22-404.05' }, fixture().keys.noScope);
    expect([noScope.status, noScope.body.error.code, noScope.body.error.requiredScope]).toEqual([403, 'missing_scope', 'lookup']);
  });
});

describe('GET/POST /law/diff', () => {
  it('diffs the D.C. § 22-404.05 of 2024-03-18 and of 2024-04-01 word by word, and as a unified diff', async () => {
    const r = await diff('22-404.05', '2024-03-18', '2024-04-01');
    expect(r.status, r.text).toBe(200);
    const d = r.body.result;
    expect(d.identical).toBe(false);
    expect(d.wordLevel).toBe(true);
    expect(d.from).toMatchObject({ date: '2024-03-18', version: { validFrom: '2024-03-18T00:00:00-04:00', versionLabel: '2024-03-18' } });
    expect(d.to).toMatchObject({ date: '2024-04-01', version: { validFrom: '2024-03-26T00:00:00-04:00', versionLabel: '2024-03-26' } });
    expect(d.to.version.permalink).toBe(`${fixture().siteUrl}/law/dc/statutes/22-404.05?asOf=2024-03-26`);
    // The edit script rebuilds both texts exactly as lookup answers them.
    expect(sides(d.operations)).toEqual({
      from: await bodyOn('dc', '22-404.05', '2024-03-18'),
      to: await bodyOn('dc', '22-404.05', '2024-04-01'),
    });
    const changes = d.operations.filter((o: any) => o.op !== 'keep');
    expect(changes).toContainEqual({ op: 'remove', text: expect.stringContaining('D.C. Official Code') });
    expect(changes).toContainEqual({ op: 'add', text: expect.stringContaining('22-404.06') });
    expect(d.words.removed).toBeGreaterThan(0);
    expect(d.words.kept).toBeGreaterThan(d.words.removed + d.words.added);
    expect(d.unified).toMatch(
      /^--- dc\/statutes\/22-404\.05@2024-03-18\n\+\+\+ dc\/statutes\/22-404\.05@2024-03-26\n@@ -\d+,\d+ \+\d+,\d+ @@\n/,
    );
    expect(d.unified).toContain('\n-(3) The person was, within 5 years');
    expect(d.unified).toContain('through 22-404.05, 22-404.06 arising');
  });

  it('diffs a US Code section across release points: what 117-80 added to 1 U.S.C. § 112b', async () => {
    const r = await diff('1 U.S.C. § 112b', '2019-03-01', '2024-01-01', 'us');
    expect(r.status).toBe(200);
    const d = r.body.result;
    expect([d.from.version.versionLabel, d.to.version.versionLabel]).toEqual(['113-31', '117-80']);
    expect(d.operations.filter((o: any) => o.op === 'add').map((o: any) => o.text)).toContainEqual(
      expect.stringContaining('It is the sense of Congress that the executive branch should not prescribe'),
    );
    expect(sides(d.operations).to).toBe(await bodyOn('us', '1-112b', '2024-01-01'));
  });

  it('says identical when the same version is in force on both dates, keeping the whole text', async () => {
    const r = await diff('22-404.05', '2024-03-27', '2024-06-21');
    expect(r.status).toBe(200);
    const d = r.body.result;
    expect(d.identical).toBe(true);
    expect(d.from.version).toEqual(d.to.version);
    expect(d.operations).toEqual([{ op: 'keep', text: await bodyOn('dc', '22-404.05', '2024-04-01') }]);
    expect(d.words.removed + d.words.added).toBe(0);
    expect(d.unified).toBe('');
  });

  it('diffs FRAP 32 of 2010 against 2024, from the older date to the newer or back', async () => {
    const forward = await diff('frap-32', '2010-06-01', '2025-01-01', 'us');
    const back = await diff('frap-32', '2025-01-01', '2010-06-01', 'us');
    expect(forward.status).toBe(200);
    expect(sides(back.body.result.operations)).toEqual({
      from: sides(forward.body.result.operations).to,
      to: sides(forward.body.result.operations).from,
    });
  });

  it('answers 404 with the lookup’s code when nothing is in force on one date, naming that date', async () => {
    const after = await diff('22-404.05', '2024-04-01', '2024-07-01');
    expect(after.status).toBe(404);
    expect(after.body.error).toMatchObject({ code: 'no_edition_on_file', fields: ['to'] });
    expect(after.body.error.message).toMatch(
      /^Nothing is in force on to=2024-07-01: D\.C\. Code § 22-404\.05 has no version in force on 2024-07-01/,
    );
    expect(after.body.error.didYouMean).toEqual([
      expect.objectContaining({ reason: 'latest-version', validTo: '2024-06-22T00:00:00-04:00' }),
    ]);

    const gap = await diff('frap-32', '2015-01-01', '2025-01-01', 'us');
    expect(gap.body.error).toMatchObject({ code: 'no_edition_on_file', fields: ['from'] });
    expect(gap.body.error.message).toContain('No edition on file shows its text from 2012-12-01 until 2024-12-01.');

    const both = await diff('22-404.05', '2023-01-01', '2025-01-01');
    expect(both.body.error).toMatchObject({ code: 'no_edition_on_file', fields: ['from', 'to'] });
    expect(both.body.error.message).toMatch(/^Nothing is in force on either date \(from=2023-01-01, to=2025-01-01\)/);

    const notCarried = await diff('1-1', '2020-01-01', '2021-01-01', 'zz');
    expect([notCarried.status, notCarried.body.error.code]).toEqual([404, 'not_carried']);
  });

  it('refuses bad dates with bad_as_of naming the parameter, and missing ones with missing_fields', async () => {
    const badFrom = await diff('22-404.05', '2024-02-30', '2024-04-01');
    expect([badFrom.status, badFrom.body.error.code, badFrom.body.error.field]).toEqual([400, 'bad_as_of', 'from']);
    expect(badFrom.body.error.message).toBe("from must be a calendar date written YYYY-MM-DD (got '2024-02-30').");
    const badTo = await post('/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-04-01', to: '04/01/2024' });
    expect([badTo.status, badTo.body.error.code, badTo.body.error.field]).toEqual([400, 'bad_as_of', 'to']);
    const emptyTo = await diff('22-404.05', '2024-04-01', '');
    expect([emptyTo.status, emptyTo.body.error.code]).toEqual([400, 'bad_as_of']);
    const missing = await get('/law/diff', { jurisdiction: 'dc', citation: '22-404.05' });
    expect([missing.status, missing.body.error.code, missing.body.error.fields]).toEqual([400, 'missing_fields', ['from', 'to']]);
    const number = await post('/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: 20240401, to: '2024-04-01' });
    expect([number.status, number.body.error.code]).toEqual([400, 'bad_as_of']);
  });

  it('answers POST and /statutes/diff the same as GET', async () => {
    const params = { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-18', to: '2024-04-21' };
    const viaGet = await get('/law/diff', params);
    const viaPost = await post('/law/diff', params);
    const alias = await call('POST', '/statutes/diff', { body: params });
    expect(viaGet.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
    expect(alias.body).toEqual(viaGet.body);
  });
});

/** A key of this file's own (through the CLI, against the running server's stores), so its counters are exact. */
async function ownKey(): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/asof.js'), 'keys', 'create', '--name', 'timeline', '--json', '--data-dir', fixture().dataDir],
    {
      cwd: ROOT,
    },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  await new Promise((resolve) => child.on('close', resolve));
  return JSON.parse(out).key as string;
}

const dayLeft = (headers: Headers) => Number(/"day";r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

describe('metering of versions and diff', () => {
  it('bills one unit a call (scope lookup), and nothing for a refused input', async () => {
    const key = await ownKey();
    const first = await get('/law/versions', { jurisdiction: 'dc', citation: '22-404.05' }, key);
    const second = await get('/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-18', to: '2024-04-01' }, key);
    const refused = await get('/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: 'yesterday', to: '2024-04-01' }, key);
    const third = await post('/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-18', to: '2024-07-01' }, key);
    const fourth = await get('/law/versions', { jurisdiction: 'dc', citation: '22-404.05' }, key);
    expect([first.status, second.status, refused.status, third.status, fourth.status]).toEqual([200, 200, 400, 404, 200]);
    expect(first.headers.get('ratelimit-policy')).toMatch(/"day";q=\d+/);
    expect(dayLeft(first.headers) - dayLeft(second.headers)).toBe(1);
    // A 404 is an answer and is billed; the 400 was not.
    expect(dayLeft(second.headers) - dayLeft(fourth.headers)).toBe(2);
  }, 60_000);
});
