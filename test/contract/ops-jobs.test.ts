/**
 * The operations jobs against the real adapters (DynamoDB adapter on dynalite, the SQLite search index) holding
 * the whole bundled sample: the quality audit and its corruptions, the coverage cache, the corpus health probe.
 *
 * One embedded store set per file, loaded once with the sample through the ingest job. A test that changes data
 * works on a clone (fresh tables on the same dynalite, a copy of the search index's file); a test of cached state
 * gets a fresh ops table. The tests that stop the store run last.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngestRequest, runIngest } from '#ingest/jobs.ts';
import { refId, type SectionVersion } from '#law/model.ts';
import { type SearchIndex, searchDocumentId, toSearchDocument, type VersionStore } from '#law/ports.ts';
import { CHECKS, runAudit } from '#ops/audit.ts';
import { COVERAGE_FORMAT, COVERAGE_NOTE, CoverageService, computeCoverage } from '#ops/coverage.ts';
import { corpusHealth, probeCorpus } from '#ops/health.ts';
import type { AuditFinding, CoverageRecord, OpsStore, StoredAuditRun } from '#ops/ports.ts';
import { readQuality } from '#ops/quality.ts';
import { reindex } from '#ops/reindex.ts';
import { localDateOf } from '#shared/dates.ts';
import { AppError } from '#shared/errors.ts';
import { contentHash } from '#shared/hash.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { SqliteSearchIndex } from '#stores/sqlite/search-index.ts';
import { type DynaliteStores, openDynaliteStores } from '../support/dynalite-stores.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const RETRIEVED_AT = '2026-11-22T07:25:00Z';
const LOADED_AT = new Date('2026-11-22T08:00:00.000Z');
const SAMPLE_INGESTS: IngestRequest[] = [
  { kind: 'uslm', files: [`${SAMPLE}uslm/usc01@113-31.xml`, `${SAMPLE}uslm/usc01@117-80.xml`], retrievedAt: RETRIEVED_AT },
  { kind: 'dc-code', manifest: `${SAMPLE}dc-code/manifest.csv`, retrievedAt: RETRIEVED_AT },
  { kind: 'rules', set: 'frap', paths: [`${SAMPLE}rules/frap`], retrievedAt: RETRIEVED_AT },
  { kind: 'rules', set: 'ndrappp', paths: [`${SAMPLE}rules/north-dakota-rap`], retrievedAt: RETRIEVED_AT },
];
const at = (iso: string) => () => new Date(iso);
const plusSeconds = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000);

// ---- stores ---------------------------------------------------------------------------------------------------

let stores: DynaliteStores;
let doc: DynamoDBDocumentClient;
/** The sandboxes' search index files, and the indexes open on them (closed at the end). */
let sandboxDir: string;
const sandboxIndexes: SqliteSearchIndex[] = [];
/** The sample as loaded, read back once. */
let sampleVersions: SectionVersion[];

beforeAll(async () => {
  // The sandboxes below each have a search index file of their own, copied from the sample's.
  stores = await openDynaliteStores();
  doc = createDocumentClient(stores.dynamo);
  sandboxDir = await mkdtemp(join(tmpdir(), 'asof-ops-jobs-'));
  const deps = { versions: stores.versions, search: stores.search, ops: stores.ops, now: () => LOADED_AT };
  for (const request of SAMPLE_INGESTS) await runIngest(deps, request);
  sampleVersions = await versionsOf(stores.versions);
});

afterAll(async () => {
  doc?.destroy();
  await Promise.all(sandboxIndexes.map((index) => index.close()));
  await stores?.close();
  if (sandboxDir) await rm(sandboxDir, { recursive: true, force: true });
});

interface Sandbox {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  table: string;
}

let sandboxCount = 0;

async function freshOps(): Promise<OpsStore> {
  const table = tableNames(`ops-jobs-${++sandboxCount}`).ops;
  await ensureTables(doc, { ops: table });
  return new DynamoOpsStore(doc, table);
}

/** Fresh tables and a search index on a file of its own: empty, or a copy of the sample's index (`fromSample`). */
async function openSandbox(fromSample = false): Promise<Sandbox> {
  const n = ++sandboxCount;
  const tables = tableNames(`ops-jobs-${n}`);
  const file = join(sandboxDir, `search-${n}.sqlite`);
  await ensureTables(doc, { versions: tables.versions, ops: tables.ops });
  // VACUUM INTO writes a consistent copy of the whole database (its rows, FTS index and impact lists) to a new file.
  if (fromSample) await stores.sqliteSearch.workers.exec(`VACUUM INTO '${file.replaceAll("'", "''")}'`);
  const search = await SqliteSearchIndex.open(file, { readers: 1 });
  sandboxIndexes.push(search);
  return {
    versions: new DynamoVersionStore(doc, tables.versions),
    search,
    ops: new DynamoOpsStore(doc, tables.ops),
    table: tables.versions,
  };
}

