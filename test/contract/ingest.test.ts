/**
 * The ingest engine and the ingest job against the real adapters (DynamoDB adapter on dynalite, the SQLite search
 * index) with the real sample data: editions in any order, an edition between two loaded ones, re-runs, crashes
 * after any write, two ingests at once, and bad input.
 *
 * One embedded store set per file. Each test works in sandboxes of its own: fresh tables on the same dynalite and a
 * search index on a file of its own, built by the production adapters (or cloned from another sandbox).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDcManifest, readDcSection } from '#ingest/dc-code.ts';
import { type IngestDeps, type IngestReport, ingestEdition } from '#ingest/engine.ts';
import { type IngestRequest, runIngest } from '#ingest/jobs.ts';
import type { SourceDocument, SourceEdition } from '#ingest/source.ts';
import { readUslmTitle } from '#ingest/uslm.ts';
import { COLLECTIONS } from '#law/collections.ts';
import { refId, type SectionRef, type SectionVersion } from '#law/model.ts';
import type { EditionRecord, KeyHistory, SearchDocument, SearchIndex, SearchQuery, StoreWrite, VersionStore } from '#law/ports.ts';
import { LOCAL_PROCESSES } from '#local/processes.ts';
import { runAudit } from '#ops/audit.ts';
import { encodeOwner, type LeaseOwner } from '#ops/leases.ts';
import type { OpsStore } from '#ops/ports.ts';
import { addDays, localDateOf } from '#shared/dates.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { type DynaliteStores, openDynaliteStores } from '../support/dynalite-stores.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const USC_113_31 = `${SAMPLE}uslm/usc01@113-31.xml`;
const USC_117_80 = `${SAMPLE}uslm/usc01@117-80.xml`;
const DC_MANIFEST = `${SAMPLE}dc-code/manifest.csv`;
/** The retrieval time the bundled sample records (data/sample/sources.json). */
const RETRIEVED_AT = '2026-11-22T07:25:00Z';
/** A fixed clock: two ingests of the same data write identical items, so whole stores compare with toEqual. */
const INGESTED_AT = new Date('2026-11-22T08:00:00.000Z');
const clock =
  (at: Date = INGESTED_AT) =>
  () =>
    at;

const dcRef = (key: string): SectionRef => ({ jurisdiction: 'dc', corpus: 'statutes', key });

// ---- stores ---------------------------------------------------------------------------------------------------

let stores: DynaliteStores;
let doc: DynamoDBDocumentClient;
/** The sandboxes' search index files, and the indexes open on them (closed at the end). */
let sandboxDir: string;
const sandboxIndexes: SqliteSearchIndex[] = [];

beforeAll(async () => {
  stores = await openDynaliteStores();
  doc = createDocumentClient(stores.dynamo);
  sandboxDir = await mkdtemp(join(tmpdir(), 'asof-ingest-'));
});

afterAll(async () => {
  doc?.destroy();
  await Promise.all(sandboxIndexes.map((index) => index.close()));
  await stores?.close();
  if (sandboxDir) await rm(sandboxDir, { recursive: true, force: true });
});

/** Everything an ingest, a re-run and an audit need, on tables and a search index no other sandbox sees. */
interface Sandbox extends IngestDeps {
  ops: OpsStore;
  table: string;
  /** The search index itself (its file's rows are compared and restored below the port). */
  index: SqliteSearchIndex;
  file: string;
}

let sandboxCount = 0;

/** A quoted SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Fresh tables and a search index on a new file: empty, or a copy of `copyOf`'s index. */
async function openSandbox(copyOf?: Sandbox): Promise<Sandbox> {
  const n = ++sandboxCount;
  const tables = tableNames(`ingest-${n}`);
  const file = join(sandboxDir, `search-${n}.sqlite`);
  await ensureTables(doc, { versions: tables.versions, ops: tables.ops });
  // VACUUM INTO writes a consistent copy of the whole database (rows, FTS index, impact lists) to a new file.
  if (copyOf) await copyOf.index.workers.exec(`VACUUM INTO ${literal(file)}`);
  const index = await SqliteSearchIndex.open(file, { readers: 1 });
  sandboxIndexes.push(index);
  return {
    table: tables.versions,
    index,
    file,
    versions: new DynamoVersionStore(doc, tables.versions),
    search: index,
    ops: new DynamoOpsStore(doc, tables.ops),
    now: clock(),
  };
}

