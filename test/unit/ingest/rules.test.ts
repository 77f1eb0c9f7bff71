import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_SET_DEFAULTS, type RuleSetId, readRuleSet, supCtEffectiveDate } from '#ingest/rules.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { collectionById } from '#law/collections.ts';
import { normalizeText } from '#shared/hash.ts';

const sample = (path: string) => fileURLToPath(new URL(`../../../data/sample/${path}`, import.meta.url));
const FRAP = sample('rules/frap');
// Role-play rules (NOT law, see the fixture's NOT-LAW.md): real Markdown of this layout, never ingested.
const SUP_CT = fileURLToPath(new URL('../../fixtures/usarscotus-roleplay-supct-rules/_supct', import.meta.url));
const ND = sample('rules/north-dakota-rap');
const RETRIEVED = '2026-01-15T12:00:00.000Z';

const docsOf = (e: SourceEdition): SourceDocument[] => [...(e.documents as Iterable<SourceDocument>)];
const allDocs = (es: SourceEdition[]) => es.flatMap(docsOf);
const byKey = (es: SourceEdition[], key: string) => allDocs(es).find((d) => d.key === key)!;
const lines = (d: SourceDocument) => d.bodyText.split('\n');

let fixtures: string;
let frap: SourceEdition[];
let supCt: SourceEdition[];
let nd: SourceEdition[];

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'asof-rules-test-fixture-'));
  [frap, supCt, nd] = await Promise.all([
    readRuleSet('frap', [FRAP]),
    readRuleSet('sup-ct', [SUP_CT], { retrievedAt: RETRIEVED }),
    readRuleSet('ndrappp', [ND]),
  ]);
});
afterAll(async () => {
  await rm(fixtures, { recursive: true, force: true });
});

describe('readRuleSet: FRAP', () => {
  it('is one compiled edition as amended to December 1, 2024, speaking for every frap- key', () => {
    expect(frap).toHaveLength(1);
    expect(frap[0]).toMatchObject({
      collection: 'frap',
      date: '2024-12-01',
      temporalBasis: 'compiled-edition',
      label: 'FRAP as amended to December 1, 2024',
      scope: { kind: 'prefix', prefix: 'frap-' },
    });
    expect(docsOf(frap[0]!)).toHaveLength(51);
    expect(
      docsOf(frap[0]!)
        .slice(0, 3)
        .map((d) => d.key),
    ).toEqual(['frap-1', 'frap-2', 'frap-3']);
    expect(byKey(frap, 'frap-26.1').catchline).toBe('Corporate Disclosure Statement');
  });

  it('reads Rule 32: catchline from the title, (a)(5) typeface text with its official labels', () => {
    const rule = byKey(frap, 'frap-32');
    const text = lines(rule);
    const at = text.indexOf('(5) Typeface. Either a proportionally spaced or a monospaced face may be used.');

    expect(rule.catchline).toBe('Form of Briefs, Appendices, and Other Papers');
    expect(at).toBeGreaterThan(0);
    expect(text.slice(at + 1, at + 3)).toEqual([
      '(A) A proportionally spaced face must include serifs, but sans-serif type may be used in headings and captions. A proportionally spaced face must be 14-point or larger.',
      '(B) A monospaced face may not contain more than 10 1/2 characters per inch.',
    ]);
    expect(text).toContain('• contains no more than 13,000 words; or');
    expect(text.at(-1)).toBe(
      '(2) Acceptable Form. Form 6 in the Appendix of Forms meets the requirements for a certificate of compliance.',
    );
  });

  it('restores "(1)" for the Markdown ordered-list items "1.": no FRAP line starts with "N."', () => {
    for (const d of allDocs(frap)) expect(d.bodyText).not.toMatch(/^\d+\. /m);
    expect(lines(byKey(frap, 'frap-32')).slice(0, 3)).toEqual([
      '(a) Form of a Brief.',
      '(1) Reproduction.',
      '(A) A brief may be reproduced by any process that yields a clear black image on light paper. The paper must be opaque and unglazed. Only one side of the paper may be used.',
    ]);
  });

  it('lets the caller replace date, label and basis', async () => {
    const [edition] = await readRuleSet('frap', [join(FRAP, 'rule_32.md')], {
      date: '2025-12-01',
      label: 'FRAP 2025',
      temporalBasis: 'effective-date',
      retrievedAt: RETRIEVED,
    });

    expect(edition).toMatchObject({ date: '2025-12-01', label: 'FRAP 2025', temporalBasis: 'effective-date', retrievedAt: RETRIEVED });
    expect(RULE_SET_DEFAULTS.frap.date).toBe('2024-12-01');
  });
});

