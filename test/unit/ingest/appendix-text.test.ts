import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { paragraphs, parseAppendixText, readAppendixText } from '#ingest/appendix-text.ts';
import { APPENDIX_TEXT, ruleSetOf } from '#ingest/rules.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { collectionById } from '#law/collections.ts';

const DIR = fileURLToPath(new URL('../../../data/rules/us-code-appendix-text/', import.meta.url));
const RETRIEVED = '2026-11-22T07:25:00Z';

const docsOf = (e: SourceEdition): SourceDocument[] => [...(e.documents as Iterable<SourceDocument>)];
const raw = async (name: string) => gunzipSync(await readFile(join(DIR, name))).toString('latin1');

let editions: SourceEdition[];
const edition = (collection: string, date: string) => editions.find((e) => e.collection === collection && e.date === date)!;
const rule = (collection: string, date: string, key: string) => docsOf(edition(collection, date)).find((d) => d.key === key)!;

beforeAll(async () => {
  editions = await readAppendixText([DIR], { retrievedAt: RETRIEVED });
});

describe('readAppendixText: the US Code appendices in plain text, 2007-2012', () => {
  it('makes one compiled edition per rule set and file, dated by its "(AS AMENDED TO …)" heading', () => {
    const summary = editions.map((e) => [e.collection, e.date, docsOf(e).length]);
    expect(summary).toEqual(
      [
        ['fre', '2007-01-03', 67],
        ['frap', '2007-01-03', 54],
        ['frcp', '2007-01-03', 101],
        ['frcrp', '2008-01-02', 73],
        ['fre', '2009-01-05', 68],
        ['frap', '2009-01-05', 54],
        ['frcp', '2009-01-05', 103],
        ['frcrp', '2009-01-05', 74],
        ['fre', '2010-02-01', 68],
        ['frap', '2010-02-01', 55],
        ['frcp', '2010-02-01', 104],
        ['frcrp', '2010-02-01', 74],
        ['fre', '2011-01-07', 68],
        ['frap', '2011-01-07', 55],
        ['frcp', '2011-01-07', 104],
        ['frcrp', '2011-01-07', 74],
        ['fre', '2012-01-03', 68],
        ['frap', '2012-01-03', 55],
        ['frcp', '2012-01-03', 104],
        ['frcrp', '2012-01-03', 75],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1])) || String(a[0]).localeCompare(String(b[0]))),
    );
    expect(edition('frap', '2012-01-03')).toMatchObject({
      label: 'FRAP as amended to January 3, 2012 (28 U.S.C. Appendix, 01/03/2012 (112-90))',
      temporalBasis: 'compiled-edition',
      retrievedAt: RETRIEVED,
      scope: { kind: 'prefix', prefix: 'frap-' },
      sourceUrl: 'https://www.govinfo.gov/app/details/USCODE-2011-title28',
      horizon: { from: '2011-12-01', until: '2012-12-01' },
    });
    // Title 18's 2008 file: the rules say January 2, its -CITE- lines January 8; the edition is the rules' date.
    expect(edition('frcrp', '2008-01-02')).toMatchObject({
      label: 'FRCrP as amended to January 2, 2008 (18 U.S.C. Appendix, 01/08/2008)',
      sourceUrl: 'https://www.govinfo.gov/app/details/USCODE-2007-title18',
      horizon: { from: '2007-12-01', until: '2008-12-01' },
    });
    expect(edition('frcp', '2010-02-01').horizon).toEqual({ from: '2009-12-01', until: '2010-12-01' });
  });

  it('keys every rule in its own collection: decimals, FRCP 71A and the Supplemental Rules A-G', () => {
    for (const e of editions) for (const d of docsOf(e)) expect(collectionById(e.collection).ownsKey(d.key), d.key).toBe(true);
    const frcp = docsOf(edition('frcp', '2012-01-03')).map((d) => d.key);
    expect(frcp).toEqual(expect.arrayContaining(['frcp-5.2', 'frcp-62.1', 'frcp-71.1', 'frcp-71a']));
    expect(frcp.filter((k) => k.startsWith('frcp-supp-'))).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((l) => `frcp-supp-${l}`));
    expect(rule('frcp', '2007-01-03', 'frcp-71a')).toMatchObject({ catchline: 'Condemnation of Property', status: 'active' });
    expect(rule('frcp', '2012-01-03', 'frcp-71a')).toMatchObject({
      catchline: '[Renumbered Rule 71.1]',
      status: 'transferred',
      bodyText: '',
    });
    expect(rule('frcp', '2012-01-03', 'frcp-supp-c').catchline).toBe('In Rem Actions: Special Provisions');
    expect(docsOf(edition('frcrp', '2012-01-03')).map((d) => d.key)).toContain('frcrp-49.1');
  });

  it('reads FRAP 32 as amended to 2012: one paragraph a line, labels first, the 14,000-word limit of (a)(7)(B)(i)', () => {
    const r32 = rule('frap', '2012-01-03', 'frap-32');
    expect(r32.catchline).toBe('Form of Briefs, Appendices, and Other Papers');
    const lines = r32.bodyText.split('\n');
    expect(lines.slice(0, 2)).toEqual(['(a) Form of a Brief.', '(1) Reproduction.']);
    const at = lines.indexOf('(B) Type-Volume Limitation.');
    expect(lines.slice(at, at + 4)).toEqual([
      '(B) Type-Volume Limitation.',
      '(i) A principal brief is acceptable if:',
      '-- it contains no more than 14,000 words; or',
      '-- it uses a monospaced face and contains no more than 1,300 lines of text.',
    ]);
    expect(lines).toContain(
      '(4) Paper Size, Line Spacing, and Margins. The brief must be on 8 1/2 by 11 inch paper. The text must be double-spaced, but quotations more than two lines long may be indented and single-spaced. Headings and footnotes may be single-spaced. Margins must be at least one inch on all four sides. Page numbers may be placed in the margins, but no text may appear there.',
    );
    expect(r32.historyNote).toBe(
      '(As amended Apr. 24, 1998, eff. Dec. 1, 1998; Apr. 29, 2002, eff. Dec. 1, 2002; Apr. 25, 2005, eff. Dec. 1, 2005.)',
    );
    expect(rule('frap', '2012-01-03', 'frap-28.1').bodyText).toContain('(i) it contains no more than 14,000 words; or');
  });

  it('keeps the Advisory Committee notes out of the text, and the footnotes in the history note, without their markers', () => {
    for (const e of editions)
      for (const d of docsOf(e)) {
        expect(d.bodyText, d.key).not.toMatch(/ADVISORY COMMITTEE|COMMITTEE NOTES|\(!\d+\)/);
        expect(d.historyNote, d.key).not.toMatch(/ADVISORY COMMITTEE/);
      }
    const r1 = rule('frap', '2012-01-03', 'frap-1');
    expect(r1.bodyText).toContain("(b) Definition. In these rules, 'state' includes the District of Columbia");
    expect(r1.historyNote).toMatch(/eff\. Dec\. 1, 2010\.\) Footnote 1: So in original\.$/);
  });

  it('reads the placeholders the Code prints for rules without text', () => {
    const placeholders = (c: string) =>
      docsOf(edition(c, '2012-01-03'))
        .filter((d) => d.status !== 'active')
        .map((d) => [d.key, d.status, d.catchline]);
    expect(placeholders('frap')).toEqual([
      [
        'frap-3.1',
        'repealed',
        '[Appeal from a Judgment of a Magistrate Judge in a Civil Case] (Abrogated Apr. 24, 1998, eff. Dec. 1, 1998)',
      ],
      ['frap-5.1', 'repealed', '[Appeal by Leave under 28 U.S.C. Sec. 636(c)(5)] (Abrogated Apr. 24, 1998, eff. Dec. 1, 1998)'],
    ]);
    expect(placeholders('frcrp').map(([k, s]) => `${k}:${s}`)).toEqual([
      'frcrp-19:reserved',
      'frcrp-22:transferred',
      'frcrp-37:reserved',
      'frcrp-39:reserved',
      'frcrp-54:transferred',
    ]);
    expect(placeholders('frcp').map(([k, s]) => `${k}:${s}`)).toEqual([
      'frcp-71a:transferred',
      'frcp-74:repealed',
      'frcp-75:repealed',
      'frcp-76:repealed',
    ]);
    expect(placeholders('fre')).toEqual([]);
  });

  it('keeps every character of every rule’s text, in order (only the layout and the footnote markers go)', async () => {
    for (const name of (await readdir(DIR)).sort()) {
      const text = await raw(name);
      const date = /@(\d{4}-\d{2}-\d{2})/.exec(name)![1]!;
      const byKey = new Map(editions.filter((e) => e.source.includes(name)).flatMap((e) => docsOf(e).map((d) => [d.key, d] as const)));
      let compared = 0;
      for (const record of text.split(/^-CITE-\r?$/m).slice(1)) {
        const cite = /APPENDIX Rule (\S+)/.exec(record.split(/^-EXPCITE-/m)[0]!)?.[1];
        if (!cite) continue;
        const set = /^-EXPCITE-\r?\n.*\r?\n\s*(.+?)\s*\r?$/m.exec(record)![1]!;
        const prefix = {
          'FEDERAL RULES OF APPELLATE PROCEDURE': 'frap',
          'FEDERAL RULES OF CIVIL PROCEDURE': 'frcp',
          'FEDERAL RULES OF EVIDENCE': 'fre',
          'FEDERAL RULES OF CRIMINAL PROCEDURE': 'frcrp',
        }[set]!;
        const key = /^[A-Z]$/.test(cite) ? `${prefix}-supp-${cite.toLowerCase()}` : `${prefix}-${cite.toLowerCase()}`;
        const statute = [...record.matchAll(/^-STATUTE-\r?\n([\s\S]*?)(?=^-[A-Z][A-Za-z0-9]*-)/gm)].map((m) => m[1]!).join('\n');
        const chars = (s: string) => s.replace(/ ?\(!\d+\)/g, '').replace(/\s+/g, '');
        expect(chars(byKey.get(key)!.bodyText), `${name} ${key}`).toBe(chars(statute));
        compared++;
      }
      expect(compared, `${name} (${date})`).toBe(byKey.size);
    }
  });
});

