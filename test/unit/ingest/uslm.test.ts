import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeholderStatus } from '#ingest/placeholder.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { readUslmTitle, type UslmOverrides } from '#ingest/uslm.ts';
import { collectionById } from '#law/collections.ts';
import { normalizeText } from '#shared/hash.ts';

const sample = (path: string) => fileURLToPath(new URL(`../../../data/sample/${path}`, import.meta.url));
const USLM_113 = sample('uslm/usc01@113-31.xml');
const USLM_117 = sample('uslm/usc01@117-80.xml');

/** The one edition a Title 1 file holds. */
async function titleEdition(file: string, overrides?: UslmOverrides): Promise<SourceEdition> {
  const editions = await readUslmTitle(file, overrides);
  expect(editions).toHaveLength(1);
  return editions[0]!;
}

async function sectionsOf(file: string): Promise<Map<string, SourceDocument>> {
  const edition = await titleEdition(file);
  const docs = new Map<string, SourceDocument>();
  for await (const doc of edition.documents) docs.set(doc.key, doc);
  return docs;
}

let fixtures: string;
let old: Map<string, SourceDocument>;
let current: Map<string, SourceDocument>;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'asof-uslm-test-fixture-'));
  [old, current] = await Promise.all([sectionsOf(USLM_113), sectionsOf(USLM_117)]);
});
afterAll(async () => {
  await rm(fixtures, { recursive: true, force: true });
});

describe('readUslmTitle: edition', () => {
  it("takes the release point (label), the date and OLRC's address of the title at that release point from <meta>", async () => {
    const a = await titleEdition(USLM_113);
    const b = await titleEdition(USLM_117);

    expect(a).toMatchObject({
      collection: 'usc',
      label: '113-31',
      date: '2013-07-26',
      temporalBasis: 'compiled-edition',
      scope: { kind: 'prefix', prefix: '1-' },
      source: USLM_113,
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip',
    });
    expect(b).toMatchObject({
      label: '117-80',
      date: '2022-01-27',
      temporalBasis: 'compiled-edition',
      scope: { kind: 'prefix', prefix: '1-' },
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/117/80/xml_usc01@117-80.zip',
    });
    expect(Number.isNaN(Date.parse(a.retrievedAt))).toBe(false);
  });

  it('lets the caller override date, label, retrieval time and address (a mirror)', async () => {
    const edition = await titleEdition(USLM_113, {
      date: '2013-08-01',
      label: 'custom',
      retrievedAt: '2024-01-02T03:04:05.000Z',
      sourceUrl: 'https://mirror.example/usc01.xml',
    });

    expect(edition).toMatchObject({
      date: '2013-08-01',
      label: 'custom',
      retrievedAt: '2024-01-02T03:04:05.000Z',
      sourceUrl: 'https://mirror.example/usc01.xml',
    });
  });

  it('yields every documents iteration afresh (the file is re-read, never held)', async () => {
    const edition = await titleEdition(USLM_113);
    let first = 0;
    let second = 0;

    for await (const _ of edition.documents) first++;
    for await (const _ of edition.documents) second++;

    expect([first, second]).toEqual([39, 39]);
    expect(edition.skipped?.()).toEqual([]);
  });
});

describe('readUslmTitle: sections', () => {
  it('yields the 39 real sections of Title 1, not the 14 identifier-less <section>s quoted in the notes to § 106', async () => {
    // The files hold 53 <section> elements; 14 sit inside <quotedContent> of notes and are not sections of the Code.
    const raw = await readFile(USLM_113, 'utf8');
    expect(raw.match(/<section[\s>]/g)).toHaveLength(53);

    for (const docs of [old, current]) {
      expect(docs.size).toBe(39);
      expect([...docs.keys()].slice(0, 9)).toEqual(['1-1', '1-2', '1-3', '1-4', '1-5', '1-6', '1-7', '1-8', '1-101']);
      expect([...docs.keys()].filter((k) => /^1-2\d\d$/.test(k))).toHaveLength(13);
      for (const key of docs.keys()) expect(collectionById('usc').ownsKey(key)).toBe(true);
    }
  });

  it('reads 1 U.S.C. § 1 without its num, heading or notes', () => {
    const s1 = old.get('1-1')!;

    expect(s1.catchline).toBe('Words denoting number, gender, and so forth');
    expect(
      s1.bodyText.startsWith(
        'In determining the meaning of any Act of Congress, unless the context indicates otherwise—\nwords importing the singular include',
      ),
    ).toBe(true);
    expect(s1.historyNote).toBe(
      '(July 30, 1947, ch. 388, 61 Stat. 633; June 25, 1948, ch. 645, § 6, 62 Stat. 859; Oct. 31, 1951, ch. 655, § 1, 65 Stat. 710; Pub. L. 112–231, § 2(a), Dec. 28, 2012, 126 Stat. 1619.)',
    );
    expect(s1).toMatchObject({ status: 'active', parts: { chapter: '1' } });
  });

  it('keeps each level on its own line led by its num, nested nums joined as printed', () => {
    const lines = old.get('1-112b')!.bodyText.split('\n');

    expect(lines[0]!.startsWith('(a) The Secretary of State shall transmit to the Congress the text of any international agreement')).toBe(
      true,
    );
    expect(lines).toContain('(2) The report described in paragraph (1) may be submitted in classified form.');
    expect(lines.some((l) => l.startsWith('(e)(1) Subject to paragraph (2), the Secretary of State shall determine'))).toBe(true);
    expect(lines.some((l) => l.startsWith('(2)(A) An arrangement shall constitute'))).toBe(true);
    expect(lines).toContain('(i) A bilateral or multilateral counterterrorism agreement.');
    expect(old.get('1-112b')!.parts).toEqual({ chapter: '2' });
  });

  it('keeps subsection headings with their text, as printed', () => {
    const lines = old.get('1-204')!.bodyText.split('\n');

    expect(lines).toContain('(c) District of Columbia Code; citation.—The Code of the District of Columbia may be cited as “D.C. Code”.');
    expect(old.get('1-204')!.parts).toEqual({ chapter: '3' });
  });

  it('leaves no markup, notes or editorial footnotes in any text', () => {
    for (const docs of [old, current]) {
      for (const doc of docs.values()) {
        expect(doc.bodyText).toBe(normalizeText(doc.bodyText));
        expect(doc.bodyText).not.toMatch(/<|So in original|See References in Text|^§/);
        expect(doc.bodyText.length).toBeGreaterThan(0);
        expect(doc.catchline).toBe(doc.catchline.trim());
        expect(doc.historyNote).toMatch(/^\(.*\.\)$/);
        expect(doc.status).toBe('active');
      }
    }
  });
});

