import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffArrays, diffLines } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDcSection } from '#ingest/dc-code.ts';
import { DIFF_BUDGET, diffText, diffTextPaced, diffTexts, diffTextsPaced, editLowerBound, unifiedDiff, wordTokens } from '#law/diff.ts';
import type { VersionSummary } from '#law/model.ts';
import { withGaps } from '#law/timeline.ts';
import { sides } from '../../support/diff-sides.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const section = (path: string) => parseDcSection(readFileSync(join(ROOT, path), 'utf8'), path).bodyText;
/** D.C. Code § 51-103 (65,000 characters) at its last two publications (test/fixtures/dc-code-51-103/PROVENANCE.md). */
const LONG_BEFORE = section('test/fixtures/dc-code-51-103/2022-04-13_e0df84be.xml');
const LONG_AFTER = section('test/fixtures/dc-code-51-103/2022-12-14_dd4db1ec.xml');
/** Another long, wholly different real section: D.C. Code § 28-3814 of the bundled sample. */
const OTHER = section('data/sample/dc-code/28-3814/2024-04-22_e351c11c.xml');

/** Texts made of real words and lines of the long section, edited at random. */
const WORDS = [...new Set(LONG_BEFORE.split(/\s+/).filter(Boolean))].slice(0, 300);
const textArb = fc
  .array(fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 12 }), { minLength: 0, maxLength: 8 })
  .chain((lines) =>
    fc.constantFrom(' ', '  ', '\t').map((gap) => lines.map((l) => l.join(gap)).join('\n') + (lines.length % 2 ? '\n' : '')),
  );

