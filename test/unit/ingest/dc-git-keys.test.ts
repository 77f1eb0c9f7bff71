import { describe, expect, it } from 'vitest';
import { sectionKeyOfFile } from '#ingest/dc-git/section-key.ts';
import { collectionById } from '#law/collections.ts';

// File names as the Council's repository spells them (us/dc/council/code/titles/<t>/sections/).
describe('sectionKeyOfFile', () => {
  it.each([
    ['22-404.05.xml', '22-404.05'],
    ['31\u20133302.06a.xml', '31-3302.06a'],
    ['28~1-101.xml', '28:1-101'],
    ['28~2A-101.xml', '28:2A-101'],
    ['[47-1099.13].xml', '47-1099.13'],
    ['34-3411.01.xml', '34-3411.01'],
  ])('%s is section %s, a D.C. Code key', (file, key) => {
    expect(sectionKeyOfFile(file)).toBe(key);
    expect(collectionById('dc-code').ownsKey(key)).toBe(true);
  });

  it.each(['16-916.01a-1.jpeg', 'index.xml.bak', '.xml'])('%s is not a section', (file) => {
    expect(sectionKeyOfFile(file)).toBeNull();
  });

  it('keeps a colon out of keys that are not the UCC form', () => {
    const dc = collectionById('dc-code');
    expect(dc.ownsKey('28:abc')).toBe(false);
    expect(dc.ownsKey(':1-101')).toBe(false);
  });
});
