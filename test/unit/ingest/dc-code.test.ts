import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDcManifest } from '#ingest/dc-code.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { collectionById } from '#law/collections.ts';
import { normalizeText } from '#shared/hash.ts';

const sample = (path: string) => fileURLToPath(new URL(`../../../data/sample/${path}`, import.meta.url));
const MANIFEST = sample('dc-code/manifest.csv');
const STRANGULATION_ADDED = sample('dc-code/22-404.05/2024-03-18_f15cd230.xml');

async function documentsOf(edition: SourceEdition): Promise<SourceDocument[]> {
  const docs: SourceDocument[] = [];
  for await (const doc of edition.documents) docs.push(doc);
  return docs;
}

/** The manifest as plain rows (its fields hold no commas or quotes). */
async function manifestRows(): Promise<Record<string, string>[]> {
  const [header, ...lines] = (await readFile(MANIFEST, 'utf8')).trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i]!, v])));
}

let fixtures: string;
let editions: SourceEdition[];
let docsByLabel: Map<string, SourceDocument[]>;
const doc = (label: string, key: string) => docsByLabel.get(label)?.find((d) => d.key === key);

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'asof-dc-code-test-fixture-'));
  editions = await readDcManifest(MANIFEST);
  docsByLabel = new Map(await Promise.all(editions.map(async (e) => [e.label, await documentsOf(e)] as const)));
});
afterAll(async () => {
  await rm(fixtures, { recursive: true, force: true });
});

describe('readDcManifest: editions', () => {
  it('makes one compiled edition per publication label, dated by the label, oldest first', async () => {
    const labels = [...new Set((await manifestRows()).map((r) => r.publication_label!))].sort();

    expect(editions.map((e) => e.label)).toEqual(labels);
    expect(editions).toHaveLength(91);
    for (const e of editions) {
      expect(e).toMatchObject({ collection: 'dc-code', date: e.label, temporalBasis: 'compiled-edition' });
      expect(e.source).toContain(MANIFEST);
    }
  });

  it('scopes each edition to exactly the sections its rows name; a deletion is in scope without a document', async () => {
    const rows = await manifestRows();
    for (const e of editions) {
      const mine = rows.filter((r) => r.publication_label === e.label);
      expect(e.scope).toEqual({ kind: 'keys', keys: mine.map((r) => r.section) });
      expect(docsByLabel.get(e.label)!.map((d) => d.key)).toEqual(mine.filter((r) => r.change !== 'D').map((r) => r.section));
    }
  });

  it('shows 22-404.05 from its addition on 2024-03-18 to its deletion on 2024-06-22', () => {
    const speaking = editions.filter((e) => e.scope.kind === 'keys' && e.scope.keys.includes('22-404.05'));
    const showing = editions.filter((e) => doc(e.label, '22-404.05'));

    expect(speaking.map((e) => e.label)).toEqual(['2024-03-18', '2024-03-20', '2024-03-26', '2024-04-21', '2024-06-22']);
    expect(showing.map((e) => e.label)).toEqual(['2024-03-18', '2024-03-20', '2024-03-26', '2024-04-21']);
    expect(doc('2024-06-22', '2-534')).toBeDefined();
  });

  it('uses the caller’s retrieval time when given', async () => {
    const [first] = await readDcManifest(MANIFEST, { retrievedAt: '2024-10-21T00:00:00.000Z' });

    expect(first!.retrievedAt).toBe('2024-10-21T00:00:00.000Z');
  });
});