describe('paragraphs: the Code’s hanging indents undone', () => {
  it('joins continuation lines (two less indented, or one after a spaced dash) and keeps subdivisions apart', () => {
    // FRCP 26(f)(1) as amended to 2012: a wrap at " -" indents the next line one more.
    expect(
      paragraphs([
        '      (f) Conference of the Parties; Planning for Discovery.',
        '        (1) Conference Timing. Except in a proceeding exempted from',
        '      initial disclosure under Rule 26(a)(1)(B) or when the court',
        '      orders otherwise, the parties must confer as soon as practicable -',
        '       and in any event at least 21 days before a scheduling',
        '      conference is to be held or a scheduling order is due under Rule',
        '      16(b).',
      ]),
    ).toEqual([
      '(f) Conference of the Parties; Planning for Discovery.',
      '(1) Conference Timing. Except in a proceeding exempted from initial disclosure under Rule 26(a)(1)(B) or when the court orders otherwise, the parties must confer as soon as practicable - and in any event at least 21 days before a scheduling conference is to be held or a scheduling order is due under Rule 16(b).',
    ]);
  });

  it('joins a word broken at its own hyphen without a space', () => {
    expect(paragraphs(['        (4) The text must be double-spaced, but quotations may be single-', '      spaced.'])).toEqual([
      '(4) The text must be double-spaced, but quotations may be single-spaced.',
    ]);
  });

  it('reads an enumeration wrapped inside a sentence as the sentence, not as subdivisions (FRCP 60(b), 2007)', () => {
    expect(
      paragraphs([
        '      (b) Mistakes; Inadvertence; Excusable Neglect; Newly Discovered',
        '    Evidence; Fraud, Etc. On motion and upon such terms as are just,',
        "    the court may relieve a party or a party's legal representative",
        '    from a final judgment, order, or proceeding for the following',
        '    reasons: (1) mistake, inadvertence, surprise, or excusable neglect;',
        '    (2) newly discovered evidence which by due diligence could not have',
        '    been discovered in time to move for a new trial under Rule 59(b);',
      ]),
    ).toHaveLength(1);
  });

  it('starts the next subdivision at the continuation indent after a complete clause, and keeps flush text together', () => {
    // FRAP 11(c) as amended to 2007: a list, then the rest of the sentence set flush.
    expect(
      paragraphs([
        '        -- for a stay pending appeal;',
        '        -- for any other intermediate order - ',
        '',
        '    the district clerk must send the court of appeals any parts of the',
        '    record designated by any party.',
      ]),
    ).toEqual([
      '-- for a stay pending appeal;',
      '-- for any other intermediate order -',
      'the district clerk must send the court of appeals any parts of the record designated by any party.',
    ]);
    // FRAP 32(a)(5)(B) then (6): a new paragraph at the continuation indent of the one before.
    expect(
      paragraphs([
        '          (B) A monospaced face may not contain more than 10 1/2 ',
        '        characters per inch.',
        '        (6) Type Styles. A brief must be set in a plain, roman style,',
      ]),
    ).toEqual([
      '(B) A monospaced face may not contain more than 10 1/2 characters per inch.',
      '(6) Type Styles. A brief must be set in a plain, roman style,',
    ]);
  });
});

