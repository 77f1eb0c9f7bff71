import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAppendixText } from '#ingest/appendix-text.ts';
import { readRuleSet } from '#ingest/rules.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { applyPinpoint, findSubdivision, pinpointLabels } from '#law/pinpoint.ts';

const data = (path: string) => fileURLToPath(new URL(`../../../data/${path}`, import.meta.url));
const docs = (editions: SourceEdition[]) => editions.flatMap((e) => [...(e.documents as Iterable<SourceDocument>)]);

/** Real bodies: FRAP 32 as amended to 2012 (the Code's text) and to 2024 (Markdown), FRCP 4 and 12, Supplemental Rule C. */
let body: (key: string) => string;
let frap32of2024: string;

beforeAll(async () => {
  const appendix = docs(await readAppendixText([data('rules/us-code-appendix-text/title28-appendix@2012-01-03.txt.gz')], {}));
  body = (key) => appendix.find((d) => d.key === key)!.bodyText;
  frap32of2024 = docs(await readRuleSet('frap', [data('sample/rules/frap/rule_32.md')])).find((d) => d.key === 'frap-32')!.bodyText;
});

const lines = (text: string | null) => text?.split('\n') ?? null;

describe('findSubdivision: the lines of a subdivision, read from the labels that open the body’s lines', () => {
  it('FRAP 32(a)(7) as amended to 2012: (7) Length and everything under it, up to (b)', () => {
    const text = lines(findSubdivision(body('frap-32'), ['a', '7']))!;
    expect(text[0]).toBe('(7) Length.');
    expect(text.at(-1)).toMatch(/^\(ii\) Form 6 in the Appendix of Forms is a suggested form of a certificate of compliance\./);
    expect(text.some((l) => l.startsWith('(b)'))).toBe(false);
  });

  it('FRAP 32(a)(7)(B)(i): 14,000 words in 2012, 13,000 in 2024', () => {
    expect(lines(findSubdivision(body('frap-32'), ['a', '7', 'B', 'i']))).toEqual([
      '(i) A principal brief is acceptable if:',
      '-- it contains no more than 14,000 words; or',
      '-- it uses a monospaced face and contains no more than 1,300 lines of text.',
    ]);
    expect(lines(findSubdivision(frap32of2024, ['a', '7', 'B', 'i']))).toEqual([
      '(i) A principal brief is acceptable if it:',
      '• contains no more than 13,000 words; or',
      '• uses a monospaced face and contains no more than 1,300 lines of text.',
    ]);
  });

  it('FRCP 12(b)(6): one line', () => {
    expect(findSubdivision(body('frcp-12'), ['b', '6'])).toBe('(6) failure to state a claim upon which relief can be granted; and');
  });

  it('tells the letter (i) after (h) from the numeral (i), also on a line that opens two labels (FRCP 4(i)(1)(A)(i))', () => {
    expect(lines(findSubdivision(body('frcp-4'), ['i']))![0]).toBe(
      '(i) Serving the United States and Its Agencies, Corporations, Officers, or Employees.',
    );
    expect(findSubdivision(body('frcp-4'), ['i', '1', 'A', 'i'])).toMatch(
      /^\(A\)\(i\) deliver a copy of the summons and of the complaint to the United States attorney/,
    );
    expect(findSubdivision(body('frcp-4'), ['i', '1', 'A', 'ii'])).toMatch(/^\(ii\) send a copy of each by registered or certified mail/);
  });

  it('reads an outline that starts with numbers (Supplemental Rule C(6)(a)(i))', () => {
    expect(lines(findSubdivision(body('frcp-supp-c'), ['6', 'a', 'i']))).toEqual([
      '(i) a person who asserts a right of possession or any ownership interest in the property that is the subject of the action must file a verified statement of right or interest:',
      '(A) within 14 days after the execution of process, or',
      '(B) within the time that the court allows;',
    ]);
  });

  it('finds nothing where the body has no such subdivision', () => {
    expect(findSubdivision(body('frap-32'), ['z'])).toBeNull();
    expect(findSubdivision(body('frap-32'), ['a', '9'])).toBeNull();
    expect(findSubdivision(body('frcp-12'), ['b', '6', 'A'])).toBeNull();
  });
});

describe('applyPinpoint: what a lookup says about the pinpoint', () => {
  it('applies one the version has', () => {
    expect(applyPinpoint(body('frcp-12'), '(b)(6)', 'Fed. R. Civ. P. 12')).toEqual({
      requested: '(b)(6)',
      applied: true,
      display: 'Fed. R. Civ. P. 12(b)(6)',
      text: '(6) failure to state a claim upon which relief can be granted; and',
      reason: null,
    });
  });

  it('says why it did not apply one', () => {
    expect(applyPinpoint(body('frap-32'), '(a)(9)', 'Fed. R. App. P. 32')).toMatchObject({
      applied: false,
      text: null,
      reason: "This version's text has no subdivision (a)(9): the whole section is answered.",
    });
    expect(applyPinpoint(body('frap-32'), '(2018)', 'Fed. R. App. P. 32')).toMatchObject({
      applied: false,
      reason: "'(2018)' is not a run of subdivision labels such as (a)(7)(B): the whole section is answered.",
    });
  });

  it.each([
    ['(a)(7)(B)(i)', ['a', '7', 'B', 'i']],
    [' (b) (6) ', ['b', '6']],
    ['(a) and (c)', null],
    ['(2018)', null],
    ['(a', null],
  ])('reads the labels of %j', (tail, labels) => expect(pinpointLabels(tail)).toEqual(labels));
});
