import { describe, expect, it } from 'vitest';
import { get, post } from './client.ts';

/**
 * The federal rules through time, on the bundled data: the US Code's Title 28 and Title 18 appendices as amended to
 * 2007-2012 (FRAP, FRCP, FRE, FRCrP) next to the FRAP of 2024, with the gaps between them kept as gaps, and pinpoints.
 */
const lookup = (citation: string, asOf?: string) => get('/law/lookup', { jurisdiction: 'us', citation, ...(asOf && { asOf }) });

describe('every rule of FRAP, FRCP, FRE and FRCrP from the appendix editions 2007-2012', () => {
  it('answers FRCP 12 as amended to February 1, 2010, with the edition’s own date, label and address', async () => {
    const r = await lookup('Fed. R. Civ. P. 12', '2010-06-01');
    expect(r.status, r.text).toBe(200);
    const v = r.body.result;
    expect(v.citation).toMatchObject({ key: 'frcp-12', display: 'Fed. R. Civ. P. 12', corpus: 'rules' });
    expect(v.catchline).toBe(
      'Defenses and Objections: When and How Presented; Motion for Judgment on the Pleadings; Consolidating Motions; Waiving Defenses; Pretrial Hearing',
    );
    expect(v).toMatchObject({
      validFrom: '2010-02-01T00:00:00-05:00',
      temporalBasis: 'compiled-edition',
      provenance: {
        sourceUrl: 'https://www.govinfo.gov/app/details/USCODE-2009-title28',
        versionLabel: 'FRCP as amended to February 1, 2010 (28 U.S.C. Appendix, 02/01/2010)',
        sourceSystem: 'Federal Rules of Civil Procedure (Judicial Conference of the United States)',
      },
    });
    expect(v.bodyText).toMatch(/^\(a\) Time to Serve a Responsive Pleading\.\n\(1\) In General\./);
    expect(v.bodyText).not.toMatch(/ADVISORY COMMITTEE|Committee Note/i);
    expect(v.historyNote).toMatch(/^\(As amended .*eff\. Dec\. 1, 2009\.\)$/);
  });

  it('answers FRE 702 before and after its restyling (effective December 1, 2011; first shown as amended to January 3, 2012)', async () => {
    const before = await lookup('Fed. R. Evid. 702', '2011-06-01');
    const after = await lookup('fre-702', '2012-06-01');
    expect(before.body.result.bodyText).toMatch(/^If scientific, technical, or other specialized knowledge will assist the trier of fact/);
    expect(after.body.result.bodyText).toMatch(
      /^A witness who is qualified as an expert by knowledge, skill, experience, training, or education may testify/,
    );
    expect(before.body.result.validTo).toBe('2012-01-03T00:00:00-05:00');
    expect(after.body.result.validFrom).toBe('2012-01-03T00:00:00-05:00');
  });

  it('answers FRCrP 49.1 from the Title 18 appendix, FRCP 71A as it was renumbered, a Supplemental Rule', async () => {
    const crim = await lookup('Fed. R. Crim. P. 49.1', '2009-03-01');
    expect(crim.status).toBe(200);
    expect(crim.body.result).toMatchObject({
      citation: { key: 'frcrp-49.1', display: 'Fed. R. Crim. P. 49.1' },
      catchline: 'Privacy Protection For Filings Made with the Court',
      provenance: { sourceUrl: 'https://www.govinfo.gov/app/details/USCODE-2007-title18' },
      validFrom: '2008-01-02T00:00:00-05:00',
    });
    expect((await lookup('Fed. R. Civ. P. 71A', '2007-06-01')).body.result).toMatchObject({
      catchline: 'Condemnation of Property',
      status: 'active',
    });
    expect((await lookup('Fed. R. Civ. P. 71A', '2010-06-01')).body.result).toMatchObject({
      catchline: '[Renumbered Rule 71.1]',
      status: 'transferred',
      bodyText: '',
    });
    const supp = await lookup('Fed. R. Civ. P. Supp. R. C', '2011-06-01');
    expect(supp.body.result.citation).toMatchObject({ key: 'frcp-supp-c', display: 'Fed. R. Civ. P. Supp. R. C' });
  });

  it('holds FRAP 32 of 2007-2012 and of 2024 as two versions of one key: 14,000 words, then 13,000', async () => {
    const old = await lookup('Fed. R. App. P. 32', '2010-06-01');
    const now = await lookup('Fed. R. App. P. 32', '2025-06-01');
    expect(old.body.result).toMatchObject({
      validFrom: '2007-01-03T00:00:00-05:00',
      provenance: { versionLabel: 'FRAP as amended to January 3, 2007 (28 U.S.C. Appendix, 01/03/2007)' },
    });
    expect(old.body.result.bodyText).toContain('-- it contains no more than 14,000 words; or');
    expect(now.body.result.validFrom).toBe('2024-12-01T00:00:00-05:00');
    expect(now.body.result.bodyText).toContain('• contains no more than 13,000 words; or');
    expect(old.body.result.citation.key).toBe(now.body.result.citation.key);
  });

  it('lists the four rule sets in coverage', async () => {
    const r = await get('/law/coverage', { jurisdiction: 'us', corpus: 'rules' }, null);
    const byName = new Map(r.body.coverage.map((c: { name: string }) => [c.name, c]));
    expect(byName.get('Federal Rules of Appellate Procedure')).toMatchObject({
      coverageFrom: '2007-01-03',
      temporalBasis: 'compiled-edition',
    });
    expect(byName.get('Federal Rules of Civil Procedure')).toMatchObject({ coverageFrom: '2007-01-03', sections: 104 });
    expect(byName.get('Federal Rules of Evidence')).toMatchObject({ coverageFrom: '2007-01-03', sections: 68 });
    // FRCrP continues in the Title 18 appendix of release point 117-80 (edition of 2021-12-01), which the sample carries
    // too: 75 rules in the 2008-2012 editions, one more there.
    expect(byName.get('Federal Rules of Criminal Procedure')).toMatchObject({ coverageFrom: '2008-01-02', sections: 76, coverageTo: null });
    expect(byName.get('Federal Rules of Civil Procedure')).toMatchObject({ coverageTo: '2012-12-01' });
  });
});