describe('files it refuses, naming the file and the line', () => {
  it('a truncated file, a file of no records, a rule set it does not know, a set without its date', async () => {
    const text = await raw('title28-appendix@2012-01-03.txt.gz');
    const opts = { retrievedAt: RETRIEVED };
    expect(() => parseAppendixText(text.slice(0, text.indexOf('-End-', 200_000) - 10), 'cut.txt', opts)).toThrow(
      /cut\.txt: the record of line \d+ has no -End- \(a truncated file\?\)/,
    );
    expect(() => parseAppendixText('', 'empty.txt', opts)).toThrow(/empty\.txt: no -CITE- records/);
    expect(() => parseAppendixText('Some other text\n', 'other.txt', opts)).toThrow(/other\.txt:1: text outside a -CITE- … -End- record/);
    expect(() =>
      parseAppendixText(text.replace(/^( {4})FEDERAL RULES OF EVIDENCE\r?$/gm, '$1FEDERAL RULES OF SOMETHING'), 'x.txt', opts),
    ).toThrow(/x\.txt:\d+: Rule 101 sits under 'FEDERAL RULES OF SOMETHING', not a rule set this reader knows/);
    expect(() => parseAppendixText(text.replace('(AS AMENDED TO JANUARY 3, 2012)', ''), 'y.txt', opts)).toThrow(
      /y\.txt: the FRAP has rules but no "\(AS AMENDED TO …\)" date/,
    );
  });

  it('is what `ingest rules` reads for a folder or file named after the appendix', () => {
    expect(ruleSetOf(DIR)).toBe(APPENDIX_TEXT);
    expect(ruleSetOf(join(DIR, 'title18-appendix@2012-01-03.txt.gz'))).toBe(APPENDIX_TEXT);
  });
});
