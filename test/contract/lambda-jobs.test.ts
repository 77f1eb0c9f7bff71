/**
 * The scheduled jobs' functions (functions/lambda/jobs/), run for real: DynamoDB stores from the environment a deployed
 * job function gets (tables on dynalite through AWS_ENDPOINT_URL_DYNAMODB), the embedded SQLite search index in
 * place of OpenSearch, the bundled sample's files through the SourceFiles port (local files; and once through the S3
 * reader against the local S3 fake). The metrics are read from the EMF lines Powertools writes.
 *
 * The file tells one story on one store set: coverage of the empty store, the sample ingested through the job, then
 * probe, coverage and audit on it. Tests that need other state get fresh tables on the same dynalite.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { s3SourceFiles } from '#lambda/adapters/s3-source-files.ts';
import { ENV, TABLE_ENV } from '#lambda/env.ts';
import { auditHandler } from '#lambda/jobs/audit-job.ts';
import { coverageHandler } from '#lambda/jobs/coverage-job.ts';
import type { IngestJobEvent } from '#lambda/jobs/ingest-event.ts';
import { ingestHandler } from '#lambda/jobs/ingest-job.ts';
import { probeHandler } from '#lambda/jobs/probe-job.ts';
import { LocalSourceFiles } from '#lambda/jobs/source-files.ts';
import { JOB_METRICS, JOB_NAMES, type JobName, jobMetricDimensions } from '#lambda/metric-names.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { type DynaliteStores, LOCAL_TABLES, openDynaliteStores } from '../support/dynalite-stores.ts';
import { startFakeS3 } from '../support/fake-s3.ts';
import { lambdaContext as context, deployedLambdaEnv } from './lambda-env.ts';

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url));
const RETRIEVED_AT = '2026-11-22T07:25:00Z';
const SAMPLE_EVENTS: IngestJobEvent[] = [
  { kind: 'uslm', files: ['uslm/usc01@113-31.xml', 'uslm/usc01@117-80.xml'], retrievedAt: RETRIEVED_AT },
  { kind: 'dc-code', manifest: 'dc-code/manifest.csv', retrievedAt: RETRIEVED_AT },
  { kind: 'rules', set: 'frap', paths: ['rules/frap/'], retrievedAt: RETRIEVED_AT },
  // No set: told by the folder's name, as the CLI does.
  { kind: 'rules', paths: ['rules/north-dakota-rap'], retrievedAt: RETRIEVED_AT },
];

let stores: DynaliteStores;
let log: MockInstance<typeof console.log>;
const saved = { ...process.env };
let tableRound = 0;

/** The environment a deployed job function gets: the versions and ops tables (the job functions are given no other). */
const jobEnv = (tables: { versions: string; ops: string } = LOCAL_TABLES) =>
  deployedLambdaEnv(stores.dynamo, { versions: tables.versions, ops: tables.ops }, { POWERTOOLS_METRICS_DISABLED: 'false' });

/** Fresh, empty versions and ops tables on the same dynalite, and the stores on them. */
async function freshTables() {
  const names = tableNames(`jobs-${++tableRound}`);
  const doc = createDocumentClient(stores.dynamo);
  await ensureTables(doc, { versions: names.versions, ops: names.ops });
  return { names, versions: new DynamoVersionStore(doc, names.versions), ops: new DynamoOpsStore(doc, names.ops) };
}

const later = (minutes: number) => () => new Date(Date.now() + minutes * 60_000);
const searchFromPglite = () => stores.search;
const sampleFiles = () => new LocalSourceFiles(SAMPLE);

interface Emitted {
  name: string;
  value: number;
  namespace: string;
  dimensions: Record<string, string>;
}

/** The metrics written since the last reset, from the EMF documents Powertools logs. */
function emitted(): Emitted[] {
  return log.mock.calls.flatMap(([line]) => {
    if (typeof line !== 'string' || !line.includes('"_aws"')) return [];
    const doc = JSON.parse(line) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    return doc._aws.CloudWatchMetrics.flatMap((set) =>
      set.Metrics.map((m) => ({
        name: m.Name,
        value: doc[m.Name] as number,
        namespace: set.Namespace,
        dimensions: Object.fromEntries(set.Dimensions[0]!.map((d) => [d, String(doc[d])])),
      })),
    );
  });
}
const metric = (name: string) => emitted().find((m) => m.name === name)?.value;
const metricNames = () =>
  emitted()
    .map((m) => m.name)
    .sort();