describe('readUslmTitle: Online@113-31 (USCConverter 1.0) vs Online@117-80 (USCConverter 1.7.2, USLM-1.0.15)', () => {
  const differing = () => [...old.keys()].filter((k) => old.get(k)!.bodyText !== current.get(k)!.bodyText);

  it('differs in the texts of exactly 1-112b, 1-201, 1-205, 1-207 and 1-209; markup changes leave the other 34 equal', () => {
    expect([...current.keys()]).toEqual([...old.keys()]);
    expect(differing()).toEqual(['1-112b', '1-201', '1-205', '1-207', '1-209']);
    for (const key of old.keys()) {
      expect(current.get(key)!.catchline).toBe(old.get(key)!.catchline);
      expect(current.get(key)!.status).toBe(old.get(key)!.status);
      expect(current.get(key)!.parts).toEqual(old.get(key)!.parts);
    }
  });

  it('records the amending law in the history notes of exactly those five sections', () => {
    const historyChanged = [...old.keys()].filter((k) => old.get(k)!.historyNote !== current.get(k)!.historyNote);

    expect(historyChanged).toEqual(differing());
  });

  it('1-112b, markup: the footnote marker (after a narrow no-break space) 117-80 adds after "section 6(j)(1)(A)" is editorial and dropped', async () => {
    const raw117 = await readFile(USLM_117, 'utf8');
    expect(raw117).toContain(
      '6(j)(1)(A)\u202f<ref class="footnoteRef" idref="fn002005">1</ref><note type="footnote" id="fn002005"><num>1</num>\u202fSee References in Text note below.</note> of the Export',
    );

    for (const docs of [old, current]) {
      expect(docs.get('1-112b')!.bodyText).toContain(
        'subject to a determination under section 6(j)(1)(A) of the Export Administration Act of 1979',
      );
    }
  });

  it('1-112b, law: subsection (g) was added by Pub. L. 116–260 (Dec. 27, 2020); nothing else differs', () => {
    const added =
      '(g) It is the sense of Congress that the executive branch should not prescribe or otherwise commit to or include specific legislative text in a treaty or executive agreement unless Congress has authorized such action.';

    expect(current.get('1-112b')!.bodyText).toBe(`${old.get('1-112b')!.bodyText}\n${added}`);
    expect(current.get('1-112b')!.historyNote).toContain('Pub. L. 116–260, div. FF, title XVII, § 1708(b), Dec. 27, 2020, 134 Stat. 3298');
  });

  it.each(['1-201', '1-207'])(
    '%s, law: "Public Printer" became "Director of the Government Publishing Office" (Pub. L. 113–235, § 1301(d)); nothing else differs',
    (key) => {
      const before = old.get(key)!.bodyText;

      expect(before).toContain('Public Printer');
      expect(current.get(key)!.bodyText).toBe(before.replaceAll('Public Printer', 'Director of the Government Publishing Office'));
      expect(current.get(key)!.historyNote).toContain('Pub. L. 113–235, div. H, title I, § 1301(d), Dec. 16, 2014');
    },
  );

  it.each(['1-205', '1-209'])(
    '%s, law: "Government Printing Office" became "Government Publishing Office" (Pub. L. 113–235, § 1301(b)); nothing else differs',
    (key) => {
      const before = old.get(key)!.bodyText;

      expect(before).toContain('Government Printing Office');
      expect(current.get(key)!.bodyText).toBe(before.replaceAll('Government Printing Office', 'Government Publishing Office'));
      expect(current.get(key)!.historyNote).toContain('Pub. L. 113–235, div. H, title I, § 1301(b), Dec. 16, 2014');
    },
  );
});

