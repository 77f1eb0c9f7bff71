import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectionById } from '#law/collections.ts';
import { resolveCitation } from '#law/resolve-citation.ts';

const usc = collectionById('usc');
const keyOf = (citation: string): string | null => {
  const r = resolveCitation('us', citation);
  return r.kind === 'key' ? `${r.collection.id}:${r.key}` : null;
};

describe('US Code keys: ranges, en dashes, appendices, acts and plans', () => {
  it.each([
    // a run of sections, both of OLRC's forms and as printed
    ['3-202-to-204', '3-202-to-204'],
    ['3-202 to 204', '3-202-to-204'],
    ['3-202...204', '3-202-to-204'],
    ['3 U.S.C. §§ 202 to 204', '3-202-to-204'],
    ['3 U.S.C. §§ 202–204', '3-202-to-204'],
    ['45 U.S.C. §§ 228a to 228c–1', '45-228a-to-228c-1'],
    // OLRC's en dash is a hyphen in keys; one § names one section
    ['30-28–1', '30-28-1'],
    ['30 U.S.C. § 28–1', '30-28-1'],
    ['30 U.S.C. § 28-1(a)', '30-28-1'],
    ['17 U.S.C. § 104A', '17-104a'],
    // appendix titles
    ['18 U.S.C. App. §§ 1201 to 1203', '18a-1201-to-1203'],
    ['18a-1201-to-1203', '18a-1201-to-1203'],
    ['5 U.S.C. Appendix § 101', '5a-101'],
    // acts set out in an appendix: printed by their appendix number, keyed by their public law
    ['18 U.S.C. App. 2 § 2', '18a-pl91-538-2'],
    ['18 U.S.C. app. 2, § 2(a)', '18a-pl91-538-2'],
    ['18 U.S.C. App. 3 § 4', '18a-pl96-456-4'],
    ['5 U.S.C. App. 3 § 8G', '5a-pl95-452-8g'],
    ['5 U.S.C.A. App. 2 § 10(b)', '5a-pl92-463-10'],
    ['5 U.S.C. App. 4 § 101', '5a-pl95-521-101'],
    ['18A-PL91-538-2', '18a-pl91-538-2'],
    // reorganization plans of the Title 5 appendix
    ['Reorg. Plan No. 3 of 1970', '5a-reorg-plan-1970-3'],
    ['Reorganization Plan No. I of 1939, § 4, 5 U.S.C. App.', '5a-reorg-plan-1939-i'],
    ['5a-reorg-plan-1970-3', '5a-reorg-plan-1970-3'],
  ])('%s is usc:%s', (citation, key) => {
    expect(keyOf(citation)).toBe(`usc:${key}`);
  });

  it.each(['5 U.S.C. App. 9 § 1', '3-202-to', '3-202 to', '30-28-', 'Reorg. Plan No. of 1970'])('reads no key from %j', (citation) => {
    expect(keyOf(citation)).toBeNull();
  });

  it.each([
    ['3-202-to-204', '3 U.S.C. §§ 202 to 204', { title: '3', section: '202-to-204' }],
    ['30-28-1', '30 U.S.C. § 28-1', { title: '30', section: '28-1' }],
    ['18a-1201-to-1203', '18 U.S.C. App. §§ 1201 to 1203', { title: '18a', section: '1201-to-1203' }],
    ['18a-pl91-538-2', '18 U.S.C. App. 2 § 2', { title: '18a', publicLaw: '91-538', section: '2' }],
    ['5a-pl95-452-8g', '5 U.S.C. App. 3 § 8g', { title: '5a', publicLaw: '95-452', section: '8g' }],
    ['5a-reorg-plan-1939-i', 'Reorg. Plan No. I of 1939, 5 U.S.C. App.', { title: '5a', reorganizationPlan: 'i of 1939' }],
    ['5a-reorg-plan-1970-3', 'Reorg. Plan No. 3 of 1970, 5 U.S.C. App.', { title: '5a', reorganizationPlan: '3 of 1970' }],
  ])('%s displays as %s', (key, display, parts) => {
    expect(usc.ownsKey(key)).toBe(true);
    expect(usc.display(key)).toBe(display);
    expect(usc.parts(key)).toEqual(parts);
  });

  it('keys are canonical: a key normalizes to itself, and its display reads back to it', () => {
    const num = fc.stringMatching(/^\d{1,5}[a-z]{0,2}(?:-\d{1,2}[a-z]?)?$/);
    const title = fc.tuple(fc.integer({ min: 1, max: 54 }), fc.constantFrom('', 'a')).map(([n, a]) => `${n}${a}`);
    const section = fc.oneof(
      num,
      fc.tuple(num, num).map(([a, b]) => `${a}-to-${b}`),
    );
    const key = fc.oneof(
      fc.tuple(title, section).map(([t, s]) => `${t}-${s}`),
      fc
        .tuple(fc.constantFrom('5a-pl92-463', '5a-pl95-452', '5a-pl95-521', '18a-pl91-538', '18a-pl96-456'), num)
        .map(([a, s]) => `${a}-${s}`),
      fc
        .tuple(fc.integer({ min: 1939, max: 1990 }), fc.oneof(fc.integer({ min: 1, max: 9 }).map(String), fc.constantFrom('i', 'iv')))
        .map(([y, n]) => `5a-reorg-plan-${y}-${n}`),
    );
    fc.assert(
      fc.property(key, (k) => {
        expect(usc.ownsKey(k)).toBe(true);
        expect(usc.normalizeKey(k)).toBe(k);
        expect(usc.parsePrinted(usc.display(k))).toBe(k);
      }),
    );
  });
});
