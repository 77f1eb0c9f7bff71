import { describe, expect, it } from 'vitest';
import { resolveCitation } from '#law/resolve-citation.ts';

const keyOf = (j: string, c: string, corpus?: 'statutes' | 'rules') => {
  const r = resolveCitation(j, c, corpus);
  return r.kind === 'key' ? `${r.collection.id}:${r.key}` : r.kind === 'foreign' ? `foreign:${r.collection.id}:${r.key}` : 'unrecognised';
};

describe('resolveCitation', () => {
  it.each([
    ['us', '1-1', 'usc:1-1'],
    ['us', '1-112b', 'usc:1-112b'],
    ['us', '1-112B', 'usc:1-112b'],
    ['us', '28-1291', 'usc:28-1291'],
    ['us', '1 U.S.C. § 1', 'usc:1-1'],
    ['us', '1 USC 1', 'usc:1-1'],
    ['us', '1 U.S.C. 112b', 'usc:1-112b'],
    ['us', '28 U.S.C. §1291', 'usc:28-1291'],
    ['us', '28 U.S.C.A. § 1291(a)', 'usc:28-1291'],
    ['us', '42 U.S.C. § 2000e-2', 'usc:42-2000e-2'],
    ['dc', '22-404.05', 'dc-code:22-404.05'],
    ['dc', 'D.C. Code § 22-404.05', 'dc-code:22-404.05'],
    ['dc', 'DC Code 22-404.05', 'dc-code:22-404.05'],
    ['dc', 'D.C. Official Code § 1-204.46', 'dc-code:1-204.46'],
    ['dc', '28:1-101', 'dc-code:28:1-101'],
    ['dc', 'D.C. Code § 28:2A-101', 'dc-code:28:2A-101'],
    ['us', 'frap-32', 'frap:frap-32'],
    ['us', 'FRAP 32', 'frap:frap-32'],
    ['us', 'Fed. R. App. P. 32', 'frap:frap-32'],
    ['us', 'Fed. R. App. P. 32(a)(7)(B)', 'frap:frap-32'],
    ['us', 'Fed. R. App. P. 26.1', 'frap:frap-26.1'],
    ['us', 'Sup. Ct. R. 34', 'sup-ct:sup-ct-r-34'],
    ['us', 'sup-ct-r-34', 'sup-ct:sup-ct-r-34'],
    ['us', 'Supreme Court Rule 33.1', 'sup-ct:sup-ct-r-33'],
    ['us', 'Sup. Ct. R. 34.1(a)', 'sup-ct:sup-ct-r-34'],
    ['nd', 'N.D.R.App.P. 32', 'ndrappp:ndrappp-32'],
    ['nd', 'N.D. R. App. P. 3.4', 'ndrappp:ndrappp-3.4'],
    ['nd', 'ndrappp-32', 'ndrappp:ndrappp-32'],
    ['us', 'Fed. R. Civ. P. 12(b)(6)', 'frcp:frcp-12'],
    ['us', 'Fed. R. Civ. P. 71A', 'frcp:frcp-71a'],
    ['us', 'frcp-71A', 'frcp:frcp-71a'],
    ['us', 'Fed. R. Civ. P. Supp. R. C(6)(a)', 'frcp:frcp-supp-c'],
    ['us', 'Fed. R. Civ. P. Supplemental Rule G', 'frcp:frcp-supp-g'],
    ['us', 'frcp-supp-c', 'frcp:frcp-supp-c'],
    ['us', 'Fed. R. Evid. 702', 'fre:fre-702'],
    ['us', 'Fed. R. Crim. P. 49.1', 'frcrp:frcrp-49.1'],
    ['tn', 'Tenn. Code Ann. § 1-3-101', 'tn-code:1-3-101'],
    ['tn', 'T.C.A. § 39-13-101(a)', 'tn-code:39-13-101'],
    ['tn', '1-3-113.1', 'tn-code:1-3-113.1'],
    ['ms', 'Miss. Code Ann. § 1-3-1', 'ms-code:1-3-1'],
    ['ms', 'Miss. Code 1972 Ann. § 87-1-1', 'ms-code:87-1-1'],
    ['ms', 'Tenn. Code Ann. § 1-3-101', 'foreign:tn-code:1-3-101'],
    ['dc', 'Miss. Code Ann. § 1-3-1', 'foreign:ms-code:1-3-1'],
    ['us', 'Fed. R. Civ. P. Supp. R. H', 'unrecognised'],
    ['us', 'Fed. R. App. P. 71A', 'unrecognised'],
  ])('%s %j → %s', (j, c, expected) => expect(keyOf(j, c)).toBe(expected));

  it('displays the FRCP numbers beyond decimals as they are printed', () => {
    const display = (c: string) => {
      const r = resolveCitation('us', c);
      return r.kind === 'key' ? r.collection.display(r.key) : null;
    };
    expect(display('frcp-71a')).toBe('Fed. R. Civ. P. 71A');
    expect(display('frcp-supp-c')).toBe('Fed. R. Civ. P. Supp. R. C');
  });

  it.each([
    ['Fed. R. App. P. 32(a)(7)', '(a)(7)'],
    ['Fed. R. Civ. P. 12 (b)(6)', '(b)(6)'],
    ['28 U.S.C.A. § 1291(a)', '(a)'],
    ['Fed. R. App. P. 32', null],
    ['frap-32', null],
  ])('keeps the pinpoint of %j: %j', (citation, pinpoint) => {
    const r = resolveCitation('us', citation);
    expect(r.kind === 'key' && r.pinpoint).toBe(pinpoint ?? null);
  });

  it('narrows to the corpus asked for', () => {
    expect(keyOf('us', 'frap-32', 'statutes')).toBe('unrecognised');
    expect(keyOf('us', '1-1', 'rules')).toBe('unrecognised');
  });

  it("recognises another jurisdiction's printed form without answering for it", () => {
    expect(keyOf('dc', '1 U.S.C. § 1')).toBe('foreign:usc:1-1');
    expect(keyOf('us', 'D.C. Code § 22-404.05')).toBe('foreign:dc-code:22-404.05');
  });

  it.each(['', 'strangulation', '§', 'U.S.C.', 'Fed. R. App. P.', '1 U.S.C. §'])('does not invent a key from %j', (c) =>
    expect(keyOf('us', c)).toBe('unrecognised'),
  );
});
