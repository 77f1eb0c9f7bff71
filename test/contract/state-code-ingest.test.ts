/**
 * Every Tennessee and Mississippi title file the repo carries (data/states: five titles of TN releases 72–76 and MS
 * releases 72–78, the publisher's structured HTML) through the ingest job into the real adapters (DynamoDB adapter on
 * dynalite, the SQLite search index): all of them with no error; a re-run that changes nothing; the same stored
 * state whatever order the files arrive in; versions across releases; statuses; provenance; and a file the reader
 * cannot read, or a section it cannot.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestReport } from '#ingest/engine.ts';
import { type IngestJobDeps, runIngest } from '#ingest/jobs.ts';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import type { SectionVersion } from '#law/model.ts';
import { runAudit } from '#ops/audit.ts';
import { localDateOf } from '#shared/dates.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { type DynaliteStores, openDynaliteStores } from '../support/dynalite-stores.ts';

const STATES = fileURLToPath(new URL('../../data/states/', import.meta.url));
const TN = join(STATES, 'transforms/tn/octn');
const MS = join(STATES, 'transforms/ms/ocms');
const RETRIEVED_AT = '2026-11-24T08:00:00Z';
const INGESTED_AT = new Date('2026-11-24T09:00:00.000Z');

let stores: DynaliteStores;
let doc: DynamoDBDocumentClient;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'asof-state-ingest-'));
  stores = await openDynaliteStores();
  doc = createDocumentClient(stores.dynamo);
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
async function openSandbox(): Promise<IngestJobDeps> {
  const n = ++sandboxes;
  const tables = tableNames(`states-${n}`);
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

/** What a store holds of the states, as a user can see it: each key's history and each version's text and provenance. */
async function stateOf(deps: IngestJobDeps) {
  const versions: string[] = [];
  for await (const v of deps.versions.scanVersions()) {
    const p = v.provenance;
    versions.push(
      [
        v.citation.jurisdiction,
        v.citation.key,
        v.validFrom,
        v.validTo,
        v.status,
        v.catchline,
        p.contentHash,
        p.versionLabel,
        p.sourceUrl,
      ].join('|'),
    );
  }
  const histories: string[] = [];
  for await (const h of deps.versions.scanHistories()) {
    histories.push(`${h.jurisdiction}|${h.key}|${h.observations.map((o) => `${o.date}:${o.identity ?? '-'}`).join(',')}`);
  }
  return { versions: versions.sort(), histories: histories.sort() };
}

const versionsOf = async (deps: IngestJobDeps, jurisdiction: string, key: string): Promise<SectionVersion[]> => {
  const ref = { jurisdiction, corpus: 'statutes' as const, key };
  const out: SectionVersion[] = [];
  for (const s of await deps.versions.listVersions(ref)) out.push((await deps.versions.getVersion(ref, s.validFrom))!);
  return out;
};

const span = (v: SectionVersion) => `${localDateOf(v.validFrom)}..${v.validTo.startsWith('9999') ? 'open' : localDateOf(v.validTo)}`;

let all: IngestJobDeps;
let firstRun: IngestReport[];

