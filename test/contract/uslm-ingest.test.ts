/**
 * Every US Code title file the repo carries (data/uslm/olrc: OLRC's release-point zips, 23 titles at 113-31 and 117-80)
 * through the ingest job into the real adapters (DynamoDB adapter on dynalite, the SQLite search index): all of
 * them, with no error and no section skipped; a re-run that changes nothing; the same stored state whatever order the
 * files arrive in; each version's provenance, the release point it was first read from; and what a section the
 * reader cannot read, or a corrupt zip, does to an ingest.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestReport } from '#ingest/engine.ts';
import { type IngestJobDeps, runIngest } from '#ingest/jobs.ts';
import { COLLECTIONS } from '#law/collections.ts';
import type { SectionVersion } from '#law/model.ts';
import { runAudit } from '#ops/audit.ts';
import { localDateOf } from '#shared/dates.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { type DynaliteStores, openDynaliteStores } from '../support/dynalite-stores.ts';

const OLRC = fileURLToPath(new URL('../../data/uslm/olrc/download/releasepoints/us/pl/', import.meta.url));
const RETRIEVED_AT = '2026-11-24T08:00:00Z';
const INGESTED_AT = new Date('2026-11-24T09:00:00.000Z');
const OLRC_ZIP = 'https://uscode.house.gov/download/releasepoints/us/pl';
const SAMPLE_113 = fileURLToPath(new URL('../../data/sample/uslm/usc01@113-31.xml', import.meta.url));

let stores: DynaliteStores;
let doc: DynamoDBDocumentClient;
let files: string[];
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'asof-uslm-ingest-'));
  stores = await openDynaliteStores();
  doc = createDocumentClient(stores.dynamo);
  files = (await readdir(OLRC, { recursive: true }))
    .filter((f) => f.endsWith('.zip'))
    .map((f) => join(OLRC, f))
    .sort();
});

afterAll(async () => {
  doc?.destroy();
  await Promise.all(indexes.map((index) => index.close()));
  await stores?.close();
  await rm(tmp, { recursive: true, force: true });
});

let sandboxes = 0;
/** The sandboxes' search indexes, each on a file of its own in `tmp` (closed at the end). */
const indexes: SqliteSearchIndex[] = [];
/** Tables of its own on the file's store, and a search index of its own. */
async function openSandbox(): Promise<IngestJobDeps> {
  const n = ++sandboxes;
  const tables = tableNames(`uslm-${n}`);
  await ensureTables(doc, { versions: tables.versions, ops: tables.ops });
  const search = await SqliteSearchIndex.open(join(tmp, `search-${n}.sqlite`), { readers: 1 });
  indexes.push(search);
  return {
    versions: new DynamoVersionStore(doc, tables.versions),
    search,
    ops: new DynamoOpsStore(doc, tables.ops),
    now: () => INGESTED_AT,
  };
}

/** What a store holds, reduced to what a user can see of it: each key's history and each version's text and provenance. */
async function stateOf(deps: IngestJobDeps, keep: (key: string) => boolean = () => true) {
  const versions: string[] = [];
  for await (const v of deps.versions.scanVersions()) {
    if (!keep(v.citation.key)) continue;
    const p = v.provenance;
    versions.push(
      [v.citation.key, v.validFrom, v.validTo, v.status, v.catchline, p.contentHash, p.versionLabel, p.sourceUrl, p.retrievedAt].join('|'),
    );
  }
  const histories: string[] = [];
  for await (const h of deps.versions.scanHistories()) {
    if (!keep(h.key)) continue;
    const observations = h.observations.map((o) => `${o.date}:${o.identity ?? '-'}`).join(',');
    histories.push(`${h.key}|${observations}|${JSON.stringify(h.summary)}`);
  }
  return { versions: versions.sort(), histories: histories.sort() };
}

const releasePointOf = (file: string) => /@(\d+-\d+)\.zip$/.exec(file)![1]!;

const versionsOf = async (deps: IngestJobDeps, key: string): Promise<SectionVersion[]> => {
  const out: SectionVersion[] = [];
  for (const summary of await deps.versions.listVersions({ jurisdiction: 'us', corpus: 'statutes', key })) {
    out.push((await deps.versions.getVersion({ jurisdiction: 'us', corpus: 'statutes', key }, summary.validFrom))!);
  }
  return out;
};

let all: IngestJobDeps;
let firstRun: IngestReport[];
let firstRunSeconds: number;

