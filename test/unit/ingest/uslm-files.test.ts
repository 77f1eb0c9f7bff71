/**
 * The USLM reader on the real title files the repo carries (data/uslm/olrc, OLRC's release-point zips): each class of
 * identifier the files hold, the appendices and the court rules they set out, reading straight from a zip, and every
 * file read with no section skipped.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { sectionKeys } from '#ingest/uslm/identifiers.ts';
import { fileNameOfTitle, olrcZipUrl, originOf, titleOfFileName } from '#ingest/uslm/release-point.ts';
import { uslmText } from '#ingest/uslm/text.ts';
import { readUslmTitle } from '#ingest/uslm.ts';
import { collectionById } from '#law/collections.ts';
import type { SkippedSection } from '#law/ports.ts';

const OLRC = fileURLToPath(new URL('../../../data/uslm/olrc/download/releasepoints/us/pl/', import.meta.url));
const zipOf = (title: string, rp: '113-31' | '117-80') => `${OLRC}${rp.replace('-', '/')}/xml_usc${title}@${rp}.zip`;
const SAMPLE_XML = fileURLToPath(new URL('../../../data/sample/uslm/usc01@113-31.xml', import.meta.url));

interface Read {
  edition: SourceEdition;
  docs: Map<string, SourceDocument>;
  skipped: readonly SkippedSection[];
}

async function readAll(file: string): Promise<Read[]> {
  const out: Read[] = [];
  for (const edition of await readUslmTitle(file, { retrievedAt: '2026-11-24T00:00:00Z' })) {
    const docs = new Map<string, SourceDocument>();
    for await (const doc of edition.documents) {
      expect(docs.has(doc.key), `${doc.key} twice in ${file}`).toBe(false);
      docs.set(doc.key, doc);
    }
    out.push({ edition, docs, skipped: edition.skipped?.() ?? [] });
  }
  return out;
}

const cache = new Map<string, Promise<Read[]>>();
/** Each file is read once for all the tests. */
function read(file: string): Promise<Read[]> {
  const cached = cache.get(file);
  if (cached) return cached;
  const reading = readAll(file);
  cache.set(file, reading);
  return reading;
}
/** The one edition of `collection` a file holds. */
async function editionOf(file: string, collection = 'usc'): Promise<Read> {
  const found = (await read(file)).filter((r) => r.edition.collection === collection);
  expect(found).toHaveLength(1);
  return found[0]!;
}
const doc = async (file: string, key: string, collection = 'usc') => {
  const d = (await editionOf(file, collection)).docs.get(key);
  expect(d, `${key} in ${file}`).toBeDefined();
  return d!;
};

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'asof-uslm-files-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('reading a title from its OLRC release-point zip', () => {
  it('gives exactly the documents of the XML file the zip holds, with the release point and its address', async () => {
    const [fromZip] = await read(zipOf('01', '113-31'));
    const [fromXml] = await read(SAMPLE_XML);

    expect([...fromZip!.docs.values()]).toEqual([...fromXml!.docs.values()]);
    expect(fromZip!.edition).toMatchObject({
      collection: 'usc',
      label: '113-31',
      date: '2013-07-26',
      scope: { kind: 'prefix', prefix: '1-' },
      source: zipOf('01', '113-31'),
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/113/31/xml_usc01@113-31.zip',
    });
  });

  it('refuses a cut-short zip before giving any document', async () => {
    const bytes = await readFile(zipOf('01', '113-31'));
    const cut = join(tmp, 'xml_usc01@113-31.zip');
    await writeFile(cut, bytes.subarray(0, bytes.length - 1000));

    await expect(readUslmTitle(cut)).rejects.toThrow(
      /xml_usc01@113-31\.zip: not a readable zip of a USLM title \(End of central directory record signature not found/,
    );
  });

  it('refuses a zip whose bytes do not match their recorded CRC-32', async () => {
    // The central directory's CRC-32 of the entry, changed: the deflated bytes themselves are intact.
    const bytes = Buffer.from(await readFile(zipOf('01', '113-31')));
    const central = bytes.readUInt32LE(bytes.length - 22 + 16);
    bytes.writeUInt32LE(bytes.readUInt32LE(central + 16) ^ 1, central + 16);
    await mkdir(join(tmp, 'crc'));
    const bad = join(tmp, 'crc', 'xml_usc01@113-31.zip');
    await writeFile(bad, bytes);

    await expect(readUslmTitle(bad)).rejects.toThrow(
      /xml_usc01@113-31\.zip: usc01\.xml is corrupt \(CRC-32 [0-9a-f]{8}, the zip records [0-9a-f]{8}\)/,
    );
  });

  it('refuses a zip whose deflated bytes are damaged', async () => {
    const bytes = Buffer.from(await readFile(zipOf('01', '113-31')));
    for (let i = 20_000; i < 20_064; i++) bytes[i] = bytes[i]! ^ 0xff;
    await mkdir(join(tmp, 'damaged'));
    const bad = join(tmp, 'damaged', 'xml_usc01@113-31.zip');
    await writeFile(bad, bytes);

    await expect(readUslmTitle(bad)).rejects.toThrow(/damaged\/xml_usc01@113-31\.zip/);
  });

  it('refuses a zip without a usc<TT>.xml, and one named for another title', async () => {
    const bytes = Buffer.from(await readFile(zipOf('01', '113-31')));
    const renamed = Buffer.from(bytes.toString('latin1').replaceAll('usc01.xml', 'abc01.xml'), 'latin1');
    const noTitle = join(tmp, 'xml_usc01@113-31-renamed.zip');
    await writeFile(noTitle, renamed);
    const misnamed = join(tmp, 'xml_usc02@113-31.zip');
    await copyFile(zipOf('01', '113-31'), misnamed);

    await expect(readUslmTitle(noTitle)).rejects.toThrow(/expected one usc<TT>\.xml in the zip, found none/);
    await expect(readUslmTitle(misnamed)).rejects.toThrow(/xml_usc02@113-31\.zip: the zip is named for title 2 but holds title 1/);
  });

  it("names OLRC's files and addresses as OLRC does", () => {
    expect(['1', '5a', '11a', '18a', '28a', '50a', '51'].map(fileNameOfTitle)).toEqual(['01', '05A', '11a', '18a', '28a', '50A', '51']);
    expect(['01', '05A', '11a', '18a'].map(titleOfFileName)).toEqual(['1', '5a', '11a', '18a']);
    const origin = originOf('/x/xml_usc26@114-329not328.zip', '26', 'Online@114-329not328');
    expect(origin).toEqual({ titleFile: '26', releasePoint: '114-329not328' });
    expect(olrcZipUrl({ titleFile: '26', releasePoint: '114-329not328' })).toBe(
      'https://uscode.house.gov/download/releasepoints/us/pl/114/329not328/xml_usc26@114-329not328.zip',
    );
    expect(originOf('/x/usc05A.xml', '5a', 'Online@117-80')).toEqual({ titleFile: '05A', releasePoint: '117-80' });
    expect(originOf('/x/title.xml', '5a', 'Some other edition')).toEqual({ titleFile: '05A' });
  });
});

