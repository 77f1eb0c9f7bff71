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

  it('parse into one record per court, the shared FRAP reading joined into each court of appeals', () => {
    const { records, problems } = parseRecordFiles(BUNDLED_RECORD_FILES);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(14);
    const ca9 = records.find((r) => r.record.court === 'ca9')!.record;
    expect(ca9).toMatchObject({
      id: 'ca9-2024-12-01',
      jurisdiction: 'us',
      level: 'intermediate-appellate',
      governingRuleKey: 'frap-32',
      effectiveFrom: '2024-12-01',
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

  it('read the FRAP principal brief as 30 pages or 13,000 words or 1,300 monospaced lines', () => {
    const { records } = parseRecordFiles(BUNDLED_RECORD_FILES);
    const limits = records.find((r) => r.record.court === 'cadc')!.record.limits.filter((l) => l.document === 'principal brief');
    expect(limits.map((l) => [l.basis, l[l.basis]])).toEqual([
      ['pages', 30],
      ['words', 13000],
      ['lines', 1300],
    ]);
  });
});