describe('readRuleSet: Supreme Court Rules', () => {
  // Caution for the data's users: these files come from a Roblox role-play community's "legal directory" and are an
  // adaptation of the Court's rules (Rule 49 regulates gifs and memes in channels). See the ingest report.
  const effectiveRules = ['1', '3', '4', '5', '6', '7', '26', '27', '29', '32', '34', '39', '43'];

  it('needs the retrieval date', async () => {
    await expect(readRuleSet('sup-ct', [SUP_CT])).rejects.toThrow(/pass overrides\.retrievedAt/);
  });

  it('gives a rule whose latest stated amendment names its effective day its own edition of that day', () => {
    const effective = supCt.filter((e) => e.temporalBasis === 'effective-date');

    expect(effective.map((e) => e.scope)).toEqual(effectiveRules.map((n) => ({ kind: 'keys', keys: [`sup-ct-r-${n}`] })));
    for (const e of effective) {
      expect(e).toMatchObject({ collection: 'sup-ct', date: '2025-06-28', retrievedAt: RETRIEVED });
      expect(docsOf(e)).toHaveLength(1);
    }
    expect(effective[0]!.label).toBe('Sup. Ct. R. 1 as amended effective 2025-06-28');
  });

  it('puts every other rule in one retrieval-date edition scoped to their keys, not a prefix', () => {
    const rest = supCt.filter((e) => e.temporalBasis === 'retrieval-date');
    const keys = docsOf(rest[0]!).map((d) => d.key);

    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({ date: '2026-01-15', label: 'Sup. Ct. R. as retrieved 2026-01-15', scope: { kind: 'keys', keys } });
    expect(keys).toHaveLength(38);
    // Rule 15: amended June 13 to take effect June 28, then (15(3)) on July 12 with no stated effective day.
    expect(keys).toEqual(
      expect.arrayContaining(['sup-ct-r-2', 'sup-ct-r-8', 'sup-ct-r-12', 'sup-ct-r-13', 'sup-ct-r-15', 'sup-ct-r-25', 'sup-ct-r-54']),
    );
    expect(supCt.at(-1)).toBe(rest[0]);
  });

  it('does not invent Rule 33', () => {
    expect(allDocs(supCt).map((d) => d.key)).not.toContain('sup-ct-r-33');
    expect(allDocs(supCt)).toHaveLength(51);
  });

  it('reads Rule 34: first sentence, the Court’s own "1." labels, amendment note as history', () => {
    const rule = byKey(supCt, 'sup-ct-r-34');

    expect(rule.catchline).toBe('Document Preparation: General Requirements');
    expect(lines(rule)[0]).toBe('Every document shall comply with the following provisions:');
    expect(lines(rule)[1]).toBe('1. Each document shall bear on its cover, in the order indicated, from the top of the page:');
    expect(lines(rule)[2]).toBe('(a) the docket number of the case or, if there is none, a space for one;');
    expect(rule.historyNote).toBe('Amended on June 13th, 2025, to take effect on June 28th, 2025.');
  });

  it('removes Markdown escapes, emphasis and soft hyphens but keeps the words', () => {
    expect(lines(byKey(supCt, 'sup-ct-r-14'))[0]).toBe('1. A petition for a writ of certiorari shall contain, in the order indicated:');
    expect(lines(byKey(supCt, 'sup-ct-r-29'))).toContain('3. [Abrogated]');
    expect(byKey(supCt, 'sup-ct-r-34').bodyText).toContain(
      'Federal Rule of Civil Procedure 5.2, or Federal Rule of Criminal Procedure 49.1',
    );
  });

  it('lets an override date replace only the retrieval date', async () => {
    const editions = await readRuleSet('sup-ct', [SUP_CT], { retrievedAt: RETRIEVED, date: '2025-12-31' });

    expect([...new Set(editions.map((e) => e.date))]).toEqual(['2025-06-28', '2025-12-31']);
  });

  it('reads the latest stated event of the notes', () => {
    const f = 'rule.md';
    expect(supCtEffectiveDate(f, [])).toBeNull();
    expect(supCtEffectiveDate(f, ['Amended on June 13th, 2025, to take effect on June 28th, 2025.'])).toBe('2025-06-28');
    expect(
      supCtEffectiveDate(f, ['Amended on June 13th, 2025, to take effect on June 28th, 2025.', 'Amended prior to June 1st, 2025']),
    ).toBe('2025-06-28');
    expect(
      supCtEffectiveDate(f, ['Rule 15(3) Amended on July 12th, 2025.', 'Amended on June 13th, 2025, to take effect on June 28th, 2025.']),
    ).toBeNull();
    expect(supCtEffectiveDate(f, ['Amended.', 'Amended on June 13th, 2025, to take effect on June 28th, 2025.'])).toBeNull();
    expect(() => supCtEffectiveDate(f, ['Amended on June 31st, 2025'])).toThrow(/not a calendar date/);
  });
});