describe('identifiers the files hold, read into keys', () => {
  it('a run of sections, " to " (113-31) and "..." (117-80), is one key in both release points, with its status', async () => {
    const to = await doc(zipOf('13', '113-31'), '13-143-to-146');
    const dots = await doc(zipOf('13', '117-80'), '13-143-to-146');

    for (const d of [to, dots]) expect(d).toMatchObject({ status: 'repealed', parts: { chapter: '5' } });
    expect(to.catchline).toMatch(/^Repealed\./);
    expect(sectionKeys('13', '/us/usc/t13/s143 to 146', undefined)).toEqual(['13-143-to-146']);
    expect(sectionKeys('13', '/us/usc/t13/s143...146', undefined)).toEqual(['13-143-to-146']);
  });

  it('a list of sections ("s1, 2"; "s1 /us/usc/t24/s2") is a key per section, each showing the placeholder', async () => {
    for (const rp of ['113-31', '117-80'] as const) {
      const one = await doc(zipOf('24', rp), '24-1');
      const two = await doc(zipOf('24', rp), '24-2');
      expect(one).toEqual({ ...two, key: '24-1' });
      expect(one.status).toBe('repealed');
    }
    // A list of runs.
    expect(sectionKeys('30', '/us/usc/t30/s451 to 460, 471 to 483', undefined)).toEqual(['30-451-to-460', '30-471-to-483']);
    expect(sectionKeys('30', '/us/usc/t30/s451...460 /us/usc/t30/s471...483', undefined)).toEqual(['30-451-to-460', '30-471-to-483']);
    for (const key of ['30-451-to-460', '30-471-to-483']) {
      expect((await doc(zipOf('30', '113-31'), key)).status).toBe((await doc(zipOf('30', '117-80'), key)).status);
    }
  });

  it('an en dash in a number is a hyphen in the key, alone or in a run', async () => {
    expect((await doc(zipOf('30', '113-31'), '30-28-1')).catchline).toBe((await doc(zipOf('30', '117-80'), '30-28-1')).catchline);
    expect((await doc(zipOf('30', '117-80'), '30-28-1')).status).toBe('active');
    expect(await doc(zipOf('48', '113-31'), '48-46-1-to-46-3')).toMatchObject({ status: expect.not.stringMatching(/^active$/) });
    expect(await doc(zipOf('45', '113-31'), '45-228a-to-228c-1')).toBeDefined();
    expect(sectionKeys('30', '/us/usc/t30/s28\u20131', undefined)).toEqual(['30-28-1']);
  });

  it('a renumbered section keeps that status', async () => {
    expect(await doc(zipOf('17', '117-80'), '17-116a')).toMatchObject({
      status: 'renumbered',
      catchline: 'Renumbered § 116]',
      bodyText: '',
    });
  });

  it('Title 5 appendix: the acts it sets out, keyed by public law, and its reorganization plans', async () => {
    const app5 = await editionOf(zipOf('05a', '117-80'));

    expect((await read(zipOf('05a', '117-80'))).map((r) => r.edition.collection)).toEqual(['usc']);
    expect(app5.edition).toMatchObject({ scope: { kind: 'prefix', prefix: '5a-' }, date: '2021-06-18', label: '117-80' });
    expect(app5.edition.sourceUrl).toBe('https://uscode.house.gov/download/releasepoints/us/pl/117/80/xml_usc05a@117-80.zip');
    const keys = [...app5.docs.keys()];
    expect(keys.filter((k) => k.startsWith('5a-pl92-463-'))).toHaveLength(16);
    expect(keys.filter((k) => k.startsWith('5a-pl95-452-'))).toHaveLength(27);
    expect(keys.filter((k) => k.startsWith('5a-pl95-521-'))).toHaveLength(25);
    expect(keys.filter((k) => k.startsWith('5a-reorg-plan-'))).toHaveLength(107);
    expect(app5.docs.get('5a-pl92-463-1')).toMatchObject({ catchline: 'Short title', status: 'active' });
    expect(app5.docs.get('5a-pl95-452-8k')?.status).toBe('repealed');
    expect(app5.docs.get('5a-pl95-521-101')?.catchline).toBe('Persons required to file');
    const plan = app5.docs.get('5a-reorg-plan-1939-i')!;
    expect(plan.catchline).toBe('REORGANIZATION PLAN NO. I OF 1939');
    expect(plan.bodyText).toContain('Sec. 4. National Resources Planning Board');
  });

  it('Title 11 appendix: the bankruptcy rules, an edition of frbp as amended to 2021-12-01, and no US Code section', async () => {
    const editions = await read(zipOf('11a', '117-80'));

    expect(editions.map((r) => r.edition.collection)).toEqual(['frbp']);
    const frbp = editions[0]!;
    expect(frbp.edition).toMatchObject({
      date: '2021-12-01',
      label: '117-80',
      scope: { kind: 'prefix', prefix: 'frbp-' },
      sourceUrl: 'https://uscode.house.gov/download/releasepoints/us/pl/117/80/xml_usc11a@117-80.zip',
    });
    expect(frbp.docs.size).toBe(226);
    expect(frbp.docs.get('frbp-1001')?.catchline).toBe('Scope of Rules and Forms; Short Title');
    expect(frbp.docs.get('frbp-1004.1')).toBeDefined();
    for (const key of frbp.docs.keys()) expect(collectionById('frbp').ownsKey(key)).toBe(true);
  });

  it('Title 18 appendix: its statutes (one without an identifier) and the criminal rules, an edition of frcrp', async () => {
    const editions = await read(zipOf('18a', '117-80'));

    expect(editions.map((r) => [r.edition.collection, r.edition.date, r.edition.scope])).toEqual([
      ['usc', '2021-12-06', { kind: 'prefix', prefix: '18a-' }],
      ['frcrp', '2021-12-01', { kind: 'prefix', prefix: 'frcrp-' }],
    ]);
    const app18 = await editionOf(zipOf('18a', '117-80'));
    expect(app18.docs.get('18a-1201-to-1203')).toMatchObject({ status: 'repealed' });
    expect(app18.docs.get('18a-pl91-538-2')?.catchline).toBe('Enactment into law of Interstate Agreement on Detainers');
    expect([...app18.docs.keys()].filter((k) => k.startsWith('18a-pl96-456-'))).not.toHaveLength(0);
    const frcrp = await editionOf(zipOf('18a', '117-80'), 'frcrp');
    expect(frcrp.docs.size).toBe(76);
    const rule = frcrp.docs.get('frcrp-49.1')!;
    expect(rule.catchline).toBe('Privacy Protection For Filings Made with the Court');
    expect(rule.bodyText.split('\n')[0]).toMatch(/^\(a\) Redacted Filings\. Unless the court orders otherwise/);
    expect(rule.bodyText).not.toMatch(/Committee Notes/);
  });
});