/** A sandbox holding exactly the sample as loaded (its version items and search rows; a fresh ops table). */
async function sampleClone(): Promise<Sandbox> {
  const to = await openSandbox(true);
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(new ScanCommand({ TableName: 'asof-versions', ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  for (let i = 0; i < items.length; i += 25) {
    const out = await doc.send(
      new BatchWriteCommand({ RequestItems: { [to.table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }),
    );
    expect(Object.keys(out.UnprocessedItems ?? {})).toEqual([]);
  }
  expect(await to.search.count()).toBe(sampleVersions.length);
  return to;
}

async function versionsOf(versions: VersionStore): Promise<SectionVersion[]> {
  const all: SectionVersion[] = [];
  for await (const v of versions.scanVersions()) all.push(v);
  return all.sort((a, b) => refId(a.citation).localeCompare(refId(b.citation)) || a.validFrom.localeCompare(b.validFrom));
}

/** A stored sample version, found by key and the local date it starts. */
function sampleVersion(key: string, from: string): SectionVersion {
  const v = sampleVersions.find((x) => x.citation.key === key && localDateOf(x.validFrom) === from);
  if (!v) throw new Error(`the sample has no version of ${key} from ${from}`);
  return structuredClone(v);
}

// ---- 1. the quality audit -----------------------------------------------------------------------------------------

const SCOPES = { usc: 'us/statutes/usc', frap: 'us/rules/frap', dc: 'dc/statutes/dc-code', nd: 'nd/rules/ndrappp' } as const;
type ScopeName = keyof typeof SCOPES;
const inScope: Record<ScopeName, (v: SectionVersion) => boolean> = {
  usc: (v) => v.citation.jurisdiction === 'us' && v.citation.corpus === 'statutes',
  frap: (v) => v.citation.jurisdiction === 'us' && v.citation.corpus === 'rules',
  dc: (v) => v.citation.jurisdiction === 'dc',
  nd: (v) => v.citation.jurisdiction === 'nd',
};

/** The numbers a finding of `scope` carries, from the versions the store holds. */
function scopeNumbers(versions: readonly SectionVersion[], scope: ScopeName) {
  const lengths = versions.filter(inScope[scope]).map((v) => v.bodyText.length);
  return {
    scope: SCOPES[scope],
    rows: lengths.length,
    avgChars: lengths.length ? Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length) : null,
    maxChars: lengths.length ? Math.max(...lengths) : null,
  };
}

const runOf = (runs: StoredAuditRun[], jurisdiction: string): StoredAuditRun => {
  const run = runs.find((r) => r.run.jurisdiction === jurisdiction);
  if (!run) throw new Error(`no audit run for '${jurisdiction}' (runs: ${runs.map((r) => r.run.jurisdiction).join(', ')})`);
  return run;
};

/** A finding as the audit writes it, with the scope's numbers taken from the store. */
const findingOf = (
  versions: readonly SectionVersion[],
  scope: ScopeName,
  check: string,
  status: 'warn' | 'fail',
  detail: string,
  counts: Partial<Pick<AuditFinding, 'unexplainedEmpty' | 'misattributed'>> = {},
): AuditFinding => ({
  ...scopeNumbers(versions, scope),
  checkName: check,
  status,
  detail,
  unexplainedEmpty: 0,
  misattributed: 0,
  ...counts,
});

describe('quality audit', () => {
  it('finds nothing to report on the sample, storing one run per jurisdiction and one over everything', async () => {
    // Prepare
    const s = await sampleClone();

    // Act
    const runs = await runAudit({ ...s, now: at('2026-11-22T09:00:00Z') }, 'manual');

    // Assess
    expect(runs.map((r) => r.run)).toEqual([
      {
        ranAt: '2026-11-22T09:00:00.000Z',
        jurisdiction: 'dc',
        trigger: 'manual',
        totalChecks: CHECKS.length,
        passed: CHECKS.length,
        warned: 0,
        failed: 0,
      },
      {
        ranAt: '2026-11-22T09:00:00.000Z',
        jurisdiction: 'nd',
        trigger: 'manual',
        totalChecks: CHECKS.length,
        passed: CHECKS.length,
        warned: 0,
        failed: 0,
      },
      {
        ranAt: '2026-11-22T09:00:00.000Z',
        jurisdiction: 'us',
        trigger: 'manual',
        totalChecks: 2 * CHECKS.length,
        passed: 2 * CHECKS.length,
        warned: 0,
        failed: 0,
      },
      {
        ranAt: '2026-11-22T09:00:00.000Z',
        jurisdiction: 'all',
        trigger: 'manual',
        totalChecks: 4 * CHECKS.length + 1,
        passed: 4 * CHECKS.length + 1,
        warned: 0,
        failed: 0,
      },
    ]);
    expect(runs.flatMap((r) => r.findings)).toEqual([]);
    for (const r of runs)
      expect(await readQuality(s.ops, { jurisdiction: r.run.jurisdiction })).toMatchObject({ run: r.run, findings: [] });
    expect((await readQuality(s.ops, {})).note).toBe(
      `Audit of the service's stored data, not of the law. Only non-passing checks are listed: ${4 * CHECKS.length + 1} of ${4 * CHECKS.length + 1} passed.`,
    );
  });

  interface Corruption {
    name: string;
    corrupt: (s: Sandbox) => Promise<void>;
    /** The run of the jurisdiction the corruption lies in, and the findings it and the `all` run must carry. */
    jurisdiction: string;
    /** The `rows` every finding must carry: the versions in its scope (all versions for the search check). */
    rows: number;
    findings: (versions: readonly SectionVersion[]) => AuditFinding[];
    /** Findings only the `all` run carries (the search index check). */
    allOnly?: (versions: readonly SectionVersion[]) => AuditFinding[];
  }

  const put = (s: Sandbox, v: SectionVersion) => s.versions.applyWrites([{ kind: 'put', version: v }]);

  const corruptions: Corruption[] = [
    {
      name: 'a version whose contentHash does not match its body',
      corrupt: (s) => {
        const v = sampleVersion('22-404.05', '2024-03-18');
        return put(s, { ...v, provenance: { ...v.provenance, contentHash: contentHash(`${v.bodyText} `.repeat(2)) } });
      },
      jurisdiction: 'dc',
      rows: 57,
      findings: (vs) => [findingOf(vs, 'dc', 'content-hash', 'fail', '1 problem(s): 22-404.05@2024-03-18')],
    },
    {
      name: 'an active version with an empty body',
      corrupt: (s) => {
        const v = sampleVersion('1-1', '2013-07-26');
        return put(s, { ...v, bodyText: '', provenance: { ...v.provenance, contentHash: contentHash('') } });
      },
      jurisdiction: 'us',
      rows: 44,
      findings: (vs) => [findingOf(vs, 'usc', 'non-empty-bodies', 'fail', '1 problem(s): 1-1@2013-07-26', { unexplainedEmpty: 1 })],
    },
    {
      name: 'an active version cut to a stub',
      corrupt: (s) => {
        const v = sampleVersion('frap-15.1', '2024-12-01');
        const stub = v.bodyText.slice(0, 20).trim();
        return put(s, { ...v, bodyText: stub, provenance: { ...v.provenance, contentHash: contentHash(stub) } });
      },
      jurisdiction: 'us',
      rows: 51,
      findings: (vs) => [
        findingOf(
          vs,
          'frap',
          'size-outliers',
          'warn',
          `1 problem(s): frap-15.1@2024-12-01 (${sampleVersion('frap-15.1', '2024-12-01').bodyText.slice(0, 20).trim().length} chars)`,
        ),
      ],
    },
    {
      name: 'a version attributed to another collection',
      corrupt: (s) => {
        const v = sampleVersion('22-404.05', '2024-03-20');
        return put(s, { ...v, citation: { ...v.citation, display: '22 U.S.C. § 404.05' } });
      },
      jurisdiction: 'dc',
      rows: 57,
      findings: (vs) => [findingOf(vs, 'dc', 'attribution', 'fail', '1 problem(s): 22-404.05@2024-03-20', { misattributed: 1 })],
    },
    {
      name: 'a version whose interval overlaps the next one',
      corrupt: (s) => {
        const v = sampleVersion('22-404.05', '2024-03-18');
        return s.versions.applyWrites([
          { kind: 'setValidTo', ref: v.citation, validFrom: v.validFrom, validTo: '2024-03-22T00:00:00-04:00' },
        ]);
      },
      jurisdiction: 'dc',
      rows: 57,
      findings: (vs) => [
        findingOf(vs, 'dc', 'no-overlaps', 'fail', '1 problem(s): 22-404.05 2024-03-18–2024-03-22 overlaps 2024-03-20'),
        findingOf(
          vs,
          'dc',
          'history-matches-versions',
          'fail',
          '1 problem(s): 22-404.05: stored 3 versions, history implies 3; first difference: stored 2024-03-18–2024-03-22, history 2024-03-18–2024-03-20',
        ),
      ],
    },
    {
      name: 'a version item without a history (indexed like any other)',
      corrupt: async (s) => {
        const v = sampleVersion('1-1', '2013-07-26');
        const stray: SectionVersion = {
          ...v,
          citation: { ...v.citation, key: '1-999', display: '1 U.S.C. § 999', parts: { title: '1', section: '999' } },
        };
        await put(s, stray);
        await s.search.upsert([toSearchDocument(stray)]);
      },
      jurisdiction: 'us',
      rows: 45,
      findings: (vs) => [
        findingOf(
          vs,
          'usc',
          'history-matches-versions',
          'fail',
          '1 problem(s): 1-999: stored 1 versions, history implies 0; first difference: stored 2013-07-26–9999-12-31, history none',
        ),
      ],
    },
    {
      name: 'a lost version in the middle of a history: a gap no absence explains',
      corrupt: async (s) => {
        const v = sampleVersion('2-534', '2022-10-05');
        await s.versions.applyWrites([{ kind: 'delete', ref: v.citation, validFrom: v.validFrom }]);
        await s.search.remove([searchDocumentId(v.citation, v.validFrom)]);
      },
      jurisdiction: 'dc',
      rows: 56,
      findings: (vs) => [
        findingOf(vs, 'dc', 'gaps-explained', 'warn', '1 problem(s): 2-534 2022-10-05–2022-12-07'),
        findingOf(
          vs,
          'dc',
          'history-matches-versions',
          'fail',
          '1 problem(s): 2-534: stored 14 versions, history implies 15; first difference: stored 2022-12-07–2023-05-12, history 2022-10-05–2022-12-07',
        ),
      ],
    },
    {
      name: 'a collection whose versions are all lost (its histories remain)',
      corrupt: async (s) => {
        const nd = sampleVersions.filter(inScope.nd);
        await s.versions.applyWrites(nd.map((v) => ({ kind: 'delete', ref: v.citation, validFrom: v.validFrom })));
        await s.search.remove(nd.map((v) => searchDocumentId(v.citation, v.validFrom)));
      },
      jurisdiction: 'nd',
      rows: 0,
      findings: (vs) => {
        const keys = sampleVersions.filter(inScope.nd).map((v) => v.citation.key);
        const listed = keys.slice(0, 10).map((k) => `${k}: history implies 1 versions, none stored`);
        return [findingOf(vs, 'nd', 'history-matches-versions', 'fail', `10 problem(s): ${listed.join('; ')}`)];
      },
    },
    {
      name: 'a search index missing a document',
      corrupt: (s) => {
        const v = sampleVersion('frap-32', '2024-12-01');
        return s.search.remove([searchDocumentId(v.citation, v.validFrom)]);
      },
      jurisdiction: 'us',
      rows: 162,
      findings: () => [],
      allOnly: (vs) => [
        {
          scope: 'search',
          checkName: 'search-index-in-sync',
          status: 'warn',
          detail: `search index holds ${vs.length - 1} documents for ${vs.length} versions; run \`asof reindex\``,
          rows: vs.length,
          avgChars: null,
          maxChars: null,
          unexplainedEmpty: 0,
          misattributed: 0,
        },
      ],
    },
  ];

  for (const c of corruptions) {
    it(`reports ${c.name} under the right check, with the scope's numbers, in the ${c.jurisdiction} run and the all run`, async () => {
      // Prepare
      const s = await sampleClone();
      await c.corrupt(s);
      const versions = await versionsOf(s.versions);

      // Act
      const runs = await runAudit({ ...s, now: at('2026-11-22T10:00:00Z') }, 'schedule');

      // Assess: the jurisdiction's run, the others, and the all run (which adds the search index check)
      const expected = c.findings(versions);
      const own = runOf(runs, c.jurisdiction);
      expect(own.findings).toEqual(expected);
      const warned = expected.filter((f) => f.status === 'warn').length;
      const failed = expected.filter((f) => f.status === 'fail').length;
      expect(own.run).toMatchObject({ trigger: 'schedule', warned, failed, passed: own.run.totalChecks - warned - failed });
      for (const other of runs.filter((r) => r.run.jurisdiction !== c.jurisdiction && r.run.jurisdiction !== 'all'))
        expect(other.findings).toEqual([]);
      const extra = c.allOnly?.(versions) ?? [];
      expect([...expected, ...extra].map((f) => f.rows)).toEqual([...expected, ...extra].map(() => c.rows));
      const all = runOf(runs, 'all');
      expect(all.findings).toEqual([...expected, ...extra]);
      // Every collection of the sample keeps its scope, even one left without versions.
      expect(all.run).toMatchObject({ totalChecks: 4 * CHECKS.length + 1, warned: warned + extra.length, failed });

      // Stored: readQuality gives back the latest run of each.
      const quality = await readQuality(s.ops, { jurisdiction: c.jurisdiction });
      expect({ run: quality.run, findings: quality.findings }).toEqual(own);
      expect(await readQuality(s.ops, {})).toMatchObject({ run: all.run, findings: all.findings });
    });
  }

  it('keeps a history of runs newest first, and a repair shows in the next run', async () => {
    // Prepare: a clean run, a corrupted run (a search document lost), a run after reindexing
    const s = await sampleClone();
    const clean = await runAudit({ ...s, now: at('2026-11-22T09:00:00Z') }, 'schedule');
    const v = sampleVersion('frap-32', '2024-12-01');
    await s.search.remove([searchDocumentId(v.citation, v.validFrom)]);
    const broken = await runAudit({ ...s, now: at('2026-11-22T10:00:00Z') }, 'schedule');

    // Act
    const repaired = await reindex(s);
    const after = await runAudit({ ...s, now: at('2026-11-22T11:00:00Z') }, 'manual');

    // Assess
    expect(repaired.documents).toBe(sampleVersions.length);
    expect(runOf(broken, 'all').run).toMatchObject({ warned: 1, failed: 0 });
    expect(after.flatMap((r) => r.findings)).toEqual([]);
    const history = await readQuality(s.ops, { history: true });
    expect(history.run).toEqual(runOf(after, 'all').run);
    expect(history.history).toEqual([runOf(after, 'all').run, runOf(broken, 'all').run, runOf(clean, 'all').run]);
    expect((await readQuality(s.ops, { jurisdiction: 'dc', history: true })).history?.map((r) => r.ranAt)).toEqual([
      '2026-11-22T11:00:00.000Z',
      '2026-11-22T10:00:00.000Z',
      '2026-11-22T09:00:00.000Z',
    ]);
    expect(await readQuality(s.ops, { jurisdiction: 'ca', history: true })).toEqual({
      run: null,
      findings: [],
      history: [],
      note: "No audit has been recorded for 'ca' yet; audits run on a schedule and with `asof audit`.",
    });
  });
});

// ---- 2. coverage ------------------------------------------------------------------------------------------------

/** The D.C. Code's editions are its publications: the manifest's distinct publication labels, each its own date. */
const DC_EDITIONS = readFileSync(`${SAMPLE}dc-code/manifest.csv`, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(',')[4]!)
  .filter((label, i, all) => all.indexOf(label) === i)
  .sort()
  .map((label) => ({ label, date: label }));

const dcTitle = (title: string, latest: string, editionCount: number, sections: number, versions: number) => ({
  title,
  coverageFrom: '2021-10-18',
  coverageTo: null,
  firstVersion: '2021-10-18',
  latestVersion: latest,
  latestVersionDate: latest,
  editionCount,
  sections,
  versions,
});

const EXPECTED_COVERAGE: CoverageRecord[] = [
  {
    jurisdiction: 'dc',
    corpus: 'statutes',
    name: 'Code of the District of Columbia',
    cadenceClass: 'continuous',
    temporalBasis: 'compiled-edition',
    coverageFrom: '2021-10-18',
    latestVersion: '2024-10-11',
    sections: 6,
    versions: 57,
    lastRetrievedAt: RETRIEVED_AT,
    coverageTo: null,
    latestVersionDate: '2024-10-11',
    editions: DC_EDITIONS,
    titles: [
      dcTitle('1', '2024-10-11', 16, 1, 1),
      dcTitle('2', '2024-09-15', 24, 1, 15),
      dcTitle('9', '2024-06-25', 32, 1, 1),
      dcTitle('22', '2024-08-22', 30, 2, 22),
      dcTitle('28', '2024-04-22', 20, 1, 18),
    ],
  },
  {
    jurisdiction: 'nd',
    corpus: 'rules',
    name: 'North Dakota Rules of Appellate Procedure',
    cadenceClass: 'irregular',
    temporalBasis: 'retrieval-date',
    coverageFrom: '2026-03-07',
    latestVersion: 'N.D.R.App.P. as checked against ndcourts.gov on 2026-03-07',
    sections: 10,
    versions: 10,
    lastRetrievedAt: RETRIEVED_AT,
    coverageTo: null,
    latestVersionDate: '2026-03-07',
    editions: [{ label: 'N.D.R.App.P. as checked against ndcourts.gov on 2026-03-07', date: '2026-03-07' }],
  },
  {
    jurisdiction: 'us',
    corpus: 'rules',
    name: 'Federal Rules of Appellate Procedure',
    cadenceClass: 'annual',
    temporalBasis: 'compiled-edition',
    coverageFrom: '2024-12-01',
    latestVersion: 'FRAP as amended to December 1, 2024',
    sections: 51,
    versions: 51,
    lastRetrievedAt: RETRIEVED_AT,
    coverageTo: null,
    latestVersionDate: '2024-12-01',
    editions: [{ label: 'FRAP as amended to December 1, 2024', date: '2024-12-01' }],
  },
  {
    jurisdiction: 'us',
    corpus: 'statutes',
    name: 'United States Code',
    cadenceClass: 'edition',
    temporalBasis: 'compiled-edition',
    coverageFrom: '2013-07-26',
    latestVersion: '117-80',
    sections: 39,
    versions: 44,
    lastRetrievedAt: RETRIEVED_AT,
    coverageTo: null,
    latestVersionDate: '2022-01-27',
    editions: [
      { label: '113-31', date: '2013-07-26' },
      { label: '117-80', date: '2022-01-27' },
    ],
    titles: [
      {
        title: '1',
        name: 'General Provisions',
        coverageFrom: '2013-07-26',
        coverageTo: null,
        firstVersion: '113-31',
        latestVersion: '117-80',
        latestVersionDate: '2022-01-27',
        editionCount: 2,
        sections: 39,
        versions: 44,
      },
    ],
  },
];

/** A version store that counts coverage computations (history scans) and fails them on demand. */
function flakyVersions(inner: VersionStore) {
  const control = { scans: 0, failing: null as string | null };
  const versions = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'scanHistories') {
        return () => {
          control.scans++;
          if (control.failing) throw new Error(control.failing);
          return target.scanHistories();
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { versions, control };
}

/** A coverage service on the sample with a clock the test moves and a refreshBehind that only collects tasks. */
async function coverageHarness(start = '2026-11-22T12:00:00.000Z') {
  const clock = { now: new Date(start) };
  const ops = await freshOps();
  const { versions, control } = flakyVersions(stores.versions);
  const behind: Array<() => Promise<void>> = [];
  const service = new CoverageService({ versions, ops, now: () => clock.now, refreshBehind: (task) => behind.push(task) });
  const advance = (seconds: number) => {
    clock.now = plusSeconds(clock.now, seconds);
  };
  return { service, ops, control, behind, clock, advance };
}

describe('coverage', () => {
  it('counts the sample per collection: sections, versions, coverageFrom and latestVersion', async () => {
    expect(await computeCoverage(stores.versions)).toEqual(EXPECTED_COVERAGE);
  });

  it('computes and caches on the first read, and serves the cache untouched within five minutes', async () => {
    // Prepare
    const h = await coverageHarness();

    // Act
    const first = await h.service.read({});
    h.advance(300);
    const second = await h.service.read({ jurisdiction: 'us' });

    // Assess
    expect(first).toEqual({ coverage: EXPECTED_COVERAGE, note: COVERAGE_NOTE, generatedAt: '2026-11-22T12:00:00.000Z' });
    expect(await h.ops.getCoverage()).toMatchObject({
      records: EXPECTED_COVERAGE,
      generatedAt: '2026-11-22T12:00:00.000Z',
      refreshFailures: 0,
      dirtySince: null,
    });
    expect(second).toEqual({
      coverage: EXPECTED_COVERAGE.filter((r) => r.jurisdiction === 'us'),
      note: COVERAGE_NOTE,
      generatedAt: '2026-11-22T12:00:00.000Z',
    });
    expect(h.control.scans).toBe(1);
    expect(h.behind).toHaveLength(0);
  });

  it('recomputes, before answering, numbers an earlier version cached without titles and editions', async () => {
    // Prepare: a fresh cache in the shape computed before COVERAGE_FORMAT 2
    const h = await coverageHarness();
    const old = EXPECTED_COVERAGE.map(
      ({ coverageTo: _to, latestVersionDate: _date, editions: _editions, titles: _titles, ...kept }) => kept,
    );
    await h.ops.putCoverage({
      records: old as CoverageRecord[],
      generatedAt: '2026-11-22T11:59:00.000Z',
      refreshFailures: 0,
      lastError: null,
      lastAttemptAt: '2026-11-22T11:59:00.000Z',
      dirtySince: null,
    });

    // Act
    const view = await h.service.read({});

    // Assess: today's numbers, stored with their format
    expect(view).toEqual({ coverage: EXPECTED_COVERAGE, note: COVERAGE_NOTE, generatedAt: '2026-11-22T12:00:00.000Z' });
    expect(await h.ops.getCoverage()).toMatchObject({ format: COVERAGE_FORMAT, records: EXPECTED_COVERAGE });
    expect(h.control.scans).toBe(1);
  });

  it('after five minutes answers from the cache at once and hands exactly one refresh to the background', async () => {
    // Prepare
    const h = await coverageHarness();
    await h.service.read({});
    h.advance(301);

    // Act
    const stale = await h.service.read({});
    const again = await h.service.read({ corpus: 'rules' });

    // Assess: cached numbers, no recomputation yet, one task for both reads
    expect(stale).toEqual({ coverage: EXPECTED_COVERAGE, note: COVERAGE_NOTE, generatedAt: '2026-11-22T12:00:00.000Z' });
    expect(again.coverage.map((r) => r.name)).toEqual([
      'North Dakota Rules of Appellate Procedure',
      'Federal Rules of Appellate Procedure',
    ]);
    expect(h.control.scans).toBe(1);
    expect(h.behind).toHaveLength(1);

    await h.behind[0]!();
    expect(h.control.scans).toBe(2);
    expect((await h.service.read({})).generatedAt).toBe('2026-11-22T12:05:01.000Z');
    expect(h.behind).toHaveLength(1);
  });

  it('after an ingest marks it dirty: stale with an error naming the ingest, until the refresh it schedules', async () => {
    // Prepare
    const h = await coverageHarness();
    await h.service.read({});
    h.advance(30);
    await h.ops.markIngestCompleted('2026-11-22T12:00:30.000Z');

    // Act
    const dirty = await h.service.read({});

    // Assess
    expect(dirty.coverage).toEqual(EXPECTED_COVERAGE);
    expect(dirty.stale).toEqual({
      ageSeconds: 30,
      refreshFailures: 0,
      lastError: 'the store changed at 2026-11-22T12:00:30.000Z (ingest); refresh pending',
    });
    expect(h.behind).toHaveLength(1);
    h.advance(1);
    await h.behind[0]!();
    expect(await h.service.read({})).toEqual({ coverage: EXPECTED_COVERAGE, note: COVERAGE_NOTE, generatedAt: '2026-11-22T12:00:31.000Z' });
  });

  it('while an ingest has started and not completed (running, or dead): stale through refreshes, until one completes', async () => {
    // Prepare: numbers at 12:00; an ingest starts writing at 12:00:30 and never completes
    const h = await coverageHarness();
    await h.service.read({});
    h.advance(30);
    await h.ops.markIngestStarted('2026-11-22T12:00:30.000Z');
    const stale = {
      refreshFailures: 0,
      lastError: 'an ingest started at 2026-11-22T12:00:30.000Z has not completed; the counts may include part of it',
    };

    // Act: a read, a refresh computed after the ingest started, reads after it
    const first = await h.service.read({});
    h.advance(10);
    await h.service.refresh();
    const afterRefresh = await h.service.read({});
    h.advance(200);
    const later = await h.service.read({});

    // Assess: stale at every step; new numbers stored; no refresh handed off on each read (only by age)
    expect(first.stale).toEqual({ ageSeconds: 30, ...stale });
    expect(afterRefresh).toMatchObject({ generatedAt: '2026-11-22T12:00:40.000Z', stale: { ageSeconds: 0, ...stale } });
    expect(later.stale).toEqual({ ageSeconds: 200, ...stale });
    expect(h.behind).toHaveLength(0);
    h.advance(101);
    await h.service.read({});
    expect(h.behind).toHaveLength(1);

    // Act: an ingest completes; the refresh after it is the first to clear the marks
    h.advance(5);
    await h.ops.markIngestCompleted('2026-11-22T12:05:46.000Z');
    await h.behind[0]!(); // at the completion's very instant: it may have missed the last writes
    expect((await h.service.read({})).stale?.lastError).toBe('the store changed at 2026-11-22T12:05:46.000Z (ingest); refresh pending');
    h.advance(1);
    await h.service.refresh();
    expect((await h.service.read({})).stale).toBeUndefined();
  });

  it('an ingest that started before any coverage was computed keeps the first numbers stale', async () => {
    // Prepare
    const h = await coverageHarness();
    await h.ops.markIngestStarted('2026-11-22T11:59:00.000Z');

    // Act
    const first = await h.service.read({});

    // Assess
    expect(first.coverage).toEqual(EXPECTED_COVERAGE);
    expect(first.stale?.lastError).toBe(
      'an ingest started at 2026-11-22T11:59:00.000Z has not completed; the counts may include part of it',
    );
    expect(await h.ops.getCoverage()).toMatchObject({ ingestingSince: '2026-11-22T11:59:00.000Z', dirtySince: '2026-11-22T11:59:00.000Z' });
  });

  it('counts failed refreshes and keeps serving the last numbers, marked stale, until one succeeds', async () => {
    // Prepare
    const h = await coverageHarness();
    await h.service.read({});
    h.control.failing = 'versions table throttled';
    h.advance(400);

    // Act: two scheduled refreshes fail
    await h.service.read({});
    await expect(h.behind[0]!()).rejects.toThrow('versions table throttled');
    h.advance(10);
    const once = await h.service.read({});
    await expect(h.behind[1]!()).rejects.toThrow('versions table throttled');
    h.advance(10);
    const twice = await h.service.read({});

    // Assess
    expect(once).toMatchObject({
      coverage: EXPECTED_COVERAGE,
      generatedAt: '2026-11-22T12:00:00.000Z',
      stale: { ageSeconds: 410, refreshFailures: 1, lastError: 'versions table throttled' },
    });
    expect(twice.stale).toEqual({ ageSeconds: 420, refreshFailures: 2, lastError: 'versions table throttled' });
    expect(await h.ops.getCoverage()).toMatchObject({
      generatedAt: '2026-11-22T12:00:00.000Z',
      refreshFailures: 2,
      lastError: 'versions table throttled',
      lastAttemptAt: '2026-11-22T12:06:50.000Z',
    });

    h.control.failing = null;
    await h.behind[2]!();
    expect((await h.service.read({})).stale).toBeUndefined();
    expect(await h.ops.getCoverage()).toMatchObject({ refreshFailures: 0, lastError: null });
  });

  it('marks numbers older than an hour stale even when nothing failed', async () => {
    // Prepare: a cache no process refreshed for an hour (its refresh handed off and never run)
    const h = await coverageHarness();
    await h.service.read({});
    h.advance(3600);
    expect((await h.service.read({})).stale).toBeUndefined();
    h.advance(1);

    // Act
    const old = await h.service.read({});

    // Assess
    expect(old).toMatchObject({ coverage: EXPECTED_COVERAGE, stale: { ageSeconds: 3601, refreshFailures: 0, lastError: null } });
    // The refresh handed off at 3600 s never ran: another read 5 minutes later hands off another one.
    expect(h.behind).toHaveLength(1);
    h.advance(300);
    await h.service.read({});
    expect(h.behind).toHaveLength(2);
  });

  it('with no cache and a store that fails, answers internal_error', async () => {
    // Prepare
    const h = await coverageHarness();
    h.control.failing = 'versions table unreachable';

    // Act
    const attempt = h.service.read({});

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({
      code: 'internal_error',
      message: 'Coverage could not be computed and no cached value is available.',
    });
    expect(await h.ops.getCoverage()).toBeNull();
  });
});

// ---- 3. corpus health -------------------------------------------------------------------------------------------

describe('corpus health', () => {
  const T0 = new Date('2026-11-22T12:00:00.000Z');
  const healthDeps = async (overrides: Partial<{ versions: VersionStore; search: SearchIndex }> = {}) => ({
    versions: overrides.versions ?? stores.versions,
    search: overrides.search ?? stores.search,
    ops: await freshOps(),
  });
  const base = { service: 'asof' };

  it('is unknown before any probe, healthy after one, and unknown again once the verdict is over 15 minutes old', async () => {
    // Prepare
    const deps = await healthDeps();
    const health = (seconds: number) => corpusHealth({ ops: deps.ops, now: () => plusSeconds(T0, seconds) });
    const never = await health(0);

    // Act
    const verdict = await probeCorpus({ ...deps, now: () => T0 });

    // Assess
    expect(never).toEqual({
      ...base,
      ok: false,
      status: 'unknown',
      reason: 'no_recent_probe',
      checkedSecondsAgo: -1,
      timestamp: T0.toISOString(),
    });
    expect(verdict).toEqual({ checkedAt: T0.toISOString(), reachable: true, detail: 'ok' });
    expect(await health(42)).toEqual({
      ...base,
      ok: true,
      status: 'healthy',
      reason: 'ok',
      checkedSecondsAgo: 42,
      timestamp: plusSeconds(T0, 42).toISOString(),
    });
    expect(await health(900)).toMatchObject({ ok: true, status: 'healthy', checkedSecondsAgo: 900 });
    expect(await health(901)).toEqual({
      ...base,
      ok: false,
      status: 'unknown',
      reason: 'no_recent_probe',
      checkedSecondsAgo: 901,
      timestamp: plusSeconds(T0, 901).toISOString(),
    });
  });

  it('probes at most every five minutes unless forced', async () => {
    // Prepare
    const deps = await healthDeps();
    await probeCorpus({ ...deps, now: () => T0 });

    // Act
    const within = await probeCorpus({ ...deps, now: () => plusSeconds(T0, 299) });
    const forced = await probeCorpus({ ...deps, now: () => plusSeconds(T0, 299) }, { force: true });
    const after = await probeCorpus({ ...deps, now: () => plusSeconds(T0, 299 + 300) });

    // Assess
    expect(within.checkedAt).toBe(T0.toISOString());
    expect(forced.checkedAt).toBe(plusSeconds(T0, 299).toISOString());
    expect(after.checkedAt).toBe(plusSeconds(T0, 599).toISOString());
    expect(await deps.ops.getHealthVerdict()).toEqual(after);
  });

  it('calls an empty corpus unhealthy: both stores answer, but no law is carried', async () => {
    // Prepare
    const empty = await openSandbox();
    const deps = await healthDeps({ versions: empty.versions, search: empty.search });

    // Act
    const verdict = await probeCorpus({ ...deps, now: () => T0 });

    // Assess
    expect(verdict).toEqual({ checkedAt: T0.toISOString(), reachable: false, detail: 'empty_corpus' });
    expect(await corpusHealth({ ops: deps.ops, now: () => plusSeconds(T0, 5) })).toEqual({
      ...base,
      ok: false,
      status: 'unhealthy',
      reason: 'empty_corpus',
      checkedSecondsAgo: 5,
      timestamp: plusSeconds(T0, 5).toISOString(),
    });
  });
});

// ---- 4. the store goes away (last: nothing runs on these stores after this) ---------------------------------------

describe('when the store stops', () => {
  it('health: a probe records search_unreachable when the search index is gone; everything reads unhealthy once DynamoDB is gone', async () => {
    // Prepare: verdicts on the shared ops table; a coverage service that has read the numbers once
    const T1 = new Date('2026-11-22T13:00:00.000Z');
    const deps = { versions: stores.versions, search: stores.search, ops: stores.ops };
    const behind: Array<() => Promise<void>> = [];
    const coverage = new CoverageService({
      versions: stores.versions,
      ops: stores.ops,
      now: () => T1,
      refreshBehind: (task) => behind.push(task),
    });
    const before = await coverage.read({});
    expect(before.coverage).toEqual(EXPECTED_COVERAGE);

    // Act + Assess: the search store first
    await stores.stopSearch();
    expect(await probeCorpus({ ...deps, now: () => T1 }, { force: true })).toEqual({
      checkedAt: T1.toISOString(),
      reachable: false,
      detail: 'search_unreachable',
    });
    expect(await corpusHealth({ ops: stores.ops, now: () => plusSeconds(T1, 1) })).toMatchObject({
      ok: false,
      status: 'unhealthy',
      reason: 'search_unreachable',
      checkedSecondsAgo: 1,
    });

    // then DynamoDB
    await stores.stopDynamo();
    expect(await corpusHealth({ ops: stores.ops, now: () => T1 })).toEqual({
      service: 'asof',
      ok: false,
      status: 'unhealthy',
      reason: 'store_unreachable',
      checkedSecondsAgo: 0,
      timestamp: T1.toISOString(),
    });
    expect(await probeCorpus({ ...deps, now: () => T1 }, { force: true })).toEqual({
      checkedAt: T1.toISOString(),
      reachable: false,
      detail: 'versions_unreachable',
    });

    // Coverage: the last numbers this process read, marked stale, and a refresh that fails is counted.
    const during = await coverage.read({});
    expect(during.coverage).toEqual(before.coverage);
    expect(during.stale).toMatchObject({ refreshFailures: 0, lastError: expect.stringMatching(/^the ops store cannot be reached: /) });
    expect(behind).toHaveLength(1);
    await expect(behind[0]!()).rejects.toThrow();
    expect((await coverage.read({})).stale).toMatchObject({ refreshFailures: 1 });
    // A process that never read the numbers has nothing to serve.
    const fresh = new CoverageService({ versions: stores.versions, ops: stores.ops, now: () => T1, refreshBehind: () => undefined });
    await expect(fresh.read({})).rejects.toMatchObject({ code: 'internal_error' });
    await expect(runAudit({ ...deps, now: () => T1 }, 'schedule')).rejects.toThrow();
  });
});