describe('every title file the repo carries, in date order', () => {
  it('ingests all 35 with no error and no section skipped', { timeout: 600_000 }, async () => {
    expect(files).toHaveLength(35);
    all = await openSandbox();
    const began = performance.now();

    firstRun = await runIngest(all, { kind: 'uslm', files, retrievedAt: RETRIEVED_AT });

    firstRunSeconds = (performance.now() - began) / 1000;
    // 35 files: 34 US Code editions (11a has no section of its own), the bankruptcy rules (11a), the criminal rules (18a).
    expect(firstRun.map((r) => r.edition.collection).sort()).toEqual([...Array(34).fill('usc'), 'frbp', 'frcrp'].sort());
    expect(firstRun.filter((r) => r.skipped > 0).map((r) => [r.edition.source, r.edition.skipped])).toEqual([]);
    expect(firstRun.every((r) => r.documents > 0)).toBe(true);
    const documents = firstRun.reduce((n, r) => n + r.documents, 0);
    const versions = firstRun.reduce((n, r) => n + r.writes.put, 0);
    console.info(`35 OLRC zips: ${documents} documents, ${versions} versions written in ${firstRunSeconds.toFixed(1)} s`);

    const findings = (await runAudit({ ...all, ops: all.ops }, 'manual')).find((r) => r.run.jurisdiction === 'all')!.findings;
    expect(findings.filter((f) => f.status === 'fail' || f.checkName === 'sections-skipped')).toEqual([]);
  });

  it('a second run of the same files changes nothing', { timeout: 600_000 }, async () => {
    const again = await runIngest(all, { kind: 'uslm', files, retrievedAt: RETRIEVED_AT });

    // (`absentKeys` counts the covered keys an edition does not show, written or not: a 113-31 edition re-run after
    // 117-80 counts the sections 117-80 added, which it already records as absent.)
    expect(again.map((r) => [r.edition.id, r.changedKeys, r.writes])).toEqual(
      firstRun.map((r) => [r.edition.id, 0, { put: 0, setValidTo: 0, delete: 0 }]),
    );
  });

  it("each version names the release point it was first read from, and OLRC's address of that title there", async () => {
    // 1 U.S.C. § 112b changed between 113-31 and 117-80 (subsection (g) added): two versions, two sources.
    const changed = await versionsOf(all, '1-112b');
    expect(
      changed.map((v) => [localDateOf(v.validFrom), localDateOf(v.validTo), v.provenance.versionLabel, v.provenance.sourceUrl]),
    ).toEqual([
      ['2013-07-26', '2022-01-27', '113-31', `${OLRC_ZIP}/113/31/xml_usc01@113-31.zip`],
      ['2022-01-27', '9999-12-31', '117-80', `${OLRC_ZIP}/117/80/xml_usc01@117-80.zip`],
    ]);
    // 1 U.S.C. § 1 did not: 117-80 extends the one version, which keeps its first source.
    const same = await versionsOf(all, '1-1');
    expect(same.map((v) => [localDateOf(v.validFrom), localDateOf(v.validTo), v.provenance.versionLabel, v.provenance.sourceUrl])).toEqual([
      ['2013-07-26', '9999-12-31', '113-31', `${OLRC_ZIP}/113/31/xml_usc01@113-31.zip`],
    ]);
    // A range placeholder shared by both release points ("s143 to 146", then "s143...146") is one history.
    expect((await versionsOf(all, '13-143-to-146')).map((v) => v.provenance.versionLabel)).toEqual(['113-31']);
    // The criminal rules of 18a: an edition of frcrp as amended to 2021-12-01, from the 18a zip.
    const rule = await all.versions.findInForce({ jurisdiction: 'us', corpus: 'rules', key: 'frcrp-49.1' }, '2022-06-01');
    expect(rule?.provenance).toMatchObject({ versionLabel: '117-80', sourceUrl: `${OLRC_ZIP}/117/80/xml_usc18a@117-80.zip` });
    expect(localDateOf(rule!.validFrom)).toBe('2021-12-01');
  });
});

