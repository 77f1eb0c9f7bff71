import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRecordFiles } from '#formats/authored.ts';
import { LEVELS } from '#formats/model.ts';
import { BUNDLED_RECORD_FILES } from '#formats/records/index.ts';

const RECORDS = fileURLToPath(new URL('../../../functions/formats/records/', import.meta.url));

describe('the bundled record files', () => {
  it('are every .json file of functions/formats/records', async () => {
    const onDisk = (await readdir(RECORDS)).filter((f) => f.endsWith('.json')).sort();
    expect(BUNDLED_RECORD_FILES.map((f) => f.file).sort()).toEqual(onDisk);
  });

  it('parse into one record per court and period, the shared FRAP readings joined into each court of appeals', () => {
    const { records, problems } = parseRecordFiles(BUNDLED_RECORD_FILES);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(13 * 5 + 1);
    expect(
      records.filter((r) => r.record.court === 'ca9').map((r) => [r.record.id, r.record.effectiveFrom, r.record.effectiveUntil]),
    ).toEqual([
      ['ca9-2007-01-03', '2007-01-03', '2010-02-01'],
      ['ca9-2010-02-01', '2010-02-01', '2011-01-07'],
      ['ca9-2011-01-07', '2011-01-07', '2012-01-03'],
      ['ca9-2012-01-03', '2012-01-03', '2012-12-01'],
      ['ca9-2024-12-01', '2024-12-01', null],
    ]);
    const ca9 = records.find((r) => r.record.id === 'ca9-2024-12-01')!.record;
    expect(ca9).toMatchObject({
      jurisdiction: 'us',
      level: 'intermediate-appellate',
      governingRuleKey: 'frap-32',
      effectiveFrom: '2024-12-01',
      effectiveUntil: null,
    });
    // The base's unresolved entries first, then the court's own.
    expect(ca9.unresolved[0]).toMatch(/^footnoteMinSizePt:/);
    expect(ca9.unresolved[1]).toMatch(/Ninth Circuit’s local rules/);
    expect(ca9.typeface?.faceMinimums.map((f) => [f.face, f.minSizePt, f.maxCharsPerInch])).toEqual([
      ['proportionally spaced', 14, null],
      ['monospaced', null, 10.5],
    ]);
    expect(records.every((r) => (LEVELS as readonly string[]).includes(r.record.level))).toBe(true);
  });

  it('give each limit exactly one number', () => {
    const { records } = parseRecordFiles(BUNDLED_RECORD_FILES);
    for (const { record } of records) {
      for (const l of record.limits) expect([l.pages, l.words, l.lines].filter((n) => n !== null)).toEqual([l[l.basis]]);
    }
  });

  it('read the FRAP principal brief as 30 pages or 13,000 words or 1,300 monospaced lines; 14,000 words in 2007-2012', () => {
    const { records } = parseRecordFiles(BUNDLED_RECORD_FILES);
    const principal = (id: string) =>
      records
        .find((r) => r.record.id === id)!
        .record.limits.filter((l) => l.document === 'principal brief')
        .map((l) => [l.basis, l[l.basis]]);
    expect(principal('cadc-2024-12-01')).toEqual([
      ['pages', 30],
      ['words', 13000],
      ['lines', 1300],
    ]);
    for (const period of ['2007-01-03', '2010-02-01', '2011-01-07', '2012-01-03'])
      expect(principal(`cadc-${period}`)).toEqual([
        ['pages', 30],
        ['words', 14000],
        ['lines', 1300],
      ]);
  });

  it('chain the later periods’ readings onto the first: only the dates and the pins change', () => {
    const { records } = parseRecordFiles(BUNDLED_RECORD_FILES);
    const [first, later] = ['ca1-2007-01-03', 'ca1-2012-01-03'].map((id) => records.find((r) => r.record.id === id)!.record);
    const { effectiveFrom: _a, effectiveUntil: _b, rules: firstRules, id: _c, ...rest } = first!;
    const { effectiveFrom: _d, effectiveUntil: _e, rules: laterRules, id: _f, ...laterRest } = later!;
    expect(laterRest).toEqual(rest);
    expect(laterRules.map((r) => r.key)).toEqual(firstRules.map((r) => r.key));
    expect(laterRules.filter((r, i) => r.pin !== firstRules[i]!.pin).map((r) => r.key)).toEqual([
      'frap-28.1',
      'frap-29',
      'frap-27',
      'frap-40',
    ]);
  });

  it('refuse an id in a file that extends a list, a chain that loops, and a base that extends a list', () => {
    const { problems } = parseRecordFiles([
      ...BUNDLED_RECORD_FILES,
      { file: 'x.json', content: { extends: ['_frap-2024-12-01'], id: 'x', court: 'x', courtName: 'X', unresolved: [] } },
      { file: '_loop-a.json', content: { extends: '_loop-b' } },
      { file: '_loop-b.json', content: { extends: '_loop-a' } },
      { file: '_list.json', content: { extends: ['_frap-2024-12-01'] } },
      { file: 'y.json', content: { extends: ['_loop-a', '_list'], court: 'y', courtName: 'Y', unresolved: [] } },
    ]);
    expect(problems.map((p) => `${p.file} ${p.field}: ${p.message}`)).toEqual([
      'x.json id: a file that extends a list of readings gives no id: each record is <court>-<effectiveFrom>',
      "y.json extends: extends '_loop-a': extends '_loop-b': extends '_loop-a': a shared reading that extends itself (_loop-a → _loop-b → _loop-a)",
      "y.json extends: extends '_list': a shared reading that extends a list (only a court’s file may)",
    ]);
  });
});