beforeAll(async () => {
  stores = await openDynaliteStores();
  Object.assign(process.env, jobEnv());
});
afterAll(async () => {
  process.env = saved;
  await stores?.close();
});
beforeEach(() => {
  log?.mockRestore();
  log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
});

describe('the job functions load as deployed', () => {
  it('loads every job entry with the environment a deployed job function gets, without calling AWS', async () => {
    for (const job of JOB_NAMES) {
      const entry = (await import(`../../functions/lambda/jobs/${job}.ts`)) as { handler?: unknown };
      expect(typeof entry.handler, job).toBe('function');
    }
  });

  it('refuses to load without its tables (a wiring mistake fails the first call, not a customer)', () => {
    expect(() => coverageHandler({ env: { ...jobEnv(), [TABLE_ENV.ops]: undefined } })).toThrow(`${TABLE_ENV.ops} is not set`);
  });
});

describe('the ingest job', () => {
  it('refreshes coverage of the empty store first (so that the ingest has a cache to mark)', async () => {
    const result = await coverageHandler({})({}, context('coverage-empty'));
    expect(result).toMatchObject({ collections: 0 });
    expect((await stores.ops.getCoverage())?.dirtySince).toBeNull();
  });

  it('loads the bundled sample through the SourceFiles port, then syncs the format records, refreshes coverage and audits, as the local server does', {
    timeout: 180_000,
  }, async () => {
    // Prepare
    const handler = ingestHandler({ search: searchFromPglite, sources: sampleFiles });
    const results: unknown[] = [];
    // Act
    for (const [i, event] of SAMPLE_EVENTS.entries()) results.push(await handler(event, context(`ingest-${i}`)));
    // Assess
    expect(results.map((r) => (r as { editions: unknown[] }).editions.length)).toEqual([2, expect.any(Number), 1, 1]);
    expect(await stores.versions.carries('us')).toBe(true);
    expect(await stores.versions.carries('dc')).toBe(true);
    expect(await stores.versions.carries('nd')).toBe(true);
    expect((await stores.versions.listEditions('ndrappp')).length).toBe(1);
    expect((await stores.formats.listRecords()).length).toBeGreaterThan(0);
    const coverage = await stores.ops.getCoverage();
    expect(coverage?.dirtySince).toBeNull();
    expect(coverage?.records.map((r) => r.jurisdiction).sort()).toEqual(['dc', 'nd', 'us', 'us']);
    const audit = await stores.ops.latestAuditRun('all');
    expect(audit?.run).toMatchObject({ trigger: 'ingest', failed: 0 });
    expect((results.at(-1) as { audit: unknown }).audit).toEqual(audit?.run);
    expect(await stores.search.count()).toBeGreaterThan(0);
    const runs = emitted().filter((m) => m.name === JOB_METRICS.ingestSucceeded);
    expect(runs.map((m) => m.value)).toEqual([1, 1, 1, 1]);
    expect(
      emitted()
        .filter((m) => m.name === JOB_METRICS.ingestVersionsWritten)
        .every((m) => m.value > 0),
    ).toBe(true);
    expect(emitted().some((m) => m.name === JOB_METRICS.ingestFailed || m.name === JOB_METRICS.failed)).toBe(false);
  });

  it('is idempotent: a re-run of the same events writes nothing and changes no key', { timeout: 180_000 }, async () => {
    // Prepare
    const handler = ingestHandler({ search: searchFromPglite, sources: sampleFiles });
    const before = await stores.search.count();
    // Act
    for (const [i, event] of SAMPLE_EVENTS.entries()) await handler(event, context(`reingest-${i}`));
    // Assess
    const sums = (name: string) =>
      emitted()
        .filter((m) => m.name === name)
        .reduce((n, m) => n + m.value, 0);
    expect(sums(JOB_METRICS.ingestSucceeded)).toBe(SAMPLE_EVENTS.length);
    expect(sums(JOB_METRICS.ingestVersionsWritten)).toBe(0);
    expect(sums(JOB_METRICS.ingestChangedKeys)).toBe(0);
    expect(sums(JOB_METRICS.ingestDocuments)).toBeGreaterThan(0);
    expect(await stores.search.count()).toBe(before);
  });

  it.each([
    ['no kind', { files: ['uslm/usc01@113-31.xml'] }, 'kind'],
    ['an unknown kind', { kind: 'cfr', files: ['x.xml'] }, 'kind'],
    ['no files', { kind: 'uslm', files: [] }, 'files'],
    ['a path leading out of the bucket', { kind: 'uslm', files: ['../secrets.xml'] }, 'files[0]'],
    ['an absolute path', { kind: 'rules', set: 'frap', paths: ['/etc'] }, 'paths[0]'],
    ['a field it does not know', { kind: 'dc-code', manifest: 'dc-code/manifest.csv', bucket: 'elsewhere' }, 'bucket'],
    ['a date that does not exist', { kind: 'uslm', files: ['uslm/usc01@113-31.xml'], date: '2019-02-30' }, 'date'],
    ['an unknown rule set', { kind: 'rules', set: 'cfr', paths: ['rules/frap'] }, 'set'],
    ['a manifest outside a folder', { kind: 'dc-code', manifest: 'manifest.csv' }, 'manifest'],
    ['a state code not configured', { kind: 'state-code', state: 'ga', paths: ['states/transforms/ga'] }, 'state'],
    ['not an object at all', 'ingest please', 'expected object'],
  ])('refuses an event with %s, saying why, without throwing (a refused event is never retried)', async (_what, event, field) => {
    // Prepare
    const handler = ingestHandler({ search: searchFromPglite, sources: sampleFiles });
    // Act
    const result = (await handler(event as never, context('refused'))) as { refused?: string };
    // Assess
    expect(result.refused).toMatch(/^ingest event refused/);
    expect(result.refused).toContain(field);
    expect(metricNames()).toEqual([JOB_METRICS.failed, JOB_METRICS.ingestFailed, JOB_METRICS.refused].sort());
  });

  it('refuses an event naming a file the sources do not hold, naming it', async () => {
    const handler = ingestHandler({ search: searchFromPglite, sources: sampleFiles });
    const result = (await handler({ kind: 'uslm', files: ['uslm/usc02@117-80.xml'] }, context('missing-file'))) as { refused?: string };
    expect(result.refused).toContain(`no file or folder named 'uslm/usc02@117-80.xml'`);
    expect(metric(JOB_METRICS.ingestFailed)).toBe(1);
    expect(metric(JOB_METRICS.refused)).toBe(1);
  });

  it('loads CourtListener records from the sources into the case-law replica (a courtlistener event), and a rerun adds nothing', async () => {
    // Prepare
    // Chester v. State (267 Ga. 9) from the API records; Marsh v. Chambers's citing cases from the network fixture.
    const chester = async () =>
      [...(await stores.caselaw.clustersByCitation([{ volume: '267', reporter: 'Ga.', page: '9' }])).values()].flat();
    expect(await chester()).toEqual([]);
    expect(await stores.caselaw.citedByCount(111014)).toBe(0);
    const handler = ingestHandler({ search: searchFromPglite, sources: sampleFiles, caselaw: () => stores.caselaw });
    const event = {
      kind: 'courtlistener',
      paths: [
        'caselaw/courtlistener-fixtures/court_data.json',
        'caselaw/courtlistener-fixtures/tog_to_marsh.json',
        'caselaw/courtlistener-api-v3',
      ],
    } as const;
    // Act
    const first = (await handler(event, context('caselaw'))) as { kind: string; report: { clusters: number; citations: number } };
    const citedBy = await stores.caselaw.citedByCount(111014);
    const second = (await handler(event, context('caselaw-again'))) as { report: { clusters: number } };
    // Assess
    expect(first).toMatchObject({ kind: 'courtlistener', report: { clusters: expect.any(Number), citations: expect.any(Number) } });
    expect(first.report.clusters).toBeGreaterThan(0);
    expect(await chester()).toEqual([1296689]);
    expect(citedBy).toBe(14);
    expect(await stores.caselaw.citedByCount(111014)).toBe(citedBy);
    expect(second.report.clusters).toBe(first.report.clusters);
    expect(
      emitted()
        .filter((m) => m.name === JOB_METRICS.ingestSucceeded)
        .map((m) => m.value),
    ).toEqual([1, 1]);
  });

  it('refuses a courtlistener event naming a file the sources lack, and fails when no replica is bound', async () => {
    const withReplica = ingestHandler({ search: searchFromPglite, sources: sampleFiles, caselaw: () => stores.caselaw });
    const refused = (await withReplica(
      { kind: 'courtlistener', paths: ['caselaw/opinions-2099-01-01.csv'] },
      context('caselaw-missing'),
    )) as { refused?: string };
    expect(refused.refused).toContain(`no file or folder named 'caselaw/opinions-2099-01-01.csv'`);

    const withoutReplica = ingestHandler({ search: searchFromPglite, sources: sampleFiles });
    await expect(
      withoutReplica({ kind: 'courtlistener', paths: ['caselaw/courtlistener-api-v3'] }, context('caselaw-unbound')),
    ).rejects.toThrow(`${ENV.caseLawHost} is not set`);
  });

  it('fails (thrown, so Lambda retries it and the DLQ gets it) when no sources bucket is bound', async () => {
    const handler = ingestHandler({ search: searchFromPglite });
    await expect(handler(SAMPLE_EVENTS[0]!, context('no-bucket'))).rejects.toThrow(`${ENV.sourcesBucket} is not set`);
    expect(metricNames()).toEqual([JOB_METRICS.failed, JOB_METRICS.ingestFailed].sort());
  });

  it('fails when a store fails, counting JobFailed and IngestFailed', async () => {
    // Prepare: the ops table (the ingest lease) does not exist
    const handler = ingestHandler({
      search: searchFromPglite,
      sources: sampleFiles,
      env: { ...jobEnv(), [TABLE_ENV.ops]: 'asof-jobs-missing-ops' },
    });
    // Act, Assess
    await expect(handler(SAMPLE_EVENTS[0]!, context('store-fails'))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(metricNames()).toEqual([JOB_METRICS.failed, JOB_METRICS.ingestFailed].sort());
  });

  it('reads its files from the sources bucket through the S3 reader; retrieved at the ingest unless the event says', {
    timeout: 60_000,
  }, async () => {
    // Prepare
    const fake = await startFakeS3();
    const ingestedAt = new Date('2026-11-23T09:30:00Z');
    await fake.putFolder('asof-test-sources', 'uslm/', `${SAMPLE}uslm`);
    Object.assign(process.env, { AWS_ENDPOINT_URL_S3: fake.url });
    const { names, versions } = await freshTables();
    const env = { ...jobEnv(names), [ENV.sourcesBucket]: 'asof-test-sources' };
    try {
      // Act
      const handler = ingestHandler({ search: searchFromPglite, sources: s3SourceFiles, env, now: () => ingestedAt });
      const result = await handler({ kind: 'uslm', files: ['uslm/usc01@117-80.xml'] }, context('from-s3'));
      // Assess
      expect(result).toMatchObject({ from: 's3://asof-test-sources', editions: [{ documents: expect.any(Number) }] });
      expect((await versions.listEditions('usc')).map((e) => e.retrievedAt)).toEqual([ingestedAt.toISOString()]);
      expect(await versions.carries('us')).toBe(true);
      expect(fake.requests).toContain('GET asof-test-sources/uslm/usc01@117-80.xml');
    } finally {
      delete process.env.AWS_ENDPOINT_URL_S3;
      await fake.close();
    }
  });
});

describe('the probe job', () => {
  it('records a verdict, then reports the standing one without probing again within 5 minutes, and probes again after', async () => {
    // Prepare
    const { names, ops } = await freshTables();
    const env = { ...jobEnv({ versions: LOCAL_TABLES.versions, ops: names.ops }) };
    // Act
    const first = (await probeHandler({ search: searchFromPglite, env })({}, context('probe-1'))) as { checkedAt: string; probed: boolean };
    const firstMetric = metric(JOB_METRICS.corpusHealthy);
    const second = (await probeHandler({ search: searchFromPglite, env, now: later(4) })({}, context('probe-2'))) as {
      checkedAt: string;
      probed: boolean;
    };
    const third = (await probeHandler({ search: searchFromPglite, env, now: later(6) })({}, context('probe-3'))) as {
      checkedAt: string;
      probed: boolean;
    };
    // Assess
    expect(first).toMatchObject({ reachable: true, detail: 'ok', probed: true });
    expect(await ops.getHealthVerdict()).toEqual({ checkedAt: third.checkedAt, reachable: true, detail: 'ok' });
    expect(second).toMatchObject({ probed: false, checkedAt: first.checkedAt, reachable: true });
    expect(third.probed).toBe(true);
    expect(third.checkedAt > first.checkedAt).toBe(true);
    expect(firstMetric).toBe(1);
    expect(
      emitted()
        .filter((m) => m.name === JOB_METRICS.corpusHealthy)
        .map((m) => m.value),
    ).toEqual([1, 1, 1]);
  });

  it('emits CorpusHealthy 0 and records the corpus unhealthy when no search index is bound', async () => {
    const { names, ops } = await freshTables();
    const result = await probeHandler({ env: jobEnv({ versions: LOCAL_TABLES.versions, ops: names.ops }) })({}, context('probe-no-search'));
    expect(result).toMatchObject({ reachable: false, detail: 'search_unreachable' });
    expect(await ops.getHealthVerdict()).toMatchObject({ reachable: false, detail: 'search_unreachable' });
    expect(metric(JOB_METRICS.corpusHealthy)).toBe(0);
  });

  it('emits CorpusHealthy 0 when the corpus is empty', async () => {
    const { names } = await freshTables();
    await probeHandler({ search: searchFromPglite, env: jobEnv(names) })({}, context('probe-empty'));
    expect(metric(JOB_METRICS.corpusHealthy)).toBe(0);
  });

  it('emits CorpusHealthy 0 when DynamoDB cannot be reached at all (the verdict cannot be stored either)', async () => {
    // Prepare: a DynamoDB endpoint nobody listens on
    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:9';
    try {
      // Act
      const result = await probeHandler({
        search: searchFromPglite,
        env: { ...jobEnv(), AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9' },
      })({}, context('probe-down'));
      // Assess
      expect(result).toMatchObject({ reachable: false, detail: 'versions_unreachable' });
      expect(metric(JOB_METRICS.corpusHealthy)).toBe(0);
    } finally {
      process.env.AWS_ENDPOINT_URL_DYNAMODB = stores.dynamo.endpoint;
    }
  });
});

describe('the coverage job', () => {
  it('writes the cache from the ingested corpus and clears the mark the ingest left', async () => {
    // Act
    const result = await coverageHandler({})({}, context('coverage'));
    // Assess
    const cache = await stores.ops.getCoverage();
    expect(cache?.records.map((r) => r.name)).toHaveLength((result as { collections: number }).collections);
    expect(cache?.records.length).toBeGreaterThanOrEqual(4);
    expect(cache?.dirtySince).toBeNull();
    expect(cache?.generatedAt).toBe((result as { generatedAt: string }).generatedAt);
    expect(metricNames()).toEqual([JOB_METRICS.succeeded]);
  });

  it('throws and counts JobFailed when the versions store fails', async () => {
    const handler = coverageHandler({ env: { ...jobEnv(), [TABLE_ENV.versions]: 'asof-jobs-missing-versions' } });
    await expect(handler({}, context('coverage-fails'))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(metricNames()).toEqual([JOB_METRICS.failed]);
  });
});

describe('the audit job', () => {
  it('stores a scheduled run per jurisdiction and one over everything, and emits its failed and warned checks', {
    timeout: 60_000,
  }, async () => {
    // Act
    const runs = (await auditHandler({ search: searchFromPglite })({}, context('audit'))) as {
      jurisdiction: string;
      failed: number;
      warned: number;
    }[];
    // Assess
    const all = await stores.ops.latestAuditRun('all');
    expect(all?.run).toMatchObject({ trigger: 'schedule', jurisdiction: 'all' });
    expect(runs.map((r) => r.jurisdiction).sort()).toEqual(['all', 'dc', 'nd', 'us']);
    expect(metric(JOB_METRICS.auditFailedChecks)).toBe(all!.run.failed);
    expect(metric(JOB_METRICS.auditWarnedChecks)).toBe(all!.run.warned);
  });

  it('throws and counts JobFailed without a search index to check (a stage without its domain)', async () => {
    await expect(auditHandler({})({}, context('audit-no-search'))).rejects.toMatchObject({
      name: 'StoreUnavailableError',
      store: 'search',
    });
    expect(metricNames()).toEqual([JOB_METRICS.failed]);
  });
});

describe('the metrics the alarms read', () => {
  it.each<[JobName, () => Promise<unknown>]>([
    ['probe', () => probeHandler({ search: searchFromPglite })({}, context('dims-probe'))],
    ['coverage', () => coverageHandler({})({}, context('dims-coverage'))],
    ['audit', () => auditHandler({ search: searchFromPglite })({}, context('dims-audit'))],
    ['ingest', () => ingestHandler({ search: searchFromPglite, sources: sampleFiles })(SAMPLE_EVENTS[2]!, context('dims-ingest'))],
  ])('are emitted by %s in the asof namespace with exactly the exported dimensions', async (job, run) => {
    await run();
    const metrics = emitted();
    expect(metrics.length).toBeGreaterThan(0);
    for (const m of metrics) {
      expect(m.namespace).toBe(JOB_METRICS.namespace);
      expect(m.dimensions).toEqual(jobMetricDimensions(job));
    }
  });
});