async function rawItems(table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A new sandbox holding exactly the items and search rows of `from` (cheaper than ingesting the same editions again). */
async function cloneSandbox(from: Sandbox): Promise<Sandbox> {
  const to = await openSandbox(from);
  const items = await rawItems(from.table);
  for (let i = 0; i < items.length; i += 25) {
    const out = await doc.send(
      new BatchWriteCommand({ RequestItems: { [to.table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
    );
    expect(Object.keys(out.UnprocessedItems ?? {})).toEqual([]);
  }
  return to;
}

/**
 * Puts `s` back into the state of `base` (which `s` was cloned from) by rewriting only the items and rows that differ:
 * much cheaper than a new clone when a few writes separate them.
 */
async function restoreSandbox(s: Sandbox, base: Sandbox, baseItems: readonly Record<string, unknown>[]): Promise<void> {
  const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}\u0000${String(item.sk)}`;
  const wanted = new Map(baseItems.map((item) => [keyOf(item), item]));
  const requests: Array<{ PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } }> = [];
  for (const item of await rawItems(s.table)) {
    const target = wanted.get(keyOf(item));
    wanted.delete(keyOf(item));
    if (!target) requests.push({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } });
    else if (!isDeepStrictEqual(item, target)) requests.push({ PutRequest: { Item: target } });
  }
  for (const item of wanted.values()) requests.push({ PutRequest: { Item: item } });
  for (let i = 0; i < requests.length; i += 25) {
    const out = await doc.send(new BatchWriteCommand({ RequestItems: { [s.table]: requests.slice(i, i + 25) } }));
    expect(Object.keys(out.UnprocessedItems ?? {})).toEqual([]);
  }
  // The search rows, on the index's own writer (its triggers keep the FTS index in step): the documents that differ
  // from base's go, and base's documents now missing are copied over.
  await s.index.workers.exec(`
    ATTACH DATABASE ${literal(base.file)} AS base;
    DELETE FROM main.search_docs WHERE doc NOT IN (
      SELECT d.doc FROM main.search_docs d JOIN main.search_text t ON t.doc = d.doc
      JOIN base.search_docs bd ON bd.id = d.id JOIN base.search_text bt ON bt.doc = bd.doc
      WHERE (d.jurisdiction, d.corpus, d.key, d.valid_from, d.valid_to, t.catchline, t.body, t.hit)
          = (bd.jurisdiction, bd.corpus, bd.key, bd.valid_from, bd.valid_to, bt.catchline, bt.body, bt.hit));
    INSERT INTO main.search_docs (id, jurisdiction, corpus, key, valid_from, valid_to)
      SELECT id, jurisdiction, corpus, key, valid_from, valid_to FROM base.search_docs WHERE id NOT IN (SELECT id FROM main.search_docs);
    INSERT INTO main.search_text (doc, catchline, body, hit)
      SELECT d.doc, bt.catchline, bt.body, bt.hit FROM main.search_docs d
      JOIN base.search_docs bd ON bd.id = d.id JOIN base.search_text bt ON bt.doc = bd.doc
      WHERE d.doc NOT IN (SELECT doc FROM main.search_text);
    DETACH DATABASE base;
  `);
}

// ---- what a store holds -----------------------------------------------------------------------------------------

/** A search document as its file holds it (the body as its MD5; `hit`: the hit's fields, JSON). */
interface SearchRow {
  id: string;
  scope: string;
  valid_from: number;
  valid_to: number;
  catchline: string;
  hit: string;
  body_md5: string;
}

interface StoreState {
  versions: SectionVersion[];
  histories: KeyHistory[];
  editions: EditionRecord[];
  search: SearchRow[];
}

const versionOrder = (a: SectionVersion, b: SectionVersion) =>
  refId(a.citation).localeCompare(refId(b.citation)) || a.validFrom.localeCompare(b.validFrom);

async function stateOf(s: { versions: VersionStore; index: Pick<SqliteSearchIndex, 'workers'> }): Promise<StoreState> {
  const versions: SectionVersion[] = [];
  for await (const v of s.versions.scanVersions()) versions.push(v);
  const histories: KeyHistory[] = [];
  for await (const h of s.versions.scanHistories()) histories.push(h);
  const editions = (await Promise.all(COLLECTIONS.map((c) => s.versions.listEditions(c.id)))).flat();
  const rows = await s.index.workers.writerAll<Omit<SearchRow, 'body_md5'> & { body: string }>(
    `SELECT d.id, d.jurisdiction || '/' || d.corpus || '/' || d.key AS scope, d.valid_from, d.valid_to, t.catchline, t.hit, t.body
     FROM search_docs d JOIN search_text t ON t.doc = d.doc ORDER BY d.id`,
  );
  const search = rows.map(({ body, ...row }) => ({ ...row, body_md5: createHash('md5').update(body).digest('hex') }));
  return {
    versions: versions.sort(versionOrder),
    histories: histories.sort((a, b) => `${a.jurisdiction}#${a.corpus}#${a.key}`.localeCompare(`${b.jurisdiction}#${b.corpus}#${b.key}`)),
    editions: editions.sort((a, b) => a.id.localeCompare(b.id)),
    search,
  };
}

/** The state without what legitimately depends on the order writes arrived in: history revisions. */
const withoutRevisions = (state: StoreState) => ({ ...state, histories: state.histories.map(({ rev: _rev, ...h }) => h) });

const versionsOfKey = (state: StoreState, key: string) => state.versions.filter((v) => v.citation.key === key);

interface Probe {
  ref: SectionRef;
  date: string;
}

/** Every version boundary of every key in `versions` and the day before each (so also a date before all of them). */
function probesOf(versions: readonly SectionVersion[]): Probe[] {
  const byKey = new Map<string, { ref: SectionRef; dates: Set<string> }>();
  for (const v of versions) {
    const entry = byKey.get(refId(v.citation)) ?? {
      ref: { jurisdiction: v.citation.jurisdiction, corpus: v.citation.corpus, key: v.citation.key },
      dates: new Set<string>(),
    };
    for (const boundary of [localDateOf(v.validFrom), localDateOf(v.validTo)]) {
      if (boundary.startsWith('9999')) continue;
      entry.dates.add(boundary).add(addDays(boundary, -1));
    }
    byKey.set(refId(v.citation), entry);
  }
  return [...byKey.values()].flatMap(({ ref, dates }) => [...dates].sort().map((date) => ({ ref, date })));
}

async function lookups(versions: VersionStore, probes: readonly Probe[]): Promise<(SectionVersion | null)[]> {
  const answers: (SectionVersion | null)[] = [];
  for (const p of probes) answers.push(await versions.findInForce(p.ref, p.date));
  return answers;
}

// ---- the sample -------------------------------------------------------------------------------------------------

let usc113: SourceEdition;
let usc117: SourceEdition;
let dc: SourceEdition[];
const dcOn = (date: string): SourceEdition => {
  const e = dc.find((x) => x.date === date);
  if (!e) throw new Error(`no D.C. edition dated ${date} in the manifest`);
  return e;
};

beforeAll(async () => {
  [usc113] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
  [usc117] = (await readUslmTitle(USC_117_80, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
  dc = await readDcManifest(DC_MANIFEST, { retrievedAt: RETRIEVED_AT });
});

async function ingestAll(deps: IngestDeps, editions: readonly SourceEdition[]): Promise<IngestReport[]> {
  const reports: IngestReport[] = [];
  for (const e of editions) reports.push(await ingestEdition(deps, e));
  return reports;
}

const once = <T>(build: () => Promise<T>): (() => Promise<T>) => {
  let built: Promise<T> | undefined;
  return () => (built ??= build());
};

/** Both US Code release points and every D.C. edition, each in date order: the state every other order must reach. */
const inOrder = once(async () => {
  const s = await openSandbox();
  await ingestAll(s, [usc113, usc117, ...dc]);
  return { sandbox: s, state: await stateOf(s) };
});

/** D.C. editions held back from `heldBack`: one splits a run (2022-09-08), one arrives late (2021-11-24), one drops a section (2024-06-22). */
const HELD_BACK = ['2021-11-24', '2022-09-08', '2024-06-22'];
const heldBack = once(async () => {
  const s = await openSandbox();
  await ingestAll(
    s,
    dc.filter((e) => !HELD_BACK.includes(e.date)),
  );
  return s;
});

/** The in-order state of the D.C. editions alone. */
const dcOnlyState = once(async () => {
  const { state } = await inOrder();
  return {
    versions: state.versions.filter((v) => v.citation.jurisdiction === 'dc'),
    histories: state.histories.filter((h) => h.jurisdiction === 'dc'),
    editions: state.editions.filter((e) => e.collection === 'dc-code'),
    search: state.search.filter((r) => r.id.startsWith('dc#')),
  };
});

// ---- 1. editions in any order ---------------------------------------------------------------------------------

describe('editions in any order', () => {
  it('US Code: 117-80 before 113-31 gives every section the versions of the in-order ingest', async () => {
    // Prepare
    const expected = (await inOrder()).state;
    const late = await openSandbox();

    // Act
    await ingestAll(late, [usc117, usc113]);

    // Assess
    const got = await stateOf(late);
    const usc = (state: StoreState) => ({
      versions: state.versions.filter((v) => v.citation.jurisdiction === 'us'),
      histories: withoutRevisions(state).histories.filter((h) => h.collection === 'usc'),
      editions: state.editions.filter((e) => e.collection === 'usc'),
      search: state.search.filter((r) => r.id.startsWith('us#')),
    });
    expect(usc(got)).toEqual(usc(expected));
    expect(got.versions).toHaveLength(44);
    expect(new Set(got.versions.map((v) => v.citation.key)).size).toBe(39);
    // The sections the 2022 release point changed: two versions, each labelled with the release point it came from.
    const labels = (vs: SectionVersion[]) => vs.map((v) => [localDateOf(v.validFrom), localDateOf(v.validTo), v.provenance.versionLabel]);
    const twoVersionKeys = [...new Set(got.versions.map((v) => v.citation.key))].filter((k) => versionsOfKey(got, k).length === 2);
    expect(twoVersionKeys).toHaveLength(5);
    for (const key of twoVersionKeys) {
      expect(labels(versionsOfKey(got, key))).toEqual([
        ['2013-07-26', '2022-01-27', '113-31'],
        ['2022-01-27', '9999-12-31', '117-80'],
      ]);
    }
    const probes = probesOf(got.versions);
    expect(await lookups(late.versions, probes)).toEqual(await lookups((await inOrder()).sandbox.versions, probes));
  });

  it('D.C. Code: the manifest editions in a shuffled order give the versions and lookups of the in-order ingest', async () => {
    // Prepare: a seeded permutation that is really out of order
    const { sandbox: reference } = await inOrder();
    const [shuffled] = fc.sample(fc.shuffledSubarray(dc, { minLength: dc.length, maxLength: dc.length }), { seed: 20261122, numRuns: 1 });
    const order = shuffled!.map((e) => e.date);
    expect([...order].sort()).toEqual(dc.map((e) => e.date));
    expect(order.filter((d, i) => i > 0 && d < order[i - 1]!).length).toBeGreaterThan(20);
    const s = await openSandbox();

    // Act
    await ingestAll(s, shuffled!);

    // Assess: whole store (histories up to their revision counters), then every lookup at every boundary
    const got = await stateOf(s);
    expect(withoutRevisions(got)).toEqual(withoutRevisions(await dcOnlyState()));
    const dcVersions = got.versions.filter((v) => v.citation.jurisdiction === 'dc');
    const probes = probesOf(dcVersions);
    expect(probes.length).toBeGreaterThan(100);
    expect(await lookups(s.versions, probes)).toEqual(await lookups(reference.versions, probes));

    // 22-404.05 was added on 2024-03-18 and deleted on 2024-06-22.
    const added = dcRef('22-404.05');
    expect(await s.versions.findInForce(added, '2024-03-17')).toBeNull();
    expect((await s.versions.findInForce(added, '2024-03-18'))?.validFrom).toBe('2024-03-18T00:00:00-04:00');
    expect((await s.versions.findInForce(added, '2024-06-21'))?.validTo).toBe('2024-06-22T00:00:00-04:00');
    expect(await s.versions.findInForce(added, '2024-06-22')).toBeNull();
    expect(await s.versions.findInForce(added, '2024-10-01')).toBeNull();
    expect((await s.versions.listVersions(added)).map((v) => [localDateOf(v.validFrom), localDateOf(v.validTo), v.versionLabel])).toEqual([
      ['2024-03-18', '2024-03-20', '2024-03-18'],
      ['2024-03-20', '2024-03-26', '2024-03-20'],
      ['2024-03-26', '2024-06-22', '2024-03-26'],
    ]);
  });

  it('D.C. Code: the edition that deletes a section, arriving before the section was ever seen, still ends it', async () => {
    // Prepare: only the editions naming 22-404.05, the deletion first
    const s = await openSandbox();
    const touching = dc.filter((e) => e.scope.kind === 'keys' && e.scope.keys.includes('22-404.05'));
    expect(touching.map((e) => e.date)).toEqual(['2024-03-18', '2024-03-20', '2024-03-26', '2024-04-21', '2024-06-22']);

    // Act
    const [deletion] = await ingestAll(s, [touching.at(-1)!]);
    await ingestAll(s, touching.slice(0, -1).reverse());

    // Assess
    expect(deletion).toMatchObject({ documents: 2, absentKeys: 1 });
    expect(
      (await s.versions.getHistories('dc', 'statutes', ['22-404.05']))
        .get('22-404.05')
        ?.observations.map((o) => [o.date, o.identity === null]),
    ).toEqual([
      ['2024-03-18', false],
      ['2024-03-20', false],
      ['2024-03-26', false],
      ['2024-04-21', false],
      ['2024-06-22', true],
    ]);
    expect((await s.versions.findInForce(dcRef('22-404.05'), '2024-06-21'))?.validFrom).toBe('2024-03-26T00:00:00-04:00');
    expect(await s.versions.findInForce(dcRef('22-404.05'), '2024-06-22')).toBeNull();
  });
});

// ---- 2. an edition between two loaded ones ---------------------------------------------------------------------

describe('an edition dated between two loaded ones', () => {
  it('splits the run it falls in: the old version ends on its date, its text runs to the next edition, the next text is kept', async () => {
    // Prepare: every D.C. edition but three; in 28-3814 the 2022-09-08 text differs from 2022-07-20's, and 2022-09-09
    // restores the 2022-07-20 text, so without 2022-09-08 one version runs from 2022-07-20 to 2022-10-05.
    const s = await cloneSandbox(await heldBack());
    const key = dcRef('28-3814');
    const before = await s.versions.findInForce(key, '2022-09-08');
    expect([before?.validFrom, before?.validTo]).toEqual(['2022-07-20T00:00:00-04:00', '2022-10-05T00:00:00-04:00']);

    // Act
    const report = await ingestEdition(s, dcOn('2022-09-08'));

    // Assess
    expect(report.writes).toEqual({ put: 2, setValidTo: 1, delete: 0 });
    const spans = (await s.versions.listVersions(key))
      .filter((v) => v.validFrom >= '2022-07-20' && v.validFrom < '2022-10-06')
      .map((v) => [localDateOf(v.validFrom), localDateOf(v.validTo), v.versionLabel]);
    expect(spans).toEqual([
      ['2022-07-20', '2022-09-08', '2022-07-20'],
      ['2022-09-08', '2022-09-09', '2022-09-08'],
      ['2022-09-09', '2022-10-05', '2022-09-09'],
      ['2022-10-05', '2022-10-28', '2022-10-05'],
    ]);
    const [july, middle, september] = await Promise.all(
      ['2022-08-01', '2022-09-08', '2022-09-09'].map((d) => s.versions.findInForce(key, d)),
    );
    const middleText = await readDcSection(`${SAMPLE}dc-code/28-3814/2022-09-08_b3071206.xml`, '28-3814');
    expect(middle?.bodyText).toBe(middleText.bodyText);
    expect(middle?.bodyText).not.toBe(july?.bodyText);
    // The 2022-09-09 version holds the restored text (copied from the stored 2022-07-20 version).
    expect(september?.bodyText).toBe(july?.bodyText);
    expect(september?.provenance.contentHash).toBe(july?.provenance.contentHash);

    // Once the other held-back editions arrive too, the store is the in-order store.
    await ingestAll(s, [dcOn('2024-06-22'), dcOn('2021-11-24')]);
    expect(withoutRevisions(await stateOf(s))).toEqual(withoutRevisions(await dcOnlyState()));
  });
});

// ---- 3. idempotence ---------------------------------------------------------------------------------------------

describe('re-running an ingest', () => {
  it('changes nothing: no writes reported, versions, histories and search rows identical', async () => {
    // Prepare: a copy of the in-order store; the re-run happens a day later
    const s = await cloneSandbox((await inOrder()).sandbox);
    const before = await stateOf(s);
    const count = await s.search.count();
    const later = { ...s, now: clock(new Date('2026-11-23T08:00:00.000Z')) };

    // Act
    const reports = await ingestAll(later, [usc113, usc117, ...dc]);

    // Assess
    expect(reports).toHaveLength(2 + dc.length);
    for (const r of reports)
      expect({ edition: r.edition.id, changedKeys: r.changedKeys, writes: r.writes }).toEqual({
        edition: r.edition.id,
        changedKeys: 0,
        writes: { put: 0, setValidTo: 0, delete: 0 },
      });
    const after = await stateOf(s);
    expect(after.versions).toEqual(before.versions);
    expect(after.histories).toEqual(before.histories);
    expect(after.search).toEqual(before.search);
    expect(await s.search.count()).toBe(count);
    expect(count).toBe(before.versions.length);
    // Only the edition records say they were read again.
    expect(after.editions.map(({ ingestedAt: _at, ...e }) => e)).toEqual(before.editions.map(({ ingestedAt: _at, ...e }) => e));
    expect(new Set(after.editions.map((e) => e.ingestedAt))).toEqual(new Set(['2026-11-23T08:00:00.000Z']));
    expect(reports.every((r) => r.unchanged)).toBe(true);
  });

  it('recognises an edition ingested completely with the same documents: its record is the only write', async () => {
    // Prepare: every write of the re-run passes the recorder
    const s = await cloneSandbox(await uscAt113());
    const recorder = new CrashPoint(Number.POSITIVE_INFINITY);

    // Act
    const report = await ingestEdition(crashing(s, recorder, usc113), usc113);

    // Assess
    expect(report).toMatchObject({ documents: 39, changedKeys: 0, absentKeys: 0, unchanged: true });
    expect(recorder.log).toEqual([{ kind: 'edition', key: report.edition.id }]);
    expect(report.edition.completeDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(withoutRevisions(await stateOf(s))).toEqual(withoutRevisions(await stateOf(await uscAt113())));
  });

  it('writes an edition again whose record another edition of its date has overtaken since', async () => {
    // Prepare: 113-31 complete, then an edition of the same date speaking for 1-1 alone, with another text
    const s = await cloneSandbox(await uscAt113());
    const original = await s.versions.findInForce({ jurisdiction: 'us', corpus: 'statutes', key: '1-1' }, '2014-01-01');
    const overtaking = badEdition({ date: usc113.date, scope: { kind: 'keys', keys: ['1-1'] }, documents: [stubDocument('1-1')] });
    await ingestEdition(s, overtaking);
    expect((await s.versions.findInForce(original!.citation, '2014-01-01'))?.bodyText).toBe('Stand-in text of 1-1.');

    // Act
    const report = await ingestEdition(s, usc113);

    // Assess: read and written again, so 113-31's text is back where it speaks last
    expect(report).toMatchObject({ unchanged: false, changedKeys: 1 });
    expect((await s.versions.findInForce(original!.citation, '2014-01-01'))?.bodyText).toBe(original?.bodyText);
  });
});

/** The edition, and how many times its documents were begun to be read. */
function countingReads(edition: SourceEdition, fingerprint?: () => Promise<string | null>): { edition: SourceEdition; reads(): number } {
  let reads = 0;
  const documents = edition.documents as AsyncIterable<SourceDocument>;
  return {
    edition: {
      ...edition,
      documents: {
        [Symbol.asyncIterator]: () => {
          reads++;
          return documents[Symbol.asyncIterator]();
        },
      },
      ...(fingerprint && { fingerprint }),
    },
    reads: () => reads,
  };
}

describe('re-running a fingerprinted source (a USLM file)', () => {
  const recordOf = async (s: Sandbox, id: string) => (await s.versions.listEditions('usc')).find((e) => e.id === id);

  it('skips the edition unread when its file and reader are the ones its last complete ingest recorded', async () => {
    // Prepare: 113-31 complete; its record names the text and the reader's code it was read with
    const s = await cloneSandbox(await uscAt113());
    const [edition] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
    const counted = countingReads(edition);
    const recorder = new CrashPoint(Number.POSITIVE_INFINITY);
    const id = (await s.versions.listEditions('usc'))[0]!.id;
    const recorded = await recordOf(s, id);
    expect(recorded?.sourceFingerprint).toMatch(/^uslm:usc:[0-9a-f]{64}:[0-9a-f]{64}$/);

    // Act
    const report = await ingestEdition(crashing(s, recorder, counted.edition), counted.edition);

    // Assess: never read; the record is the only write, as after a reading that found the same documents
    expect(counted.reads()).toBe(0);
    expect(report).toMatchObject({ documents: 39, changedKeys: 0, absentKeys: 0, skipped: 0, unchanged: true });
    expect(recorder.log).toEqual([{ kind: 'edition', key: id }]);
    expect(await recordOf(s, id)).toEqual(recorded);
    expect(withoutRevisions(await stateOf(s))).toEqual(withoutRevisions(await stateOf(await uscAt113())));
  });

  it('reads the edition when the fingerprint differs (another file or reader), and records the new one', async () => {
    const s = await cloneSandbox(await uscAt113());
    const [edition] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
    const counted = countingReads(edition, async () => 'uslm:usc:another-reader');

    const report = await ingestEdition(s, counted.edition);

    // Read once (the check pass holds the documents for the writes); the same documents, so nothing else is written
    expect(counted.reads()).toBe(1);
    expect(report).toMatchObject({ documents: 39, changedKeys: 0, unchanged: true });
    expect((await recordOf(s, report.edition.id))?.sourceFingerprint).toBe('uslm:usc:another-reader');
  });

  it('reads the edition when its last ingest did not complete, whatever fingerprint its record holds', async () => {
    // Prepare: the record as an ingest cut off midway leaves it (no completeDigest), with a fingerprint that matches
    const s = await cloneSandbox(await uscAt113());
    const id = (await s.versions.listEditions('usc'))[0]!.id;
    const { completeDigest: _digest, ...cutOff } = (await recordOf(s, id))!;
    await s.versions.putEdition(cutOff);
    const [edition] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
    const counted = countingReads(edition, async () => cutOff.sourceFingerprint ?? null);

    const report = await ingestEdition(s, counted.edition);

    expect(counted.reads()).toBe(1);
    expect(report.edition.completeDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(await recordOf(s, id)).toMatchObject({
      completeDigest: report.edition.completeDigest,
      sourceFingerprint: cutOff.sourceFingerprint,
    });
  });
});

// ---- 4. crash safety --------------------------------------------------------------------------------------------

const VERSION_WRITES = new Set(['put', 'put (copy)', 'setValidTo', 'delete']);

class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

interface WriteLogEntry {
  kind: string;
  key: string;
}

/**
 * The process dies after `budget` successful writes. Every write of both stores passes here one at a time, in the
 * order the engine issues them (the engine's parallel writes touch different items, so any order of them is one it
 * could have produced); the write after the budget throws instead of reaching the store.
 */
class CrashPoint {
  readonly log: WriteLogEntry[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly budget: number) {}

  write<T>(kind: string, key: string, op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.log.length >= this.budget) throw new SimulatedCrash(`crash before write ${this.log.length + 1} (${kind} ${key})`);
      this.log.push({ kind, key });
      return op();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Forwards to the real adapter; every write goes through the crash point. */
class CrashingVersionStore implements VersionStore {
  constructor(
    private readonly inner: VersionStore,
    private readonly crash: CrashPoint,
    /** The ingested edition's date: a put starting elsewhere copies stored text. */
    private readonly editionDate: string,
  ) {}

  findInForce = (ref: SectionRef, date: string) => this.inner.findInForce(ref, date);
  listVersions = (ref: SectionRef) => this.inner.listVersions(ref);
  getVersion = (ref: SectionRef, validFrom: string) => this.inner.getVersion(ref, validFrom);
  getSummaries = (wanted: readonly { ref: SectionRef; validFrom: string }[]) => this.inner.getSummaries(wanted);
  nearbyKeys = (jurisdiction: string, corpus: SectionRef['corpus'], key: string, limit: number) =>
    this.inner.nearbyKeys(jurisdiction, corpus, key, limit);
  nearbyKeySummaries = (jurisdiction: string, corpus: SectionRef['corpus'], key: string, limit: number) =>
    this.inner.nearbyKeySummaries(jurisdiction, corpus, key, limit);
  carries = (jurisdiction: string, corpus?: SectionRef['corpus']) => this.inner.carries(jurisdiction, corpus);
  getHistories = (jurisdiction: string, corpus: SectionRef['corpus'], keys: readonly string[]) =>
    this.inner.getHistories(jurisdiction, corpus, keys);
  historiesWithPrefix = (jurisdiction: string, corpus: SectionRef['corpus'], prefix: string) =>
    this.inner.historiesWithPrefix(jurisdiction, corpus, prefix);
  listEditions = (collection: string) => this.inner.listEditions(collection);
  scanHistories = () => this.inner.scanHistories();
  scanVersions = () => this.inner.scanVersions();
  ping = () => this.inner.ping();

  putHistory(history: KeyHistory): Promise<void> {
    return this.crash.write('history', history.key, () => this.inner.putHistory(history));
  }

  /** One history at a time through the crash point: a crash may fall between any two of a batch. */
  async putHistories(histories: readonly KeyHistory[]): Promise<string[]> {
    const lost: string[] = [];
    for (const h of histories) lost.push(...(await this.crash.write('history', h.key, () => this.inner.putHistories([h]))));
    return lost;
  }

  putEdition(edition: EditionRecord): Promise<void> {
    return this.crash.write('edition', edition.id, () => this.inner.putEdition(edition));
  }

  async applyWrites(writes: readonly StoreWrite[]): Promise<void> {
    for (const w of writes) {
      const key = w.kind === 'put' ? w.version.citation.key : w.ref.key;
      const kind = w.kind === 'put' && localDateOf(w.version.validFrom) !== this.editionDate ? 'put (copy)' : w.kind;
      await this.crash.write(kind, key, () => this.inner.applyWrites([w]));
    }
  }
}

class CrashingSearchIndex implements SearchIndex {
  constructor(
    private readonly inner: SearchIndex,
    private readonly crash: CrashPoint,
  ) {}

  async upsert(docs: readonly SearchDocument[]): Promise<void> {
    for (const d of docs) await this.crash.write('search upsert', d.citation.key, () => this.inner.upsert([d]));
  }

  setValidTo(id: string, validTo: string): Promise<void> {
    return this.crash.write('search setValidTo', id, () => this.inner.setValidTo(id, validTo));
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.crash.write('search remove', id, () => this.inner.remove([id]));
  }

  search = (query: SearchQuery) => this.inner.search(query);
  refresh = () => this.inner.refresh();
  count = () => this.inner.count();
  ping = () => this.inner.ping();
}

const crashing = (s: Sandbox, crash: CrashPoint, edition: SourceEdition): IngestDeps => ({
  versions: new CrashingVersionStore(s.versions, crash, edition.date),
  search: new CrashingSearchIndex(s.search, crash),
  now: s.now,
});

/** Crash points to try among 1 … total − 1: all when few, else the first and last write of every run of one kind plus a seeded sample. */
function crashPointsOf(log: readonly WriteLogEntry[], sampled: number): number[] {
  const total = log.length;
  if (total - 1 <= sampled) return Array.from({ length: total - 1 }, (_, i) => i + 1);
  const points = new Set<number>([1, total - 1]);
  // Crashing after n writes stops write n + 1 (log index n): take each write that starts or ends a run of one kind.
  log.forEach((w, i) => {
    if (i > 0 && (log[i - 1]!.kind !== w.kind || log[i + 1]?.kind !== w.kind)) points.add(i);
  });
  const rest = Array.from({ length: total - 1 }, (_, i) => i + 1).filter((n) => !points.has(n));
  for (const n of fc.sample(
    fc.shuffledSubarray(rest, { minLength: Math.min(rest.length, sampled), maxLength: Math.min(rest.length, sampled) }),
    { seed: total, numRuns: 1 },
  )[0] ?? [])
    points.add(n);
  return [...points].sort((a, b) => a - b);
}

interface CrashScenario {
  name: string;
  /** The store before the ingest (built once, cloned for every crash). */
  base: () => Promise<Sandbox>;
  edition: () => SourceEdition;
  /** Crash points beyond the first and last write of every kind. */
  sampled: number;
  /** The write kinds the ingest must issue (so the sweep covers each). */
  kinds: string[];
}

const uscAt113 = once(async () => {
  const s = await openSandbox();
  await ingestEdition(s, usc113);
  return s;
});
const uscAt117 = once(async () => {
  const s = await openSandbox();
  await ingestEdition(s, usc117);
  return s;
});

/** 28-3814 at 2022-07-20 re-issued (a corrected edition of a date already loaded) with the text the Council published on 2022-09-08. */
const correctedReissue = (): SourceEdition => ({
  collection: 'dc-code',
  date: '2022-07-20',
  label: '2022-07-20 (corrected re-issue, test only)',
  temporalBasis: 'compiled-edition',
  retrievedAt: RETRIEVED_AT,
  scope: { kind: 'keys', keys: ['28-3814'] },
  source: 'test: 28-3814/2022-09-08_b3071206.xml re-issued as 2022-07-20',
  documents: {
    [Symbol.asyncIterator]: async function* () {
      yield await readDcSection(`${SAMPLE}dc-code/28-3814/2022-09-08_b3071206.xml`, '28-3814');
    },
  },
});

const SCENARIOS: CrashScenario[] = [
  {
    name: 'US Code 117-80 on top of 113-31',
    base: uscAt113,
    edition: () => usc117,
    sampled: 2,
    kinds: ['edition', 'put', 'search upsert', 'setValidTo', 'search setValidTo', 'history'],
  },
  {
    name: 'US Code 113-31 arriving after 117-80',
    base: uscAt117,
    edition: () => usc113,
    sampled: 2,
    kinds: ['edition', 'put', 'search upsert', 'delete', 'search remove', 'history'],
  },
  {
    name: 'D.C. 2022-09-08 splitting a run (copies stored text)',
    base: heldBack,
    edition: () => dcOn('2022-09-08'),
    sampled: 20,
    kinds: ['edition', 'put (copy)', 'put', 'search upsert', 'setValidTo', 'search setValidTo', 'history'],
  },
  {
    name: 'D.C. 2021-11-24 arriving late',
    base: heldBack,
    edition: () => dcOn('2021-11-24'),
    sampled: 20,
    kinds: ['edition', 'put', 'search upsert', 'setValidTo', 'search setValidTo', 'delete', 'search remove', 'history'],
  },
  // 22-404.05 ends; 22-4234's 2024-06-22 text is the one loaded from 2024-07-05, whose version now starts earlier.
  {
    name: 'D.C. 2024-06-22 dropping 22-404.05',
    base: heldBack,
    edition: () => dcOn('2024-06-22'),
    sampled: 20,
    kinds: ['edition', 'put', 'search upsert', 'setValidTo', 'search setValidTo', 'delete', 'search remove', 'history'],
  },
  {
    name: 'a corrected re-issue of a loaded date (its stored text is overwritten)',
    base: heldBack,
    edition: correctedReissue,
    sampled: 20,
    kinds: ['edition', 'put (copy)', 'put', 'search upsert', 'history'],
  },
];

describe('crash safety: an ingest that dies after any write', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: every lookup answers the old or the new state, and a re-run completes it`, { timeout: 120_000 }, async () => {
      // Prepare: the old state, the new state (a clean ingest, recording its writes), and lookups on both
      const base = await scenario.base();
      const edition = scenario.edition();
      const clean = await cloneSandbox(base);
      const recorder = new CrashPoint(Number.POSITIVE_INFINITY);
      await ingestEdition(crashing(clean, recorder, edition), edition);
      const log = recorder.log;
      expect([...new Set(log.map((w) => w.kind))].sort()).toEqual([...scenario.kinds].sort());
      const oldState = await stateOf(base);
      const newState = await stateOf(clean);
      // Lookups read version items only: the keys no version write reaches answer as before, whatever happens.
      const touched = new Set(log.filter((w) => VERSION_WRITES.has(w.kind)).map((w) => w.key));
      const probes = probesOf([...oldState.versions, ...newState.versions].filter((v) => touched.has(v.citation.key)));
      const oldAnswers = await lookups(base.versions, probes);
      const newAnswers = await lookups(clean.versions, probes);
      expect(oldAnswers).not.toEqual(newAnswers);
      const audits = await runAudit(clean, 'manual');
      expect(audits.flatMap((r) => r.findings)).toEqual([]);

      const points = crashPointsOf(log, scenario.sampled);
      expect(new Set(points.map((n) => log[n]!.kind))).toEqual(new Set(log.slice(1).map((w) => w.kind)));
      const s = await cloneSandbox(base);
      const baseItems = await rawItems(base.table);
      for (const n of points) {
        // Act: crash after n writes, look everything up, then run the same ingest again on the real store
        await restoreSandbox(s, base, baseItems);
        expect(await stateOf(s)).toEqual(oldState);
        const crash = new CrashPoint(n);
        await expect(ingestEdition(crashing(s, crash, edition), edition), `crash after write ${n}`).rejects.toThrow(SimulatedCrash);
        expect(crash.log).toEqual(log.slice(0, n));
        const answers = await lookups(s.versions, probes);
        answers.forEach((answer, i) => {
          expect(
            [oldAnswers[i], newAnswers[i]],
            `after ${n} writes (${log[n - 1]!.kind} ${log[n - 1]!.key}): ${probes[i]!.ref.key} on ${probes[i]!.date}`,
          ).toContainEqual(answer);
        });
        const rerun = await ingestEdition(s, edition);

        // Assess: an edition cut off midway is never taken for one ingested completely
        expect(rerun.unchanged, `re-run after a crash after write ${n}`).toBe(false);
        expect(await stateOf(s), `re-run after a crash after write ${n}`).toEqual(newState);
        const findings = (await runAudit(s, 'manual')).flatMap((r) => r.findings);
        expect(findings, `audit after re-running a crash after write ${n}`).toEqual([]);
      }
    });
  }

  it('leaves, between its version writes and its history writes, a state the audit reports (history-matches-versions)', async () => {
    // Prepare: crash just before the first history write of 117-80 on top of 113-31
    const base = await uscAt113();
    const recorder = new CrashPoint(Number.POSITIVE_INFINITY);
    const clean = await cloneSandbox(base);
    await ingestEdition(crashing(clean, recorder, usc117), usc117);
    const firstHistory = recorder.log.findIndex((w) => w.kind === 'history');
    expect(firstHistory).toBeGreaterThan(0);
    const s = await cloneSandbox(base);
    await expect(ingestEdition(crashing(s, new CrashPoint(firstHistory), usc117), usc117)).rejects.toThrow(SimulatedCrash);

    // Act
    const runs = await runAudit(s, 'manual');

    // Assess: the five re-dated sections are reported, in the us run and the all run; the index is in step
    const us = runs.find((r) => r.run.jurisdiction === 'us')!;
    const mismatch = us.findings.find((f) => f.checkName === 'history-matches-versions');
    expect(mismatch).toMatchObject({ scope: 'us/statutes/usc', status: 'fail', rows: 44 });
    expect(mismatch?.detail).toMatch(/^5 problem\(s\): /);
    expect(us.findings.map((f) => f.checkName)).toEqual(['history-matches-versions']);
    expect(us.run).toMatchObject({ failed: 1, warned: 0 });
    expect(runs.find((r) => r.run.jurisdiction === 'all')!.findings.map((f) => f.checkName)).toEqual(['history-matches-versions']);

    // And the re-run repairs what the audit saw.
    await ingestEdition(s, usc117);
    expect((await runAudit(s, 'manual')).flatMap((r) => r.findings)).toEqual([]);
  });
});

// ---- 5. two ingests at once -------------------------------------------------------------------------------------

describe('two ingest jobs at once on one store', () => {
  it('lets exactly one run; the other fails on the lease, and run afterwards it changes nothing', async () => {
    // Prepare
    const deps = { versions: stores.versions, search: stores.search, ops: stores.ops, now: clock() };
    const request: IngestRequest = { kind: 'uslm', files: [USC_113_31, USC_117_80], retrievedAt: RETRIEVED_AT };

    // Act
    const [a, b] = await Promise.allSettled([runIngest(deps, request), runIngest(deps, request)]);

    // Assess
    const outcomes = [a, b].map((r) => r!.status).sort();
    expect(outcomes).toEqual(['fulfilled', 'rejected']);
    const failed = [a, b].find((r) => r!.status === 'rejected') as PromiseRejectedResult;
    expect(String(failed.reason)).toMatch(/another ingest is running against this store; try again when it has finished/);
    const first = ([a, b].find((r) => r!.status === 'fulfilled') as PromiseFulfilledResult<IngestReport[]>).value;
    expect(first.map((r) => r.writes)).toEqual([
      { put: 39, setValidTo: 0, delete: 0 },
      { put: 5, setValidTo: 5, delete: 0 },
    ]);
    const afterFirst = await stateOf({ versions: stores.versions, index: stores.sqliteSearch });

    const second = await runIngest(deps, request);
    expect(second.map((r) => [r.changedKeys, r.writes])).toEqual([
      [0, { put: 0, setValidTo: 0, delete: 0 }],
      [0, { put: 0, setValidTo: 0, delete: 0 }],
    ]);
    expect(await stateOf({ versions: stores.versions, index: stores.sqliteSearch })).toEqual(afterFirst);
  });
});

// ---- 5b. a lease left behind; coverage across a dead ingest -------------------------------------------------------

/** The pid of a process that ran on this machine and has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

/** Coverage computed at `at` on a store that carried nothing. */
const emptyCoverage = (at: string) => ({
  records: [],
  generatedAt: at,
  refreshFailures: 0,
  lastError: null,
  lastAttemptAt: at,
  dirtySince: null,
});

describe('the ingest lease of a process that is gone', () => {
  const request: IngestRequest = { kind: 'uslm', files: [USC_113_31], retrievedAt: RETRIEVED_AT };
  const leaseFor = (s: Sandbox, owner: LeaseOwner | string, until = new Date(INGESTED_AT.getTime() + 15 * 60_000)) =>
    s.ops.acquireLease('ingest', typeof owner === 'string' ? owner : encodeOwner(owner), until.toISOString(), INGESTED_AT.toISOString());

  it('is taken over at once on the same host, and released when the ingest is done', async () => {
    // Prepare: a lease 15 minutes long, left by a process on this host that has exited
    const s = await openSandbox();
    const gone = { host: hostname(), pid: await deadPid(), token: 'killed' };
    expect(await leaseFor(s, gone)).toBe(true);
    const lines: string[] = [];

    // Act
    const reports = await runIngest({ ...s, leases: LOCAL_PROCESSES }, request, (line) => lines.push(line));

    // Assess
    expect(reports.map((r) => r.writes.put)).toEqual([39]);
    expect(lines[0]).toBe(`took over the ingest lease of process ${gone.pid} on ${hostname()}, which is gone`);
    expect(await s.ops.getLease('ingest')).toBeNull(); // released when done
  });

  it('is respected while its owner lives, on another host, or written by an older version, until it runs out', async () => {
    const dead = await deadPid();
    const owners: Array<LeaseOwner | string> = [
      { host: hostname(), pid: process.pid, token: 'alive' },
      { host: `not-${hostname()}`, pid: dead, token: 'elsewhere' },
      `${dead}-oldform`,
    ];
    for (const owner of owners) {
      // Prepare
      const s = await openSandbox();
      expect(await leaseFor(s, owner)).toBe(true);

      // Act
      const refused = await runIngest({ ...s, leases: LOCAL_PROCESSES }, request).catch((err: unknown) => err);
      const later = new Date(INGESTED_AT.getTime() + 16 * 60_000);
      const afterItRanOut = await runIngest({ ...s, now: clock(later), leases: LOCAL_PROCESSES }, request);

      // Assess
      expect(String(refused)).toMatch(/another ingest is running against this store; try again when it has finished/);
      expect(String(refused)).toContain('until 2026-11-22T08:15:00.000Z');
      if (typeof owner !== 'string') expect(String(refused)).toContain(`held by process ${owner.pid} on ${owner.host}`);
      expect(afterItRanOut.map((r) => r.writes.put)).toEqual([39]);
    }
  });

  it('passes to exactly one of several ingests started at once over a dead owner', async () => {
    const s = await openSandbox();
    expect(await leaseFor(s, { host: hostname(), pid: await deadPid(), token: 'killed' })).toBe(true);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => runIngest({ ...s, leases: LOCAL_PROCESSES }, request)));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
  });

  it('an ingest whose lease was taken from it stops before its next edition', async () => {
    // Prepare: once the first edition is written, another claimant takes the lease (as if this one were gone)
    const s = await openSandbox();
    class TakenAfterOneEdition extends CrashingVersionStore {
      override async putEdition(edition: EditionRecord): Promise<void> {
        await super.putEdition(edition);
        const held = await s.ops.getLease('ingest');
        expect(await s.ops.takeOverLease('ingest', held!.owner, 'thief', '2026-11-22T09:00:00.000Z')).toBe(true);
      }
    }
    const [first] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
    const deps = { ...s, versions: new TakenAfterOneEdition(s.versions, new CrashPoint(Number.POSITIVE_INFINITY), first.date) };

    // Act
    const stopped = await runIngest(deps, { ...request, files: [USC_113_31, USC_117_80] }).catch((err: unknown) => err);

    // Assess: the first edition written, the second not; the thief's lease untouched
    expect(String(stopped)).toMatch(/the ingest lease ran out and another ingest took it: stopping here/);
    expect((await s.versions.listEditions('usc')).map((e) => e.label)).toEqual(['113-31']);
    expect(await s.ops.getLease('ingest')).toMatchObject({ owner: 'thief' });
  });

  it('coverage is marked before the first write, stays marked when the ingest dies, and clears once one completes', async () => {
    // Prepare: coverage computed on an empty store, then an ingest that dies after 10 writes
    const s = await openSandbox();
    await s.ops.putCoverage(emptyCoverage('2026-11-22T07:00:00.000Z'));
    const [edition] = (await readUslmTitle(USC_113_31, { retrievedAt: RETRIEVED_AT })) as [SourceEdition];
    const dying = { ...crashing(s, new CrashPoint(10), edition), ops: s.ops };

    // Act
    const died = await runIngest(dying, request).catch((err: unknown) => err);

    // Assess: it wrote, and coverage says an ingest is incomplete
    expect(died).toBeInstanceOf(SimulatedCrash);
    expect(await s.ops.getCoverage()).toMatchObject({ dirtySince: INGESTED_AT.toISOString(), ingestingSince: INGESTED_AT.toISOString() });

    // Act: a refresh while it is incomplete keeps the marks; a completed re-run clears the ingest mark
    const refreshed = await s.ops.putCoverage(emptyCoverage('2026-11-22T08:01:00.000Z'), '2026-11-22T08:01:00.000Z');
    const completedAt = new Date('2026-11-22T08:02:00.000Z');
    await runIngest({ ...s, now: clock(completedAt) }, request);

    // Assess
    expect(refreshed).toMatchObject({ ingestingSince: INGESTED_AT.toISOString() });
    const after = await s.ops.getCoverage();
    expect(after?.ingestingSince).toBeUndefined();
    expect(after?.dirtySince).toBe(completedAt.toISOString());
  });

  it('an ingest refused before it writes (a file it cannot read) leaves coverage unmarked', async () => {
    const s = await openSandbox();
    await s.ops.putCoverage(emptyCoverage('2026-11-22T07:00:00.000Z'));
    await expect(runIngest(s, { kind: 'uslm', files: ['/nonexistent/usc99.xml'] })).rejects.toThrow(/usc99\.xml/);
    expect(await s.ops.getCoverage()).toMatchObject({ dirtySince: null });
    expect((await s.ops.getCoverage())?.ingestingSince).toBeUndefined();
  });
});

// ---- 6. bad input -----------------------------------------------------------------------------------------------

/** A stand-in document: bad editions are refused before any of their text would be stored. */
const stubDocument = (key: string): SourceDocument => ({
  key,
  catchline: `Stand-in for ${key}`,
  bodyText: `Stand-in text of ${key}.`,
  historyNote: '',
  status: 'active',
  parts: {},
});

function badEdition(overrides: Partial<SourceEdition> & Pick<SourceEdition, 'documents'>): SourceEdition {
  return {
    collection: 'usc',
    date: '2024-01-01',
    label: 'Bad edition (test)',
    temporalBasis: 'compiled-edition',
    retrievedAt: RETRIEVED_AT,
    scope: { kind: 'prefix', prefix: '1-' },
    source: 'test: bad edition',
    ...overrides,
  };
}

describe('bad input', () => {
  const manyStubs = (n: number) => Array.from({ length: n }, (_, i) => stubDocument(`1-${9000 + i}`));
  const cases: Array<{ name: string; edition: () => SourceEdition; message: RegExp }> = [
    {
      name: 'a key of another collection',
      edition: () => badEdition({ documents: [stubDocument('1-1'), stubDocument('frap-32')] }),
      message: /'frap-32' is not a United States Code key \(collection usc\)/,
    },
    // 22-404.05 is a well-formed US Code key (title 22, § 404.05): what is wrong is the title, outside the edition's scope.
    {
      name: 'a D.C. section number in a US Code Title 1 edition',
      edition: () => badEdition({ documents: [stubDocument('22-404.05')] }),
      message: /22-404\.05 lies outside the edition's scope \(prefix:1-\)/,
    },
    {
      name: 'a key outside a keys scope',
      edition: () =>
        badEdition({ collection: 'dc-code', scope: { kind: 'keys', keys: ['22-404.05'] }, documents: [stubDocument('22-4234')] }),
      message: /22-4234 lies outside the edition's scope \(keys:/,
    },
    {
      name: 'a key twice in one edition',
      edition: () => badEdition({ documents: [stubDocument('1-1'), stubDocument('1-2'), stubDocument('1-1')] }),
      message: /key 1-1 appears twice in one edition/,
    },
    {
      name: 'a key twice, after the first write batch',
      edition: () => badEdition({ documents: [...manyStubs(450), stubDocument('1-9001')] }),
      message: /key 1-9001 appears twice in one edition/,
    },
    {
      name: 'a one-shot generator with a bad key late',
      edition: () =>
        badEdition({
          documents: (function* () {
            yield* manyStubs(300);
            yield stubDocument('frap-1');
          })(),
        }),
      message: /'frap-1' is not a United States Code key/,
    },
    {
      name: 'an impossible date',
      edition: () => badEdition({ date: '2024-02-30', documents: [stubDocument('1-1')] }),
      message: /edition date '2024-02-30' is not YYYY-MM-DD/,
    },
    {
      name: 'a date in another format',
      edition: () => badEdition({ date: '01/01/2024', documents: [stubDocument('1-1')] }),
      message: /edition date '01\/01\/2024' is not YYYY-MM-DD/,
    },
    {
      name: 'an unknown collection',
      edition: () => badEdition({ collection: 'cfr', documents: [stubDocument('1-1')] }),
      message: /unknown collection 'cfr'/,
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name} with a clear message and leaves the store as it was`, async () => {
      // Prepare
      const s = await cloneSandbox(await uscAt113());
      const before = await stateOf(s);

      // Act
      const attempt = ingestEdition(s, c.edition());

      // Assess
      await expect(attempt).rejects.toThrow(c.message);
      expect(await stateOf(s)).toEqual(before);
    });
  }

  it('accepts a one-shot generator of good documents (read once to check, kept for the writes)', async () => {
    // Prepare
    const s = await openSandbox();
    const docs: SourceDocument[] = [];
    for await (const d of usc113.documents) docs.push(d);
    const generator = (function* () {
      yield* docs;
    })();

    // Act
    const report = await ingestEdition(s, { ...usc113, documents: generator });

    // Assess
    expect(report).toMatchObject({ documents: 39, changedKeys: 39, writes: { put: 39, setValidTo: 0, delete: 0 } });
    expect(withoutRevisions(await stateOf(s)).versions).toEqual(withoutRevisions(await stateOf(await uscAt113())).versions);
  });
});