describe('gaps stay gaps: an edition speaks for the rules until the next December 1', () => {
  it('answers FRAP 32 as amended to 2012 until December 1, 2012, saying why it ends there', async () => {
    const r = await lookup('Fed. R. App. P. 32', '2012-11-30');
    expect(r.status).toBe(200);
    expect(r.body.result.validTo).toBe('2012-12-01T00:00:00-05:00');
    expect(r.body.result.note).toMatch(/take effect on December 1 \(28 U\.S\.C\. § 2074\(a\)/);
    expect(r.body.result.note).toMatch(/this text first appears in its edition as amended to January 3, 2007\./);
    expect(r.body.result.note).toMatch(/it ends on the December 1 after the last edition that shows it \(validTo\)/);
  });

  it('answers a FRAP lookup as of 2019 with the lookup’s own 404, naming the gap and the version after it', async () => {
    const r = await lookup('Fed. R. App. P. 32', '2019-06-01');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('no_edition_on_file');
    expect(r.body.error.message).toContain('No edition on file shows its text from 2012-12-01 until 2024-12-01.');
    expect(r.body.error.didYouMean).toEqual([
      expect.objectContaining({ citation: 'frap-32', reason: 'next-version', validFrom: '2024-12-01T00:00:00-05:00' }),
    ]);
    const text = await get('/law/text', { jurisdiction: 'us', citation: 'frap-32', asOf: '2019-06-01' });
    expect([text.status, text.body.error.code]).toEqual([404, 'no_edition_on_file']);
  });

  it('answers the FRCP, carried only from the appendix, with a 404 today', async () => {
    const r = await lookup('Fed. R. Civ. P. 12');
    expect(r.status).toBe(404);
    expect(r.body.error.message).toContain('No edition on file shows its text on or after 2012-12-01.');
    expect(r.body.error.didYouMean).toEqual([expect.objectContaining({ reason: 'latest-version', validTo: '2012-12-01T00:00:00-05:00' })]);
  });

  it('leaves the year no Title 28 edition speaks for (2008) empty for a rule that changed, not for one that did not', async () => {
    const changed = await lookup('Fed. R. Civ. P. 12', '2008-06-01');
    expect(changed.status).toBe(404);
    expect(changed.body.error.message).toContain('No edition on file shows its text from 2007-12-01 until 2009-01-05.');
    const same = await lookup('Fed. R. App. P. 32', '2008-06-01');
    expect(same.status).toBe(200);
    expect(same.body.result.validFrom).toBe('2007-01-03T00:00:00-05:00');
  });

  it('leaves the audit nothing to find in the rules: every gap is explained by a horizon or an absence', async () => {
    const r = await get('/law/quality', { jurisdiction: 'us' }, null);
    expect(r.status).toBe(200);
    expect(r.body.run).not.toBeNull();
    expect(r.body.findings.filter((f: { scope: string }) => f.scope.startsWith('us/rules/'))).toEqual([]);
  });
});

describe('pinpoints: the rule is answered, and the pinpoint is said', () => {
  it('Fed. R. App. P. 32(a)(7): the subdivision’s text as a quotable part', async () => {
    const r = await lookup('Fed. R. App. P. 32(a)(7)', '2025-06-01');
    expect(r.status).toBe(200);
    const { pinpoint, bodyText, note, citation } = r.body.result;
    expect(citation.display).toBe('Fed. R. App. P. 32');
    expect(pinpoint).toMatchObject({ requested: '(a)(7)', applied: true, display: 'Fed. R. App. P. 32(a)(7)', reason: null });
    expect(pinpoint.text).toMatch(/^\(7\) Length\.\n\(A\) Page Limitation\./);
    expect(bodyText).toContain(pinpoint.text);
    expect(bodyText.length).toBeGreaterThan(pinpoint.text.length);
    expect(note).toMatch(/Pinpoint \(a\)\(7\) applied: pinpoint\.text is that subdivision/);
  });

  it('Fed. R. Civ. P. 12(b)(6), from the text endpoint too', async () => {
    const r = await post('/law/text', { jurisdiction: 'us', citation: 'Fed. R. Civ. P. 12(b)(6)', asOf: '2011-06-01' });
    expect(r.status).toBe(200);
    expect(r.body.result.pinpoint).toEqual({
      requested: '(b)(6)',
      applied: true,
      display: 'Fed. R. Civ. P. 12(b)(6)',
      text: '(6) failure to state a claim upon which relief can be granted; and',
      reason: null,
    });
  });

  it('says so when the version has no such subdivision, and adds nothing for a bare key', async () => {
    const r = await lookup('Fed. R. App. P. 32(a)(9)', '2025-06-01');
    expect(r.status).toBe(200);
    expect(r.body.result.pinpoint).toMatchObject({ applied: false, text: null, display: null });
    expect(r.body.result.note).toContain(
      "Pinpoint (a)(9) not applied: This version's text has no subdivision (a)(9): the whole section is answered.",
    );
    expect((await lookup('frap-32', '2025-06-01')).body.result.pinpoint).toBeUndefined();
  });
});
