import { describe, expect, it } from 'vitest';
import { citationFor, collectionOfKey, describeTitle } from '#law/collections.ts';
import { resolveCitation } from '#law/resolve-citation.ts';
import { mississippiCode, tennesseeCode } from '#law/state-codes.ts';

const resolved = (j: string, c: string) => {
  const r = resolveCitation(j, c, 'statutes');
  if (r.kind === 'key') return `${r.collection.id}:${r.key}${r.pinpoint ? ` ${r.pinpoint}` : ''}`;
  return r.kind === 'foreign' ? `foreign:${r.collection.id}:${r.key}` : 'unrecognised';
};

describe('state code citations: printed forms and keys', () => {
  it.each([
    ['tn', '1-3-101', 'tn-code:1-3-101'],
    ['tn', 'Tenn. Code Ann. § 1-3-101', 'tn-code:1-3-101'],
    ['tn', 'Tenn. Code Ann. §1-3-101', 'tn-code:1-3-101'],
    ['tn', 'Tenn.Code Ann. § 39-13-101(a)(1)', 'tn-code:39-13-101 (a)(1)'],
    ['tn', 'T.C.A. § 1-3-101', 'tn-code:1-3-101'],
    ['tn', 'T. C. A. § 1-3-113.1', 'tn-code:1-3-113.1'],
    ['tn', 'TCA 22-2-101', 'tn-code:22-2-101'],
    ['tn', 'Tennessee Code Annotated § 31-1-103', 'tn-code:31-1-103'],
    ['tn', 'Tenn. Code Ann. §§ 31-3-108 — 31-3-119', 'tn-code:31-3-108-to-31-3-119'],
    ['tn', '31-3-108 to 31-3-119', 'tn-code:31-3-108-to-31-3-119'],
    ['tn', '31-3-108-to-31-3-119', 'tn-code:31-3-108-to-31-3-119'],
    ['tn', '§ 1 - 3 - 101', 'tn-code:1-3-101'],
    ['ms', '87-1-1', 'ms-code:87-1-1'],
    ['ms', 'Miss. Code Ann. § 1-3-1', 'ms-code:1-3-1'],
    ['ms', 'Miss. Code 1972 Ann. § 87-1-1', 'ms-code:87-1-1'],
    ['ms', 'Miss. Code Ann. § 3-3-15.1', 'ms-code:3-3-15.1'],
    ['ms', 'Mississippi Code of 1972 § 95-3-25', 'ms-code:95-3-25'],
    ['ms', 'Miss. Code Ann. §§ 1-1-1 through 1-1-6', 'ms-code:1-1-1-to-1-1-6'],
    ['ms', 'Miss. Code Ann. § 5–3–77', 'ms-code:5-3-77'],
    ['ms', 'Miss. Code Ann. § 11-7-13 (Rev. 2019)', 'ms-code:11-7-13 (Rev. 2019)'],
    // Another state's printed form names its state; the same key alone is read as the asked state's.
    ['ms', 'Tenn. Code Ann. § 1-3-101', 'foreign:tn-code:1-3-101'],
    ['tn', 'Miss. Code Ann. § 1-3-1', 'foreign:ms-code:1-3-1'],
    ['tn', '1-3', 'unrecognised'],
    ['tn', '1-3-101a', 'unrecognised'],
    ['tn', 'Tenn. Code Ann. § 101', 'unrecognised'],
    ['ms', 'Miss. Code Ann.', 'unrecognised'],
  ])('%s %j → %s', (j, c, expected) => expect(resolved(j, c)).toBe(expected));

  it('displays, splits and titles a key as the state cites it', () => {
    expect(citationFor(tennesseeCode, '1-3-101')).toEqual({
      jurisdiction: 'tn',
      corpus: 'statutes',
      key: '1-3-101',
      display: 'Tenn. Code Ann. § 1-3-101',
      parts: { title: '1', chapter: '3', section: '1-3-101' },
    });
    expect(mississippiCode.display('1-1-1-to-1-1-6')).toBe('Miss. Code Ann. §§ 1-1-1 to 1-1-6');
    expect(mississippiCode.parts('1-1-1-to-1-1-6')).toEqual({ title: '1', chapter: '1', section: '1-1-1-to-1-1-6' });
    expect(tennesseeCode.titleOf?.('31-3-108-to-31-3-119')).toBe('31');
    expect(tennesseeCode.titleOf?.('1-')).toBe('1');
    expect(describeTitle(mississippiCode, '87')).toBe(
      'Title 87 of the Mississippi Code of 1972 Annotated (Contracts and Contractual Relations)',
    );
    expect(describeTitle(tennesseeCode, '39')).toBe('Title 39 of the Tennessee Code Annotated');
  });

  it('keeps each state to its own jurisdiction', () => {
    expect(collectionOfKey('tn', 'statutes', '87-1-1')?.id).toBe('tn-code');
    expect(collectionOfKey('ms', 'statutes', '87-1-1')?.id).toBe('ms-code');
    expect(collectionOfKey('tn', 'rules', '1-3-101')).toBeUndefined();
    expect(tennesseeCode.ownsKey('1-3-101-to-1-3-102')).toBe(true);
    expect(tennesseeCode.ownsKey('1-3-101-to-')).toBe(false);
  });
});