describe('units no edition of the file takes', () => {
  it("are reported by the title's edition, not dropped: a court rule set into a title that is no appendix", async () => {
    // Prepare: the real Title 1 with the real Rule 49.1 of the criminal rules (from 18a) set into it
    let app18 = '';
    for await (const chunk of uslmText(zipOf('18a', '117-80'))) app18 += chunk;
    const from = app18.lastIndexOf('<courtRule ', app18.indexOf('identifier="/us/usc/t18a/courtRules/Crim/rule49.1"'));
    const rule = app18.slice(from, app18.indexOf('</courtRule>', from) + '</courtRule>'.length);
    const title1 = await readFile(SAMPLE_XML, 'utf8');
    const at = title1.lastIndexOf('</title>');
    const file = join(tmp, 'usc01-with-a-rule.xml');
    await writeFile(
      file,
      `${title1.slice(0, at)}<courtRules identifier="/us/usc/t18a/courtRules/Crim">${rule}</courtRules>${title1.slice(at)}`,
    );

    // Act
    const [only, ...others] = await readAll(file);

    // Assess
    expect(others).toEqual([]);
    expect(only!.docs.size).toBe(39);
    expect(only!.skipped).toEqual([
      { where: 'frcrp-49.1', reason: 'no-edition', detail: 'a unit of frcrp in a title read without its rule sets' },
    ]);
  });
});

describe('every title file the repo carries', () => {
  it("reads with no section skipped, every key its collection's, none twice", { timeout: 120_000 }, async () => {
    const files = (await readdir(OLRC, { recursive: true })).filter((f) => f.endsWith('.zip')).map((f) => join(OLRC, f));
    expect(files).toHaveLength(35);

    const counts = { editions: 0, documents: 0 };
    for (const file of files) {
      for (const r of await read(file)) {
        counts.editions++;
        counts.documents += r.docs.size;
        expect(r.skipped, file).toEqual([]);
        const collection = collectionById(r.edition.collection);
        for (const key of r.docs.keys()) expect(collection.ownsKey(key), `${key} (${file})`).toBe(true);
      }
    }
    expect(counts.editions).toBe(36);
    expect(counts.documents).toBeGreaterThan(8000);
  });
});