describe('every title file of both states, in date order', () => {
  beforeAll(async () => {
    all = await openSandbox();
    firstRun = [
      ...(await runIngest(all, { kind: 'state-code', state: 'tn', paths: [STATES], retrievedAt: RETRIEVED_AT })),
      ...(await runIngest(all, { kind: 'state-code', state: 'ms', paths: [STATES], retrievedAt: RETRIEVED_AT })),
    ];
  }, 300_000);

  it('ingests all 60 files with no error; the only sections skipped are the second texts of a section a release prints twice', async () => {
    expect(firstRun).toHaveLength(25 + 35);
    expect(firstRun.every((r) => r.documents > 30)).toBe(true);
    const skipped = firstRun.flatMap((r) => (r.edition.skipped?.sample ?? []).map((s) => `${r.edition.label} ${s.where} ${s.reason}`));
    expect(skipped.sort()).toEqual([
      'r72 t05c03s5-3-151 heading-without-text',
      'r72 t05c07s5-7-1 heading-without-text',
      'r73 t01c03s1-3-113.1 not-in-force-on-release-date',
      'r73 t05c03s5-3-151 heading-without-text',
      'r73 t05c07s5-7-1 heading-without-text',
      'r74 t01c03s1-3-113.1 not-in-force-on-release-date',
      'r74 t05c03s5-3-151 heading-without-text',
      'r74 t05c07s5-7-1 heading-without-text',
      'r74 t95c15s95-15-1 not-in-force-on-release-date',
      'r75 t01c03s1-3-113 not-in-force-on-release-date',
    ]);
    const runs = await runAudit({ ...all, ops: all.ops }, 'manual');
    for (const j of ['tn', 'ms']) {
      const run = runs.find((r) => r.run.jurisdiction === j);
      expect(run?.run.failed, JSON.stringify(run?.findings)).toBe(0);
    }
  });

  it('a second run of the same files changes nothing', { timeout: 300_000 }, async () => {
    const before = await stateOf(all);
    const again = await runIngest(all, { kind: 'state-code', state: 'tn', paths: [TN], retrievedAt: RETRIEVED_AT });
    expect(again.every((r) => r.unchanged)).toBe(true);
    expect(await stateOf(all)).toEqual(before);
  });

  it('keeps one version of a text no release changed, and a new one where a release changed it', async () => {
    expect((await versionsOf(all, 'tn', '1-3-101')).map(span)).toEqual(['2020-09-01..open']);
    expect((await versionsOf(all, 'ms', '87-1-1')).map(span)).toEqual(['2018-12-13..open']);
    // Acts 2020, ch. 707 rewrote the holidays of title 15: release 73 shows the new text.
    const mothersDay = await versionsOf(all, 'tn', '15-2-102');
    expect(mothersDay.map(span)).toEqual(['2020-09-01..2020-09-30', '2020-09-30..open']);
    expect(mothersDay[0]!.bodyText).toContain('to be proclaimed as such by the governor');
    expect(mothersDay[1]!.bodyText).not.toContain('to be proclaimed as such by the governor');
    expect(mothersDay.map((v) => v.provenance.versionLabel)).toEqual(['r72', 'r73']);
  });

  it('of two texts a release prints of one section, carries the one in force on its date, saying so', async () => {
    const v = await versionsOf(all, 'tn', '1-3-113');
    expect(v.map(span)).toEqual(['2020-09-01..2021-02-04', '2021-02-04..open']);
    expect(v[0]!.catchline).toBe(
      'Eighteen-year-olds — Legal responsibility — Alcoholic beverage restrictions on persons under twenty-one (21) years of age.',
    );
    expect(v[1]!.catchline).toContain('Tobacco, smoking hemp, or vapor products');
    expect(v[1]!.note).toContain('"Effective on January 1, 2021", in force on the release\'s date');
    const ms = await versionsOf(all, 'ms', '95-15-1');
    expect(ms.map(span)).toEqual(['2018-12-13..2019-07-08', '2019-07-08..2019-10-08', '2019-10-08..open']);
    expect(ms[1]!.bodyText).toMatch(/^\(1\) The School Safety Center/);
  });

  it('reads placeholders, runs and lists of sections with their statuses, and text the converter left before its heading', async () => {
    const reserved = await versionsOf(all, 'tn', '31-3-108-to-31-3-119');
    expect(reserved.map((v) => [v.status, v.citation.display, v.bodyText])).toEqual([
      ['reserved', 'Tenn. Code Ann. §§ 31-3-108 to 31-3-119', ''],
    ]);
    const [survive] = await versionsOf(all, 'tn', '31-3-120');
    expect(survive!.bodyText).toMatch(/^\(a\) An individual who fails to survive the decedent by one hundred twenty \(120\) hours/);
    expect(survive!.historyNote).toBe('Acts 1997, ch. 426, § 16.');
    for (const key of ['31-6-117', '31-6-118']) expect((await versionsOf(all, 'tn', key)).map((v) => v.status)).toEqual(['repealed']);
    const [repealedRun] = await versionsOf(all, 'ms', '1-1-1-to-1-1-6');
    expect(repealedRun!.status).toBe('repealed');
    expect(repealedRun!.bodyText).toBe('Repealed by Laws, 1996, ch. 502, § 21, eff from and after passage (approved April 11, 1996).');
    expect(repealedRun!.historyNote).toMatch(/^\[Codes, 1942, §§ 21-01 to 21-03/);
    // Release 75 renumbered Mississippi's 5-3-75/77 as reserved and printed 5-3-79's text under them.
    expect((await versionsOf(all, 'ms', '5-3-77')).map((v) => [v.status, span(v)])).toEqual([['reserved', '2019-10-08..open']]);
    const mandates = await versionsOf(all, 'ms', '5-3-79');
    expect(mandates.every((v) => v.bodyText.startsWith('Before December 1, 1996, the Joint Legislative Committee'))).toBe(true);
  });

  it('carries nothing for a heading without text or catchline; the placeholder a later release prints for it starts there', async () => {
    expect(await versionsOf(all, 'ms', '5-3-151')).toEqual([]);
    expect((await versionsOf(all, 'ms', '5-3-151-to-5-3-167')).map((v) => [v.status, span(v)])).toEqual([['repealed', '2019-10-08..open']]);
  });

  it('ends the interval of a section a later release of its title no longer shows', async () => {
    // Prepare: release 73 of title 15 as published, then release 74 without § 15-2-102 (its whole division cut out)
    const s = await openSandbox();
    await runIngest(s, { kind: 'state-code', state: 'tn', paths: [join(TN, 'r73/gov.tn.tca.title.15.html')], retrievedAt: RETRIEVED_AT });
    const html = await readFile(join(TN, 'r74/gov.tn.tca.title.15.html'), 'utf8');
    const cut = html.replace(/<div>\s*<h3 id="t15c02s15-2-102">[\s\S]*?<\/div>/, '');
    expect(cut.length).toBeLessThan(html.length);
    await mkdir(join(tmp, 'cut', 'r74'), { recursive: true });
    const file = join(tmp, 'cut', 'r74', 'gov.tn.tca.title.15.html');
    await writeFile(file, cut);

    // Act
    const [report] = await runIngest(s, { kind: 'state-code', state: 'tn', paths: [file], retrievedAt: RETRIEVED_AT });

    // Assess
    expect(report!.absentKeys).toBe(1);
    expect((await versionsOf(s, 'tn', '15-2-102')).map(span)).toEqual(['2020-09-30..2020-12-22']);
    expect((await versionsOf(s, 'tn', '15-2-101')).map(span)).toEqual(['2020-09-30..open']);
  });

  it("gives each version the publisher's file of the release it first appeared in, the statute text and its history, not the annotations", async () => {
    const [v] = await versionsOf(all, 'tn', '1-3-101');
    expect(v!.provenance.sourceUrl).toBe(
      `https://github.com/UniCourt/cic-code-tn/blob/${STATE_CODE_FORMATS.tn!.commit}/transforms/tn/octn/r72/gov.tn.tca.title.01.html`,
    );
    expect(v!.temporalBasis).toBe('compiled-edition');
    expect(v!.citation).toEqual({
      jurisdiction: 'tn',
      corpus: 'statutes',
      key: '1-3-101',
      display: 'Tenn. Code Ann. § 1-3-101',
      parts: { title: '1', chapter: '3', section: '1-3-101' },
    });
    expect(v!.bodyText).toBe(
      'The repeal of a statute does not affect any right which accrued, any duty imposed, any penalty incurred, nor any proceeding commenced, under or by virtue of the statute repealed.',
    );
    expect(v!.historyNote).toBe('Code 1858, § 49; Shan., § 61; Code 1932, § 12; T.C.A. (orig. ed.), § 1-301.');
    const [ms] = await versionsOf(all, 'ms', '87-1-1');
    expect(ms!.provenance.sourceUrl).toMatch(
      /^https:\/\/github\.com\/UniCourt\/cic-code-ms\/blob\/efd509d2[0-9a-f]+\/transforms\/ms\/ocms\/r72\/gov\.ms\.code\.title\.87\.html$/,
    );
    expect(ms!.historyNote).toMatch(/^Codes, Hutchinson’s 1848/);
    expect(ms!.bodyText).not.toMatch(/Cross References|A\.L\.R\./);
    const [lists] = await versionsOf(all, 'tn', '1-1-101');
    expect(lists!.bodyText.split('\n').map((l) => l.slice(0, 4))).toEqual(['(a) ', '(b) ']);
  });
});

describe('the files in another order', () => {
  it('reach the same stored state, newest release first, one file at a time', { timeout: 300_000 }, async () => {
    const s = await openSandbox();
    for (const release of [76, 75, 74, 73, 72]) {
      await runIngest(s, { kind: 'state-code', state: 'tn', paths: [join(TN, `r${release}`)], retrievedAt: RETRIEVED_AT });
    }
    const got = await stateOf(s);
    const expected = await stateOf(all);
    const tn = (state: { versions: string[]; histories: string[] }) => ({
      versions: state.versions.filter((l) => l.startsWith('tn|')),
      histories: state.histories.filter((l) => l.startsWith('tn|')),
    });
    expect(got.histories.length).toBeGreaterThan(250);
    expect(tn(got)).toEqual(tn(expected));
  });
});

describe('what the reader cannot read', () => {
  it('a section whose heading has no section number is skipped, named; the rest of the file is stored', async () => {
    await mkdir(join(tmp, 'r72'), { recursive: true });
    const file = join(tmp, 'r72', 'gov.ms.code.title.87.html');
    const html = await readFile(join(MS, 'r72/gov.ms.code.title.87.html'), 'utf8');
    const unreadable = html.replace(/(<h3 id="t87c01s87-1-1">\s*<b>\s*)§ 87-1-1\./, '$1§ eighty-seven.');
    expect(unreadable).not.toBe(html);
    await writeFile(file, unreadable);
    const s = await openSandbox();
    const [report] = await runIngest(s, { kind: 'state-code', state: 'ms', paths: [file], retrievedAt: RETRIEVED_AT });
    expect(report!.edition.skipped?.sample).toEqual([
      { where: 't87c01s87-1-1', reason: 'unreadable-heading', detail: expect.stringContaining("'§ eighty-seven. Utterly void.'") },
    ]);
    expect(report!.documents).toBe(45);
    expect(await versionsOf(s, 'ms', '87-1-1')).toEqual([]);
    expect((await versionsOf(s, 'ms', '87-1-3')).length).toBe(1);
  });

  it('a file without a release line, or of another release than its folder, is refused before anything is written', async () => {
    const s = await openSandbox();
    const noRelease = join(tmp, 'gov.tn.tca.title.15.html');
    const html = await readFile(join(TN, 'r72/gov.tn.tca.title.15.html'), 'utf8');
    await writeFile(noRelease, html.replace(/Release 72 of/g, 'Edition of'));
    await expect(runIngest(s, { kind: 'state-code', state: 'tn', paths: [noRelease] })).rejects.toThrow(/no release line/);
    const misplaced = join(tmp, 'r73', 'gov.tn.tca.title.15.html');
    await mkdir(join(tmp, 'r73'), { recursive: true });
    await copyFile(join(TN, 'r72/gov.tn.tca.title.15.html'), misplaced);
    await expect(runIngest(s, { kind: 'state-code', state: 'tn', paths: [misplaced] })).rejects.toThrow(
      /states release 72 but lies in the folder of release 73/,
    );
    await expect(runIngest(s, { kind: 'state-code', state: 'ga', paths: [TN] })).rejects.toThrow(/no state code 'ga'/);
    await expect(runIngest(s, { kind: 'state-code', state: 'ms', paths: [TN] })).rejects.toThrow(/no ms title file/);
    expect((await stateOf(s)).versions).toEqual([]);
  });
});
