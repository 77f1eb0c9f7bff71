import { describe, expect, it } from 'vitest';
import { call, fixture, get, post } from './client.ts';

const dayLeft = (headers: Headers) => Number(/"day";r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

describe('GET/POST /law/format: court filing formats read from rule text', () => {
  it('answers the Ninth Circuit from FRAP 32, every value tied to a quote, with rule entries to verify', async () => {
    const r = await get('/law/format', { jurisdiction: 'us', court: 'ca9' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.disclaimer).toMatch(/a reading of the rules, not the rules/);
    expect(r.body.note).toMatch(/highest court first/);
    expect(r.body.result).toHaveLength(1);
    const f = r.body.result[0];
    expect(f).toMatchObject({
      id: 'ca9-2024-12-01',
      jurisdiction: 'us',
      court: 'ca9',
      level: 'intermediate-appellate',
      coverage: 'specified',
      governingRuleKey: 'frap-32',
      minSizePt: null,
      lineSpacing: 'double',
      margins: { all: 1 },
      effectiveFrom: '2024-12-01',
      stale: false,
      staleDetail: null,
      certificateOfCompliance: { required: true, ruleKey: 'frap-32' },
    });
    expect(f.ruleKeys).toEqual(['frap-32', 'frap-28', 'frap-28.1', 'frap-29', 'frap-27', 'frap-40']);
    expect(f.typeface.faceMinimums).toEqual([
      expect.objectContaining({
        face: 'proportionally spaced',
        minSizePt: 14,
        quote: 'A proportionally spaced face must be 14-point or larger.',
      }),
      expect.objectContaining({ face: 'monospaced', maxCharsPerInch: 10.5 }),
    ]);
    expect(f.basis.paperSize).toBe('Fed. R. App. P. 32: “The brief must be on 8 1/2 by 11 inch paper.”');
    expect(f.unresolved.join(' ')).toMatch(/Ninth Circuit’s local rules/);
    expect(typeof f.loadedAt).toBe('string');

    const rule32 = f.rules[0];
    expect(rule32).toMatchObject({
      key: 'frap-32',
      corpus: 'rules',
      citationKey: 'Fed. R. App. P. 32',
      effectiveFrom: '2024-12-01',
      changedSincePinned: false,
      permalink: `${fixture().siteUrl}/law/us/rules/frap-32?asOf=2024-12-01`,
    });
    // The citation key is one the lookup endpoint accepts, and the version it answers today is the pinned one.
    const looked = await get('/law/lookup', { jurisdiction: 'us', citation: rule32.citationKey });
    expect(looked.status).toBe(200);
    expect(looked.body.result.provenance.contentHash).toBe(f.rulePins['frap-32']);
    expect(looked.body.result.topics).toEqual(['format']);
    // Every quote is in the text the lookup endpoint serves for that rule.
    const squash = (s: string) => s.replace(/\s+/g, ' ');
    const texts = new Map<string, string>();
    for (const key of f.ruleKeys) {
      const t = await get('/law/text', { jurisdiction: 'us', citation: key, asOf: '2025-01-01' });
      texts.set(key, squash(`${t.body.result.catchline} ${t.body.result.bodyText}`));
    }
    for (const l of f.limits) expect(texts.get(l.ruleKey), l.quote).toContain(squash(l.quote));
  });

  it('POST with a JSON body answers as GET does', async () => {
    const [g, p] = await Promise.all([get('/law/format', { jurisdiction: 'nd' }), post('/law/format', { jurisdiction: 'nd' })]);
    expect(p.status).toBe(200);
    expect(p.body).toEqual(g.body);
    expect(p.body.result.map((r: { id: string }) => r.id)).toEqual(['nd-2026-03-07']);
  });

  it('filters by level, highest court first; the courts of appeals in court order', async () => {
    const r = await get('/law/format', { jurisdiction: 'us', level: 'intermediate-appellate' });
    expect(r.status).toBe(200);
    expect(r.body.result.map((x: { court: string }) => x.court)).toEqual([
      'ca1',
      'ca2',
      'ca3',
      'ca4',
      'ca5',
      'ca6',
      'ca7',
      'ca8',
      'ca9',
      'ca10',
      'ca11',
      'cadc',
      'cafc',
    ]);
    const all = await get('/law/format', { jurisdiction: 'US' });
    expect(all.body.result).toHaveLength(13);
  });

  it('takes asOf: the records in force on that date, read from the texts in force then (14,000 words before 2016)', async () => {
    const r = await get('/law/format', { jurisdiction: 'us', court: 'ca9', asOf: '2010-06-01' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.result).toHaveLength(1);
    const f = r.body.result[0];
    expect(f).toMatchObject({ id: 'ca9-2010-02-01', effectiveFrom: '2010-02-01', effectiveUntil: '2011-01-07', stale: false });
    expect(
      f.limits
        .filter((l: { document: string }) => l.document === 'principal brief')
        .map((l: { basis: 'words'; words: number }) => [l.basis, l[l.basis]]),
    ).toEqual([
      ['pages', 30],
      ['words', 14000],
      ['lines', 1300],
    ]);
    // Each pinned text is the one the lookup answers for the date asked, and carries the format topic.
    for (const rule of f.rules) {
      const looked = await get('/law/lookup', { jurisdiction: 'us', citation: rule.citationKey, asOf: '2010-06-01' });
      expect(looked.body.result.provenance.contentHash, rule.key).toBe(f.rulePins[rule.key]);
      expect(looked.body.result.topics).toEqual(['format']);
    }
    const now = await post('/law/format', { jurisdiction: 'us', court: 'ca9' });
    expect(now.body.result.map((x: { id: string; effectiveUntil: string | null }) => [x.id, x.effectiveUntil])).toEqual([
      ['ca9-2024-12-01', null],
    ]);
  });

  it.each([['2019-06-01'], ['2012-12-01'], ['2024-11-30']])(
    'answers not_carried on %s, when no reading on file covers the date',
    async (asOf) => {
      const r = await get('/law/format', { jurisdiction: 'us', court: 'cadc', asOf });
      expect([r.status, r.body.error.code]).toEqual([404, 'not_carried']);
      expect(r.body.error.message).toMatch(
        /is in force on \d{4}-\d{2}-\d{2}: no reading of the rules on file covers that date\. .*2012-01-03 to 2012-12-01 \(1 record\), 2024-12-01 onward \(1 record\)\.$/,
      );
    },
  );

  it('validates asOf exactly as lookup does', async () => {
    for (const asOf of ['2019-02-30', '2019-3-1', '', 'today']) {
      const format = await get('/law/format', { jurisdiction: 'us', asOf });
      const lookup = await get('/law/lookup', { jurisdiction: 'us', citation: 'frap-32', asOf });
      expect([format.status, format.body.error.code, format.body.error.field], asOf).toEqual([400, 'bad_as_of', 'asOf']);
      expect(format.body.error.message).toBe(lookup.body.error.message);
    }
  });

  it('a rule the registry has not read carries no topics', async () => {
    const r = await get('/law/lookup', { jurisdiction: 'us', citation: 'Fed. R. App. P. 1' });
    expect(r.status).toBe(200);
    expect(r.body.result.topics).toBeUndefined();
  });

  it('bills one unit a call', async () => {
    const key = fixture().keys.pool[3]!;
    const first = await get('/law/format', { jurisdiction: 'nd' }, key);
    const second = await get('/law/format', { jurisdiction: 'nd' }, key);
    expect(dayLeft(first.headers) - dayLeft(second.headers)).toBe(1);
  });

  it.each([
    [
      { jurisdiction: 'us', court: 'scotus' },
      404,
      'not_carried',
      /court 'scotus'\. The records for us in force on \d{4}-\d\d-\d\d: ca1-2024-12-01, ca2-2024-12-01, .*, cafc-2024-12-01 \(intermediate-appellate\)\.$/,
    ],
    [
      { jurisdiction: 'nd', level: 'limited-jurisdiction' },
      404,
      'not_carried',
      /level 'limited-jurisdiction'.*: nd-2026-03-07 \(last-resort\)\.$/,
    ],
    [
      { jurisdiction: 'us', court: 'scotus', asOf: '2011-06-01' },
      404,
      'not_carried',
      /in force on 2011-06-01: ca1-2011-01-07, ca2-2011-01-07, .*, cafc-2011-01-07 \(intermediate-appellate\)\.$/,
    ],
    [{ jurisdiction: 'dc' }, 404, 'not_carried', /No filing-format record is held for jurisdiction 'dc'\. Records are held for: nd, us\./],
    [{ jurisdiction: 'us', level: 'supreme' }, 400, 'bad_level', /level/],
    [{ level: 'last-resort' }, 400, 'missing_fields', /jurisdiction/],
  ])('%j answers %i %s', async (query, status, code, message) => {
    const r = await get('/law/format', query as Record<string, string>);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
  });

  it('wants a key with the lookup scope', async () => {
    expect((await get('/law/format', { jurisdiction: 'nd' }, null)).body.error.code).toBe('missing_bearer');
    expect((await call('GET', '/law/format', { query: { jurisdiction: 'nd' }, key: fixture().keys.noScope })).body.error.code).toBe(
      'missing_scope',
    );
  });
});