describe('the files in another order', () => {
  // Titles at both release points with each kind of identifier (ranges in both forms, lists), and the 18a appendix
  // whose one file gives two editions: about 5 MB of XML, so the comparison stays cheap; the whole set runs in date order above.
  const SUBSET = ['01', '13', '24', '27', '18a'];
  const inSubset = (file: string) => SUBSET.some((t) => file.includes(`xml_usc${t}@`));
  const subsetKey = (key: string) => /^(?:1|13|24|27|18a)-/.test(key) || key.startsWith('frcrp-');

  it('reach the same stored state, file by file, 117-80 before 113-31', { timeout: 300_000 }, async () => {
    // Prepare: a fixed shuffle, the later release point first
    const shuffled = files.filter(inSubset).sort((a, b) => releasePointOf(b).localeCompare(releasePointOf(a)) || b.localeCompare(a));
    expect(shuffled.map(releasePointOf)).toEqual([
      '117-80',
      '117-80',
      '117-80',
      '117-80',
      '117-80',
      '113-31',
      '113-31',
      '113-31',
      '113-31',
    ]);
    const s = await openSandbox();

    // Act
    for (const file of shuffled) await runIngest(s, { kind: 'uslm', files: [file], retrievedAt: RETRIEVED_AT });

    // Assess
    const expected = await stateOf(all, subsetKey);
    const got = await stateOf(s, subsetKey);
    expect(got.histories.length).toBeGreaterThan(400);
    expect(got).toEqual(expected);
    const editions = async (deps: IngestJobDeps) =>
      (await Promise.all(COLLECTIONS.map((c) => deps.versions.listEditions(c.id))))
        .flat()
        .filter((e) => inSubset(e.source))
        .map((e) => e.id);
    expect((await editions(s)).sort()).toEqual((await editions(all)).sort());
  });
});

describe('a section the reader cannot read', () => {
  it('is skipped, named and counted by the ingest, its log line and the audit; the rest of the file is stored', async () => {
    // Prepare: the real Title 1 at 113-31, one identifier made unreadable
    const file = join(tmp, 'usc01@113-31.xml');
    await writeFile(file, (await readFile(SAMPLE_113, 'utf8')).replace('identifier="/us/usc/t1/s1">', 'identifier="/us/usc/t1/s1/x">'));
    const s = await openSandbox();
    const lines: string[] = [];

    // Act
    const [report] = await runIngest(s, { kind: 'uslm', files: [file], retrievedAt: RETRIEVED_AT }, (line) => lines.push(line));

    // Assess: the other 38 sections stored; the one skipped, named everywhere a user or an operator looks
    const skipped = {
      where: '/us/usc/t1/s1/x',
      reason: 'unreadable-number',
      detail: "'/us/usc/t1/s1/x' gives '1-1/x', not a United States Code key",
    };
    expect(report).toMatchObject({ documents: 38, skipped: 1 });
    expect(report!.edition.skipped).toEqual({ count: 1, sample: [skipped] });
    expect(lines.join('\n')).toMatch(
      /usc 113-31 \(2013-07-26\): 38 sections.*; 1 section\(s\) skipped \(\/us\/usc\/t1\/s1\/x: unreadable-number\)/,
    );
    expect(await s.versions.findInForce({ jurisdiction: 'us', corpus: 'statutes', key: '1-2' }, '2020-01-01')).not.toBeNull();
    const finding = async () =>
      (await runAudit(s, 'manual')).find((r) => r.run.jurisdiction === 'us')!.findings.find((f) => f.checkName === 'sections-skipped');
    expect(await finding()).toMatchObject({ scope: 'us/statutes/usc', status: 'warn', detail: expect.stringContaining('/us/usc/t1/s1/x') });

    // Act: the edition read again from a file the reader can read
    await runIngest(s, { kind: 'uslm', files: [SAMPLE_113], retrievedAt: RETRIEVED_AT });

    // Assess
    expect(await finding()).toBeUndefined();
    expect(await s.versions.findInForce({ jurisdiction: 'us', corpus: 'statutes', key: '1-1' }, '2020-01-01')).not.toBeNull();
  });
});

/** A one-entry zip with the CRC-32 its central directory records changed (the deflated bytes are intact). */
function crcChanged(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  const central = out.readUInt32LE(out.length - 22 + 16);
  out.writeUInt32LE(out.readUInt32LE(central + 16) ^ 1, central + 16);
  return out;
}

describe('a corrupt zip', () => {
  it('among good ones is refused, naming it, before anything of any file is written', async () => {
    const corrupt = join(tmp, 'xml_usc13@113-31.zip');
    await writeFile(corrupt, crcChanged(await readFile(files.find((f) => f.endsWith('xml_usc13@113-31.zip'))!)));
    const s = await openSandbox();

    await expect(
      runIngest(s, { kind: 'uslm', files: [files.find((f) => f.endsWith('xml_usc01@113-31.zip'))!, corrupt], retrievedAt: RETRIEVED_AT }),
    ).rejects.toThrow(/xml_usc13@113-31\.zip: usc13\.xml is corrupt \(CRC-32/);
    expect(await s.versions.listEditions('usc')).toEqual([]);
    expect(await s.versions.carries('us')).toBe(false);
  });
});