describe('diffTexts: the edit script', () => {
  it('rebuilds both texts exactly, with no two operations of the same kind in a row (any texts)', () => {
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        const { operations, words } = diffTexts(a, b);
        expect(sides(operations)).toEqual({ from: a, to: b });
        for (let i = 1; i < operations.length; i++) expect(operations[i]!.op).not.toBe(operations[i - 1]!.op);
        expect(operations.every((o) => o.text.length > 0)).toBe(true);
        expect(words.kept + words.removed).toBe(a.match(/[\p{L}\p{N}]+/gu)?.length ?? 0);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a whole unchanged text in one operation, and the unified rendering is empty', () => {
    expect(diffText(LONG_AFTER, LONG_AFTER, { from: 'a', to: 'b' })).toMatchObject({
      operations: [{ op: 'keep', text: LONG_AFTER }],
      wordLevel: true,
      unified: '',
      words: { removed: 0, added: 0 },
    });
    expect(diffTexts('', '')).toMatchObject({ operations: [], wordLevel: true });
  });

  it('tokens join back into the text, whitespace riding on the word before it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(wordTokens(s).join('')).toBe(s);
      }),
    );
    expect(wordTokens('  (a) It contains\n14,000 words.')).toEqual([
      '  ',
      '(',
      'a',
      ') ',
      'It ',
      'contains\n',
      '14',
      ',',
      '000 ',
      'words',
      '.',
    ]);
  });

  it('diffs the two last publications of D.C. § 51-103 (65,000 characters) word by word, changes only where they are', () => {
    expect(LONG_BEFORE.length).toBeGreaterThan(60_000);
    const d = diffText(LONG_BEFORE, LONG_AFTER, { from: 'dc/statutes/51-103@2022-04-13', to: 'dc/statutes/51-103@2022-12-14' });
    expect(d.wordLevel).toBe(true);
    expect(sides(d.operations)).toEqual({ from: LONG_BEFORE, to: LONG_AFTER });
    expect(d.words.kept).toBeGreaterThan(9 * (d.words.removed + d.words.added));
    expect(d.words.removed + d.words.added).toBeGreaterThan(0);
    expect(d.unified.startsWith('--- dc/statutes/51-103@2022-04-13\n+++ dc/statutes/51-103@2022-12-14\n@@ ')).toBe(true);
  });

  it('bounds a pathological pair (two long, wholly different texts): given as lines removed and added, within the budget', () => {
    const started = performance.now();
    const d = diffTexts(LONG_BEFORE, OTHER);
    const ms = performance.now() - started;
    expect(d.wordLevel).toBe(false);
    expect(sides(d.operations)).toEqual({ from: LONG_BEFORE, to: OTHER });
    // The word diffs stop at the time budget (60 ms); the line diff and the joins around them are a few ms more. Unbounded,
    // this pair takes half a minute (measured 2026-11-24). A busy shared machine gets a wide margin.
    expect(ms).toBeLessThan(DIFF_BUDGET.timeMs * 8);
  });

  it('gives a passage over the word-edit budget whole, deterministically, whatever the time', () => {
    const d = diffTexts(LONG_BEFORE, LONG_AFTER, { ...DIFF_BUDGET, wordEdits: 1, timeMs: 60_000 });
    expect(d.wordLevel).toBe(false);
    expect(sides(d.operations)).toEqual({ from: LONG_BEFORE, to: LONG_AFTER });
  });

  it('gives two long, wholly different texts whole at once by the edit bound, however generous the time budget', () => {
    // Without the bound each word diff would run to its edit budget: seconds for these two with a budget this large.
    const generous = { wordEdits: 4_000, lineEdits: 4_000, timeMs: 60_000 };
    const started = performance.now();
    const d = diffTexts(LONG_BEFORE, OTHER, generous);
    const unified = unifiedDiff(LONG_BEFORE, OTHER, { from: 'a', to: 'b' }, generous);
    const ms = performance.now() - started;
    expect(d.wordLevel).toBe(false);
    expect(sides(d.operations)).toEqual({ from: LONG_BEFORE, to: OTHER });
    expect(unified).toMatch(/^--- a\n\+\+\+ b\n@@ /);
    expect(ms).toBeLessThan(250);
  });

  it('word-diffs the sample’s D.C. § 28-3814 from 2021 to 2024 where it can, the same answer on every run', () => {
    const older = section('data/sample/dc-code/28-3814/2021-10-18_fae43afd.xml');
    const runs = Array.from({ length: 3 }, () => diffTexts(older, OTHER, { ...DIFF_BUDGET, timeMs: 60_000 }));
    expect(sides(runs[0]!.operations)).toEqual({ from: older, to: OTHER });
    expect(runs[0]!.operations.some((o) => o.op === 'keep')).toBe(true);
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  });

  it('paced, gives the same answer while the event loop turns between its steps, one diff at a time', async () => {
    const older = section('data/sample/dc-code/28-3814/2021-10-18_fae43afd.xml');
    const generous = { ...DIFF_BUDGET, timeMs: 60_000 };
    const expected = diffTexts(older, OTHER, generous);
    const lines = diffLines(older, OTHER);
    const passages = lines.filter((c, i) => c.removed && lines[i + 1]?.added).length;
    expect(passages).toBeGreaterThan(10);
    let turns = 0;
    let running = true;
    const ticking = (async () => {
      while (running) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
    })();
    const paced = await Promise.all(Array.from({ length: 4 }, () => diffTextsPaced(older, OTHER, generous)));
    const both = await diffTextPaced(older, OTHER, { from: 'a', to: 'b' }, generous);
    running = false;
    await ticking;
    for (const d of paced) expect(d).toEqual(expected);
    expect(both).toEqual(diffText(older, OTHER, { from: 'a', to: 'b' }, generous));
    // The loop turned at least once per step of every diff: no diff held it for more than one step.
    expect(turns).toBeGreaterThanOrEqual(4 * passages);
  });

  it('never bounds an edit distance above the true one (what jsdiff finds with no budget)', () => {
    const tokens = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 40 });
    fc.assert(
      fc.property(tokens, tokens, (x, y) => {
        const edits = diffArrays(x, y)
          .filter((c) => c.added || c.removed)
          .reduce((n, c) => n + c.count, 0);
        expect(editLowerBound(x, y)).toBeLessThanOrEqual(edits);
      }),
    );
    expect(editLowerBound(['a', 'b'], ['c'])).toBe(3);
    expect(editLowerBound(['a', 'b'], ['b', 'a'])).toBe(0);
  });

  it('gives the whole text as replaced when even the line diff is over budget, unified included', () => {
    const budget = { ...DIFF_BUDGET, lineEdits: 1 };
    expect(diffTexts('a\nb\nc\n', 'x\ny\nz\n', budget).operations).toEqual([
      { op: 'remove', text: 'a\nb\nc\n' },
      { op: 'add', text: 'x\ny\nz\n' },
    ]);
    expect(unifiedDiff('a\nb\nc\n', 'x\ny\nz\n', { from: 'old', to: 'new' }, budget)).toBe(
      '--- old\n+++ new\n@@ -1,3 +1,3 @@\n-a\n-b\n-c\n+x\n+y\n+z\n',
    );
  });
});

describe('withGaps: the timeline', () => {
  const v = (validFrom: string, validTo: string) => ({ validFrom, validTo }) as VersionSummary;
  it('puts a gap between two versions only when the first ends before the next begins (local dates)', () => {
    const a = v('2007-01-03T00:00:00-05:00', '2012-12-01T00:00:00-05:00');
    const b = v('2024-12-01T00:00:00-05:00', '9999-12-31T23:59:59Z');
    const c = v('2025-01-01T00:00:00-05:00', '2025-02-01T00:00:00-05:00');
    const d = v('2025-02-01T00:00:00-05:00', '9999-12-31T23:59:59Z');
    expect(withGaps([a, b])).toEqual([
      { kind: 'version', version: a },
      { kind: 'gap', validFrom: a.validTo, validTo: b.validFrom },
      { kind: 'version', version: b },
    ]);
    expect(withGaps([c, d]).map((e) => e.kind)).toEqual(['version', 'version']);
    expect(withGaps([])).toEqual([]);
  });
});