describe('readDcManifest: sections', () => {
  it('reads 22-404.05 as added: catchline, (a) text, history', () => {
    const s = doc('2024-03-18', '22-404.05')!;
    const lines = s.bodyText.split('\n');

    expect(s.catchline).toBe('Strangulation.');
    expect(lines).toContain(
      '(a) A person commits the offense of strangulation if that person knowingly, intentionally, or recklessly restricts the normal circulation of the blood or breathing of another person, either by applying pressure on the throat, neck, or chest of another person, or by blocking the nose or mouth of another person.',
    );
    expect(lines).toContain(
      '(d)(1) A conviction for strangulation merges with any other offense under §§ 22-401 through 22-404.05 arising from the same act or course of conduct.',
    );
    expect(lines).toContain('(II) The judgment that was appealed has been decided.');
    expect(s.historyNote).toBe('Mar. 3, 1901, 31 Stat. 1322, ch. 854, § 806d; as added Mar. 11, 2024, D.C. Act 25-410, § 14(c)');
    expect(s).toMatchObject({ key: '22-404.05', status: 'active', parts: {} });
  });

  it('keeps the emergency NOTE paragraph as text, without the Markdown emphasis, and notes its expiry', () => {
    const s = doc('2024-03-18', '22-404.05')!;

    expect(s.bodyText.split('\n')[0]).toBe('NOTE: This section was created by emergency legislation that will expire on June 6, 2024.');
    expect(s.note).toBe('The source marks this text as emergency legislation that will expire on June 6, 2024; see its expiry note.');
  });

  it('names every expiry date when the source stacks notes', () => {
    const s = doc('2024-03-18', '22-4234')!;

    expect(s.note).toBe(
      'The source marks this text as temporary legislation that will expire on April 12, 2024 and October 13, 2024; see its expiry notes.',
    );
    expect(doc('2021-10-18', '9-204.01')!.note ?? null).toBeNull();
  });

  it('leaves struck text (<s>) out: it is not in force, and the next versions drop it', () => {
    const penalty = (label: string) =>
      doc(label, '28-3814')!
        .bodyText.split('\n')
        .find((l) => l.includes('additional penalty'));

    expect(penalty('2021-10-18')).toBe(
      '(4)(A) If the consumer is an individual, the court may award an additional penalty in an amount not less than $500 and not to exceed $4,000; or',
    );
    expect(penalty('2021-11-03')).toBe(penalty('2021-10-18'));
    expect(doc('2022-12-29', '28-3814')!.bodyText).toContain('the date of charge-off for credit card or revolving credit accounts');
  });

  it('prints a quoted block (<include>) without its undesignated num', () => {
    const lines = doc('2022-07-19', '28-3814')!.bodyText.split('\n');

    expect(lines).toContain('You have the right to request all of the following concerning your debt:');
    expect(lines).toContain(
      '(1) Documentation of the name of the original creditor as well as the name of the current creditor or owner of your debt;',
    );
  });

  it('leaves no markup in any text, and every key is a D.C. Code key', () => {
    for (const docs of docsByLabel.values()) {
      for (const d of docs) {
        expect(d.bodyText).toBe(normalizeText(d.bodyText));
        expect(d.bodyText).not.toMatch(/[<>*]/);
        expect(d.historyNote).not.toMatch(/[<>]/);
        expect(collectionById('dc-code').ownsKey(d.key)).toBe(true);
        expect(d.catchline.length).toBeGreaterThan(0);
      }
    }
  });
});

describe('readDcManifest: unhappy paths', () => {
  const header = 'section,path,commit,commit_date,publication_label,change,blob,file';

  it('rejects a missing manifest', async () => {
    await expect(readDcManifest(join(fixtures, 'missing.csv'))).rejects.toThrow(/ENOENT/);
  });

  it('names file and both numbers when the XML num disagrees with the manifest', async () => {
    // Test fixture: the real 22-404.05 file listed under another section number.
    const dir = await mkdtemp(join(fixtures, 'num-'));
    await copyFile(STRANGULATION_ADDED, join(dir, 'section.xml'));
    await writeFile(join(dir, 'manifest.csv'), `${header}\n22-404.06,p,c,2024-03-18T20:48:05-04:00,2024-03-18,A,b,section.xml\n`);
    const [edition] = await readDcManifest(join(dir, 'manifest.csv'));

    await expect(documentsOf(edition!)).rejects.toThrow(
      /section\.xml: section number in the XML is '22-404\.05' but the manifest row says '22-404\.06'/,
    );
  });

  it('rejects a row whose file is missing', async () => {
    const dir = await mkdtemp(join(fixtures, 'nofile-'));
    await writeFile(join(dir, 'manifest.csv'), `${header}\n22-404.05,p,c,2024-03-18T20:48:05-04:00,2024-03-18,M,b,gone.xml\n`);
    const [edition] = await readDcManifest(join(dir, 'manifest.csv'));

    await expect(documentsOf(edition!)).rejects.toThrow(/ENOENT.*gone\.xml/);
  });

  it('rejects two rows of one section under one label', async () => {
    const dir = await mkdtemp(join(fixtures, 'twice-'));
    const row = '22-404.05,p,c,2024-03-18T20:48:05-04:00,2024-03-18,M,b,x.xml';
    await writeFile(join(dir, 'manifest.csv'), `${header}\n${row}\n${row}\n`);

    await expect(readDcManifest(join(dir, 'manifest.csv'))).rejects.toThrow(/22-404\.05 appears twice under publication label 2024-03-18/);
  });

  it('rejects a manifest without the expected columns, and a change that is not A, M or D', async () => {
    const dir = await mkdtemp(join(fixtures, 'columns-'));
    await writeFile(join(dir, 'a.csv'), 'section,file\n22-404.05,x.xml\n');
    await writeFile(join(dir, 'b.csv'), `${header}\n22-404.05,p,c,d,2024-03-18,R,b,x.xml\n`);

    await expect(readDcManifest(join(dir, 'a.csv'))).rejects.toThrow(/lacks column\(s\) path, commit/);
    await expect(readDcManifest(join(dir, 'b.csv'))).rejects.toThrow(/line 2: change 'R'/);
  });

  it('rejects a file that is not dc-library XML', async () => {
    const dir = await mkdtemp(join(fixtures, 'uslm-'));
    await writeFile(join(dir, 'manifest.csv'), `${header}\n1-1,p,c,d,2024-03-18,A,b,${sample('uslm/usc01@113-31.xml')}\n`);
    const [edition] = await readDcManifest(join(dir, 'manifest.csv'));

    await expect(documentsOf(edition!)).rejects.toThrow(/not dc-library XML/);
  });
});
