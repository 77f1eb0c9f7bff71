import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectionById, describeTitle } from '#law/collections.ts';
import { uscTitleName } from '#law/usc-titles.ts';
import { olrcZips, olrcZipText } from '../../support/olrc-zip.ts';

const DATA = fileURLToPath(new URL('../../../data/', import.meta.url));

/** What a USLM title file states about its title: number, `dc:title`, and the heading of its `<title>` element. */
function titleOfFile(xml: string) {
  const number = /<docNumber>([^<]+)<\/docNumber>/.exec(xml)?.[1]?.trim().toLowerCase();
  const dcTitle = /<dc:title>([^<]+)<\/dc:title>/.exec(xml)?.[1]?.trim();
  const heading = /<title\b[^>]*identifier="\/us\/usc\/t[0-9a-z]+"[^>]*>\s*<num\b[^>]*>[^<]*<\/num>\s*<heading>([^<]*)<\/heading>/i.exec(
    xml,
  )?.[1];
  return { number, dcTitle, heading: heading?.replace(/\s+/g, ' ').trim() };
}

describe('US Code title names', () => {
  it('agree with the heading of every title file the repo carries (an appendix: with its dc:title)', async () => {
    const zips = await olrcZips(`${DATA}uslm/olrc`);
    const texts = [
      ...(await Promise.all(zips.map((z) => olrcZipText(z, 32_768)))),
      await readFile(`${DATA}sample/uslm/usc01@113-31.xml`, 'utf8'),
    ];
    expect(zips.length).toBeGreaterThanOrEqual(35);
    const seen = new Set<string>();
    for (const text of texts) {
      const { number, dcTitle, heading } = titleOfFile(text.slice(0, 200_000));
      expect(number, dcTitle).toMatch(/^\d+a?$/);
      seen.add(number!);
      if (number!.endsWith('a')) {
        expect(uscTitleName(number!)).toBe(dcTitle);
      } else {
        expect(heading, `title ${number}`).toBeDefined();
        expect(uscTitleName(number!)?.toUpperCase(), `title ${number}`).toBe(heading);
      }
    }
    const carried = '1 5a 6 11 11a 13 14 17 18a 23 24 27 30 32 35 37 39 40 41 44 45 48 51';
    expect([...seen].sort()).toEqual(carried.split(' ').sort());
  });

  it('name every title of the Code but the reserved 53, and no other', () => {
    for (let n = 1; n <= 54; n++) expect(uscTitleName(String(n)) === undefined, `title ${n}`).toBe(n === 53);
    expect(uscTitleName('55')).toBeUndefined();
    expect(uscTitleName('28a')).toBe('Title 28 Appendix');
    expect(uscTitleName('53a')).toBeUndefined();
  });
});

describe('titles of a collection', () => {
  const usc = collectionById('usc');
  const dc = collectionById('dc-code');
  const frap = collectionById('frap');

  it('are read from keys and from scope prefixes', () => {
    expect(['28-1291', '5a-7', '3-202-to-204', '28-'].map((k) => usc.titleOf?.(k))).toEqual(['28', '5a', '3', '28']);
    expect(usc.titleOf?.('')).toBeNull();
    expect(['22-404.05', '16-1001', '22-'].map((k) => dc.titleOf?.(k))).toEqual(['22', '16', '22']);
    expect(frap.titleOf).toBeUndefined();
  });

  it('are named in messages with what is known of them', () => {
    expect(describeTitle(usc, '28')).toBe('Title 28 of the United States Code (Judiciary and Judicial Procedure)');
    expect(describeTitle(usc, '5a')).toBe('Title 5 Appendix of the United States Code');
    expect(describeTitle(usc, '53')).toBe('Title 53 of the United States Code');
    expect(describeTitle(dc, '16')).toBe('Title 16 of the Code of the District of Columbia');
  });
});
