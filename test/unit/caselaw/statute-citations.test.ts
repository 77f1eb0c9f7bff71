import { describe, expect, it } from 'vitest';
import { extractCitations } from '#caselaw/citations/extract.ts';
import { findStatuteCitations } from '#caselaw/citations/statutes.ts';
import { splitStatutes } from '#caselaw/statutes.ts';
import { resolveCitation } from '#law/resolve-citation.ts';
import { REAL_STATUTE_SENTENCES } from '../../support/real-statute-citations.ts';

const read = (text: string) =>
  findStatuteCitations(text).map((f) => ({
    printed: f.text,
    jurisdiction: f.jurisdiction,
    key: f.key,
    ...(f.pinpoint !== null && { pinpoint: f.pinpoint }),
  }));

describe('statute citations in real opinions', () => {
  it.each(REAL_STATUTE_SENTENCES.map((s) => [`${s.form} (CourtListener ${s.id})`, s] as const))('%s', (_name, sentence) => {
    expect(read(sentence.text)).toEqual(sentence.expected);
    for (const f of findStatuteCitations(sentence.text)) expect(sentence.text.slice(f.start, f.end)).toBe(f.text);
  });

  it('leaves the case citations of the same sentence to the case extractor, and neither reads the other', () => {
    const text = REAL_STATUTE_SENTENCES.find((s) => s.id === '4020978')!.text;
    expect(
      extractCitations(text)
        .filter((c) => c.kind === 'full')
        .map((c) => c.text),
    ).toEqual(['159 So. 3d 1212']);
    expect(read(text).map((c) => c.printed)).toEqual(['Miss. Code Ann. § 99-39-11(2)']);
  });
});