describe('readUslmTitle: status', () => {
  it('reads the placeholder a section prints', () => {
    expect(placeholderStatus('Repealed. Pub. L. 89–554, § 8(a), Sept. 6, 1966, 80 Stat. 632', '')).toBe('repealed');
    expect(placeholderStatus('[Reserved]', '')).toBe('reserved');
    expect(placeholderStatus('Omitted', '')).toBe('omitted');
    expect(placeholderStatus('Transferred', '')).toBe('transferred');
    expect(placeholderStatus('Expired.', '')).toBe('expired');
    expect(placeholderStatus('', 'Repealed.')).toBe('repealed');
    expect(placeholderStatus('Transferred employees', 'Employees transferred …')).toBe('active');
    expect(placeholderStatus('Sealing of instruments', 'Repealed provisions shall …\n(b) more')).toBe('active');
  });

  it('prefers the status attribute of the section', async () => {
    // Test fixture: the real 1 U.S.C. § 1 with a status attribute added.
    const raw = await readFile(USLM_113, 'utf8');
    const file = join(fixtures, 'status-attribute.xml');
    await writeFile(file, raw.replace('identifier="/us/usc/t1/s1">', 'identifier="/us/usc/t1/s1" status="transferred">'));

    const docs = await sectionsOf(file);

    expect(docs.get('1-1')!.status).toBe('transferred');
    expect(docs.get('1-2')!.status).toBe('active');
  });
});

describe('readUslmTitle: unhappy paths', () => {
  it('rejects a missing file', async () => {
    await expect(readUslmTitle(join(fixtures, 'no-such-title.xml'))).rejects.toThrow(/ENOENT/);
  });

  it('rejects XML that is not USLM, naming the root it found', async () => {
    const dc = sample('dc-code/22-404.05/2024-03-18_f15cd230.xml');

    await expect(readUslmTitle(dc)).rejects.toThrow(
      /not a USLM title \(root element <section> in namespace 'https:\/\/code\.dccouncil\.us\/schemas\/dc-library'/,
    );
  });

  it('rejects a file that is not XML at all', async () => {
    await expect(readUslmTitle(sample('rules/frap/rule_32.md'))).rejects.toThrow(/rule_32\.md/);
  });

  it('skips a section of another title, naming it and why, and reads the rest of the file', async () => {
    const raw = await readFile(USLM_113, 'utf8');
    const file = join(fixtures, 'foreign-section.xml');
    await writeFile(file, raw.replace('identifier="/us/usc/t1/s1">', 'identifier="/us/usc/t2/s1">'));
    const edition = await titleEdition(file);

    const docs = [];
    for await (const doc of edition.documents) docs.push(doc.key);

    expect(docs).toHaveLength(38);
    expect(docs).not.toContain('1-1');
    expect(edition.skipped?.()).toEqual([
      { where: '/us/usc/t2/s1', reason: 'foreign-title', detail: "'/us/usc/t2/s1' is not a section of title 1" },
    ]);
  });
});

describe('readUslmTitle: memory', () => {
  it('streams a ~50 MB title with heap growth far below the file size', async () => {
    // Prepare: a synthetic title made of the real § 112b (with its notes) repeated under new identifiers.
    const raw = await readFile(USLM_113, 'utf8');
    const at = raw.indexOf('identifier="/us/usc/t1/s112b"');
    const section = raw.slice(raw.lastIndexOf('<section', at), raw.indexOf('</section>', at) + '</section>'.length);
    const head = raw.slice(0, raw.indexOf('<main>') + '<main>'.length);
    const file = join(fixtures, 'synthetic-50mb.xml');
    const out = createWriteStream(file, { encoding: 'utf8' });
    out.write(`${head}\n<title identifier="/us/usc/t1"><num value="1">Title 1—</num><heading>SYNTHETIC</heading>\n`);
    let copies = 0;
    for (let bytes = 0; bytes < 50 * 1024 * 1024; bytes += section.length, copies++) {
      const copy = section.replaceAll('/us/usc/t1/s112b', `/us/usc/t1/s${100000 + copies}`);
      if (!out.write(copy)) await once(out, 'drain');
    }
    out.end('</title>\n</main>\n</uscDoc>\n');
    await once(out, 'finish');
    const size = (await stat(file)).size;
    expect(size).toBeGreaterThan(50 * 1024 * 1024);

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;

    // Act
    const edition = await titleEdition(file);
    for await (const doc of edition.documents) {
      if (++count % 500 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
      expect(doc.key).toBe(`1-${99999 + count}`);
    }

    // Assess
    expect(count).toBe(copies);
    expect(peak).toBeLessThan(size / 5);
  }, 180_000);
});