describe('readRuleSet: North Dakota Rules of Appellate Procedure', () => {
  it('is one edition of the day the rules were last checked against ndcourts.gov', () => {
    expect(nd).toHaveLength(1);
    expect(nd[0]).toMatchObject({
      collection: 'ndrappp',
      date: '2026-03-07',
      temporalBasis: 'retrieval-date',
      scope: { kind: 'prefix', prefix: 'ndrappp-' },
    });
    expect(docsOf(nd[0]!).map((d) => d.key)).toEqual([
      'ndrappp-3.4',
      'ndrappp-11.6',
      'ndrappp-14',
      'ndrappp-21',
      'ndrappp-28',
      'ndrappp-29',
      'ndrappp-30',
      'ndrappp-32',
      'ndrappp-34',
      'ndrappp-40',
    ]);
  });

  it('reads Rule 32 with the source’s own catchline and (a)(5) typeface text', () => {
    const rule = byKey(nd, 'ndrappp-32');

    expect(rule.catchline).toBe('FORM OF BRIEFS AND OTHER DOCUMENTS');
    expect(lines(rule)).toContain(
      '(5) Typeface. The typeface must be 12 point or larger with no more than 16 characters per inch. The text must be double-spaced, except headings and quotations may be single-spaced and indented. Footnotes must be double-spaced and must be in the same typeface as the text.',
    );
    expect(lines(rule)).toContain('(C) the title of the case (see Rule 3(d) ) ;');
    expect(byKey(nd, 'ndrappp-11.6').catchline).toBe('MEDIUM-NEUTRAL CASE CITATIONS');
    expect(lines(byKey(nd, 'ndrappp-3.4'))[1]).toBe(
      '(1) “Confidential” means information in a court record as described in Rule 3.4(b)(1) or as ordered by the court, which is protected from public access but remains accessible to the court and the parties.',
    );
  });
});

describe('readRuleSet: every set', () => {
  const sets: [RuleSetId, string][] = [
    ['frap', FRAP],
    ['sup-ct', SUP_CT],
    ['ndrappp', ND],
  ];
  const editionsOf = (set: RuleSetId) => ({ frap, 'sup-ct': supCt, ndrappp: nd })[set];

  it.each(sets)('%s: no Markdown left, text normalized, keys owned by the collection', (set) => {
    for (const d of allDocs(editionsOf(set))) {
      expect(d.bodyText).toBe(normalizeText(d.bodyText));
      expect(d.bodyText).not.toMatch(/\*\*|\]\(|<|^---|^layout:|^title:|^[>#]|^[-*+] |\u00ad/m);
      expect(d.historyNote).not.toMatch(/\]\(|\*/);
      expect(d.status).toBe('active');
      expect(collectionById(RULE_SET_DEFAULTS[set].collection).ownsKey(d.key)).toBe(true);
    }
  });

  it.each(sets)('%s: keeps every word of the Markdown, in order (only markup goes)', async (set, dir) => {
    const words = (s: string) => s.replace(/\u00ad/g, '').match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const name of (await readdir(dir)).sort()) {
      const markdown = (await readFile(join(dir, name), 'utf8'))
        .replace(/^---\n[\s\S]*?\n---\n/, '')
        .replace(/^# .*\n/, '')
        .replace(/\]\([^)]*\)/g, ']');
      const d = allDocs(editionsOf(set)).find(
        (x) => x.key === `${RULE_SET_DEFAULTS[set].keyPrefix}-${/(\d+(?:\.\d+)?)\.md$/.exec(name)![1]}`,
      )!;

      expect(words(d.bodyText)).toEqual(words(markdown));
    }
  });
});

describe('readRuleSet: unhappy paths', () => {
  it('rejects a missing path', async () => {
    await expect(readRuleSet('frap', [join(fixtures, 'no-such-dir')])).rejects.toThrow(/ENOENT/);
  });

  it('rejects an unknown rule file name', async () => {
    const dir = await mkdtemp(join(fixtures, 'names-'));
    await copyFile(join(FRAP, 'rule_32.md'), join(dir, 'rule_32.md'));
    await writeFile(join(dir, 'notes.md'), '# Notes\n');

    await expect(readRuleSet('frap', [dir])).rejects.toThrow(/notes\.md: not a frap rule file name/);
    await expect(readRuleSet('ndrappp', [join(FRAP, 'rule_32.md')])).rejects.toThrow(/rule_32\.md: not a ndrappp rule file name/);
  });

  it('rejects a file whose title names another rule', async () => {
    const dir = await mkdtemp(join(fixtures, 'title-'));
    await copyFile(join(FRAP, 'rule_32.md'), join(dir, 'rule_33.md'));

    await expect(readRuleSet('frap', [dir])).rejects.toThrow(/rule_33\.md: the title names rule 32 but the file name says rule 33/);
  });

  it('rejects the same rule given twice', async () => {
    const dir = await mkdtemp(join(fixtures, 'twice-'));
    await copyFile(join(FRAP, 'rule_32.md'), join(dir, 'rule_32.md'));

    await expect(readRuleSet('frap', [FRAP, dir])).rejects.toThrow(/rule 32 is given twice/);
  });
});