describe('the forms practitioners write (issue 18)', () => {
  it.each([
    ['28 U.S.C. § 1291', 'us', '28-1291', null],
    ['28 U.S.C. 1291', 'us', '28-1291', null],
    ['28 USC § 1291', 'us', '28-1291', null],
    ['section 1291 of title 28', 'us', '28-1291', null],
    ['42 U.S.C. § 1983 note', 'us', '42-1983', null],
    ['1 U.S.C. § 112b', 'us', '1-112b', null],
    ['D.C. Code § 22-404.05', 'dc', '22-404.05', null],
    ['D.C. Official Code § 22-404.05(a)', 'dc', '22-404.05', '(a)'],
    ['D.C. Code 22-404.05', 'dc', '22-404.05', null],
    ['TCA 15-2-102', 'tn', '15-2-102', null],
    ['Fed. R. App. P. 32(a)(7)', 'us', 'frap-32', '(a)(7)'],
    ['Fed. R. Civ. P. 12(b)(6)', 'us', 'frcp-12', '(b)(6)'],
    ['Tenn. Code Ann. § 39-13-101', 'tn', '39-13-101', null],
    ['T.C.A. § 15-2-102', 'tn', '15-2-102', null],
    ['Miss. Code Ann. § 1-3-1', 'ms', '1-3-1', null],
    ['Mass. Gen. Laws ch. 93A, § 2', 'ma', null, null],
    ['Cal. Penal Code § 187(a)', 'ca', null, '(a)'],
    ['N.Y. Penal Law § 125.25', 'ny', null, null],
    ['Fla. Stat. § 775.082', 'fl', null, null],
    ['O.C.G.A. § 16-5-1', 'ga', null, null],
    ['1 Pa. Cons. Stat. § 1921', 'pa', null, null],
    // The forms of issue 18's second list; the sample's opinions print none of these, the real ones are in
    // test/support/real-statute-citations.ts.
    ['42 u.s.c. § 1983', 'us', '42-1983', null],
    ['42 U.S.C.S. § 1983', 'us', '42-1983', null],
    ['28 U. S. C. § 1254(1)', 'us', '28-1254', '(1)'],
    ['42 U.S.C. § 1983(a)(1)', 'us', '42-1983', '(a)(1)'],
    ['42 U.S.C. § 2000e et seq.', 'us', '42-2000e', null],
    ['Tenn. Code Ann. § 39\u201313\u2013101', 'tn', '39-13-101', null],
    ['Tenn. Code Ann. § 39\u201413\u2014101', 'tn', '39-13-101', null],
    ['tenn. code ann. § 39-13-101', 'tn', '39-13-101', null],
    ['RCW 9A.36.021', 'wa', null, null],
    ['KRS 218A.1412', 'ky', null, null],
    ['720 ILCS 5/12-3', 'il', null, null],
  ])('reads %s whole in a sentence', (printed, jurisdiction, key, pinpoint) => {
    const text = `As the court held, see ${printed}, the rule applies.`;
    const found = findStatuteCitations(text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ text: printed, jurisdiction, key, pinpoint, start: text.indexOf(printed) });
    // The same key /law/lookup reads from the same printed form: one grammar.
    if (key !== null) {
      const r = resolveCitation(jurisdiction, found[0]!.normalized, found[0]!.corpus);
      expect(r.kind === 'key' && r.key).toBe(key);
    }
  });

  it('reads a § list and a range as one citation per section number printed, each with its own span', () => {
    const text = 'Appellate jurisdiction, 28 USC §§ 1291-1292, and 42 U.S.C. §§ 1983, 1985 and 1988.';
    expect(findStatuteCitations(text).map((f) => [f.text, f.key])).toEqual([
      ['28 USC §§ 1291', '28-1291'],
      ['1292', '28-1292'],
      ['42 U.S.C. §§ 1983', '42-1983'],
      ['1985', '42-1985'],
      ['1988', '42-1988'],
    ]);
  });

  it('reads every section of a § list of a code not carried, each with the code’s name', () => {
    const text = 'The claims arise under Mass. Gen. Laws ch. 93A, §§ 2, 9 and 11, and Tex. Penal Code Ann. §§ 22.02-22.03.';
    expect(findStatuteCitations(text).map((f) => [f.text, f.normalized])).toEqual([
      ['Mass. Gen. Laws ch. 93A, §§ 2', 'Mass. Gen. Laws ch. 93A, § 2'],
      ['9', 'Mass. Gen. Laws ch. 93A, § 9'],
      ['11', 'Mass. Gen. Laws ch. 93A, § 11'],
      // A hyphen between two decimals of one chapter is a range; between plain numbers it may be the number's own.
      ['Tex. Penal Code Ann. §§ 22.02', 'Tex. Penal Code Ann. § 22.02'],
      ['22.03', 'Tex. Penal Code Ann. § 22.03'],
    ]);
  });

  it('reads the acronym codes with their publishers’ names, as the lookup is asked them', () => {
    expect(findStatuteCitations('See RCW 9A.36.021(1)(a), KRS 218A.1412 and 720 ILCS 5/12-3(a).').map((f) => f.normalized)).toEqual([
      'Wash. Rev. Code § 9A.36.021(1)(a)',
      'Ky. Rev. Stat. Ann. § 218A.1412',
      '720 Ill. Comp. Stat. 5/12-3(a)',
    ]);
    // Part of a word or of a longer acronym is not one.
    expect(read('The SKRS 12 and XRCW 9 files.')).toEqual([]);
  });

  it('does not read a state court’s rules as the federal rule sets (CourtListener 1046941, 4091881)', () => {
    // Real text: the Tennessee Supreme Court's Rule 8 (its Rules of Professional Conduct), not the U.S. Supreme Court's.
    expect(read('Wright, 337 S.W.3d 166, 176 (Tenn. 2011) (internal citations omitted) (quoting\nTenn. Sup. Ct. R. 8, RPC 1.5).')).toEqual(
      [],
    );
    // Real text of the Supreme Court of Delaware (CourtListener 4091881): its own rules.
    expect(read('NOW, THEREFORE, IT IS ORDERED, under Supreme Court Rules\n\n3(b)(2) and 29(b), that this appeal is')).toEqual([]);
    expect(read('See Sup. Ct. R. 10.')).toEqual([{ printed: 'Sup. Ct. R. 10', jurisdiction: 'us', key: 'sup-ct-r-10' }]);
  });

  it('does not read a year in parentheses, a bare "section 5", or a reporter as a statute', () => {
    expect(read('28 U.S.C. § 1291 (2006)')).toEqual([{ printed: '28 U.S.C. § 1291', jurisdiction: 'us', key: '28-1291' }]);
    expect(read('Under section 5 the court may act. See 410 U.S. 113 (1973).')).toEqual([]);
  });

  it('counts offsets in code points once split from a request (characters outside the BMP and combining marks)', () => {
    const text = '😀 Cafe\u0301: 28 U.S.C. § 1291 and Fed. R. App. P. 32(a)(7).';
    const { statutes } = splitStatutes({ text });
    const codePoints = Array.from(text);
    expect(statutes.map((s) => codePoints.slice(s.start, s.end).join(''))).toEqual(['28 U.S.C. § 1291', 'Fed. R. App. P. 32(a)(7)']);
    expect(statutes[0]!.start).toBe(text.indexOf('28') - 1);
  });

  it('takes a citations item that is one statute citation as a statute, and leaves the rest to the case parser', () => {
    const { statutes, cases } = splitStatutes({
      citations: ['28 U.S.C. § 1291', '410 U.S. 113', { volume: 1, reporter: 'U.S.', page: 1 }],
    });
    expect(statutes.map((s) => [s.text, s.key, s.start, s.end])).toEqual([['28 U.S.C. § 1291', '28-1291', 0, 16]]);
    expect(cases).toEqual({ citations: ['410 U.S. 113', { volume: 1, reporter: 'U.S.', page: 1 }] });
  });
});
