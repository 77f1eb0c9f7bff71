/**
 * Lookup and search on the federal corpus the repo carries, next to the bundled sample (issue 16). One fresh data
 * dir: `asof serve`'s first start loads the sample, which is measured; then every OLRC zip under the USLM directory
 * (data/uslm/olrc by default: 35 zips, 23 titles) is ingested on top of it through the real path
 * (bench/ingest-worker.ts: runIngest, then the coverage refresh and the audit, as `asof ingest uslm` runs them), and
 * the same runs are measured again. The sample already carries the rules editions (data/rules/us-code-appendix-text,
 * set `us-code-appendix`), so the federal data dir holds them too.
 *
 * Each corpus is measured on `asof serve` as it runs by default (cache, meter) and on `asof serve --no-cache
 * --no-meter` (every request reads the stores, nothing counted: what issue 17 targets): lookup and search at 32
 * connections and at 1. The sample's pools are § 1's; the federal pools are drawn from what was loaded: real keys of
 * titles the sample does not carry at dates inside their versions, and real words of those titles, broad and narrow.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readUslmTitle } from '#ingest/uslm.ts';
import { collectionById } from '#law/collections.ts';
import { WordFrequencies } from './corpus-words.ts';
import { poolStats, probePaths } from './http-load.ts';
import type { IngestWorkerResult } from './ingest-worker.ts';
import { type LoadSettings, type LoadTarget, measurePools, type PoolRuns } from './pool-runs.ts';
import { createKeys, REPO, type RunningServer, rotatingAuth, runNode, startServer } from './proc.ts';
import type { PoolStats } from './report.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { prng } from './synthetic-uslm.ts';
import { lookupPath, sampleLookupPaths, sampleSearchPaths, searchPath } from './targets.ts';

/** Titles (OLRC file names) the lookup and search pools of the federal corpus are drawn from: none is in the sample. */
const POOL_TITLES = ['usc05a', 'usc14', 'usc24', 'usc32', 'usc39', 'usc41'];
const LOOKUPS_PER_TITLE = 150;

export type FederalRuns = PoolRuns<'lookup' | 'search'>;

export interface FederalCorpusFigures {
  lookupPool: PoolStats;
  searchPool: PoolStats;
  /** `asof serve` as it runs by default: cache and meter. */
  served: FederalRuns;
  /** `asof serve --no-cache --no-meter`. */
  uncachedUnmetered: FederalRuns;
}

export interface FederalFigures {
  dir: string;
  loadAverage: number[];
  settings: LoadSettings;
  /** The sample: sections over its editions (documents the connectors read), and the first start that loads it. */
  sample: FederalCorpusFigures & { documents: number; firstStartMs: number };
  federal: FederalCorpusFigures & {
    zips: number;
    /** The ingest of the zips on top of the sample (child process): wall time, spawn to exit. */
    loadWallMs: number;
    worker: IngestWorkerResult;
    /** Sections read over the editions of the zips, and versions written (editions already in the sample write none). */
    documents: number;
    versions: number;
    editions: number;
    unchangedEditions: number;
    poolTitles: string[];
    queries: { broad: string[]; narrow: string[] };
  };
}

const addDays = (date: string, days: number) => new Date(Date.parse(date) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The federal pools: for each pool title, keys of each of its editions at a date 60 days after the edition (inside
 * the version it starts: release points are years apart), alternating key and printed form, plus 3 % unknown keys;
 * searches of the titles' own words: the most widespread (broad) and words found in two or three sections (narrow).
 */
export async function federalPools(zips: string[]): Promise<{ lookups: string[]; searches: string[]; broad: string[]; narrow: string[] }> {
  const rnd = prng(16);
  const lookups: string[] = [];
  const words = new WordFrequencies();
  const usc = collectionById('usc');
  for (const zip of zips.filter((z) => POOL_TITLES.some((t) => z.includes(`/xml_${t}@`)))) {
    for (const edition of await readUslmTitle(zip, { retrievedAt: '2026-11-24T00:00:00.000Z' })) {
      const keys: string[] = [];
      for await (const doc of edition.documents) {
        keys.push(doc.key);
        words.add(doc.key, `${doc.catchline} ${doc.bodyText}`);
      }
      const date = addDays(edition.date, 60);
      for (let i = 0; i < LOOKUPS_PER_TITLE && keys.length; i++) {
        const key = keys[Math.floor(rnd() * keys.length)]!;
        lookups.push(lookupPath('us', i % 2 ? usc.display(key) : key, date));
      }
    }
  }
  if (!lookups.length) throw new Error(`none of the pool titles (${POOL_TITLES.join(', ')}) is among the zips`);
  const unknown = Math.ceil(lookups.length * 0.03);
  for (let i = 0; i < unknown; i++) lookups.push(lookupPath('us', `14-${90_000 + i}`, '2023-06-01'));
  const { broad, narrow } = words.queries(rnd);
  const searches: string[] = [];
  for (const q of [...broad, ...narrow]) {
    for (const date of [null, '2014-01-01', '2023-06-01']) searches.push(searchPath(q, date, null));
    searches.push(searchPath(q, '2023-06-01', 'us'));
  }
  return { lookups, searches, broad, narrow };
}

export async function zipsUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.zip$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const target = (server: RunningServer): LoadTarget => ({ origin: new URL(server.url).origin, pid: server.pid, drains: true });

async function measureCorpus(
  label: string,
  dataDir: string,
  headers: Record<string, string>,
  lookups: string[],
  searches: string[],
  s: LoadSettings,
  log: (line: string) => void,
  running?: RunningServer,
): Promise<FederalCorpusFigures> {
  const server = running ?? (await startServer(dataDir));
  let lookupPool: PoolStats;
  let searchPool: PoolStats;
  let served: FederalRuns;
  try {
    const origin = new URL(server.url).origin;
    lookupPool = poolStats(await probePaths(origin, lookups, headers));
    searchPool = poolStats(await probePaths(origin, searches, headers));
    log(
      `${label}: ${lookups.length} lookups (${Object.entries(lookupPool.statuses)
        .map(([st, n]) => `${n} × ${st}`)
        .join(', ')}), ${searches.length} searches (${searchPool.withHits} with hits, ${searchPool.meanHits?.toFixed(0)} hits on average)`,
    );
    log(`${label}: \`asof serve\` (cache, meter)`);
    served = await measurePools(label, target(server), headers, { lookup: lookups, search: searches }, s, log);
  } finally {
    await server.stop();
  }
  log(`${label}: \`asof serve --no-cache --no-meter\``);
  const bare = await startServer(dataDir, { cache: false, meter: false });
  try {
    const uncachedUnmetered = await measurePools(
      `${label}, no cache, no meter`,
      target(bare),
      headers,
      { lookup: lookups, search: searches },
      s,
      log,
    );
    return { lookupPool, searchPool, served, uncachedUnmetered };
  } finally {
    await bare.stop();
  }
}

export async function federalFigures(dirArg: string, s: LoadSettings, log: (line: string) => void): Promise<FederalFigures> {
  const dir = resolve(dirArg);
  const loadAverage = loadavg();
  const zips = await zipsUnder(dir);
  if (!zips.length) throw new Error(`no OLRC zip under ${dir}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'asof-bench-federal-'));
  try {
    log(`  first start on an empty data dir (${dataDir}): the sample is loaded`);
    const first = await startServer(dataDir);
    let headers: Record<string, string>;
    try {
      log(`  serving after ${(first.servingMs / 1000).toFixed(1)} s; issuing ${s.keys} keys`);
      headers = rotatingAuth(await createKeys(dataDir, s.keys));
    } catch (err) {
      await first.stop();
      throw err;
    }
    const sampleDocs = await readSampleCorpus();
    const sampleFigures = await measureCorpus(
      'sample',
      dataDir,
      headers,
      sampleLookupPaths(sampleDocs),
      sampleSearchPaths(),
      s,
      log,
      first,
    );

    log(`  federal: ingesting ${zips.length} zips on top of the sample`);
    const t = performance.now();
    const { stdout } = await runNode(
      [
        '--import',
        'tsx',
        join('bench', 'ingest-worker.ts'),
        JSON.stringify({ dataDir, files: zips, retrievedAt: '2026-11-24T00:00:00.000Z', after: true }),
      ],
      { onStderrLine: (l) => (/^\s+ingest: /.test(l) ? undefined : log(l)) },
    );
    const loadWallMs = performance.now() - t;
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`the ingest worker printed no result:\n${stdout}`);
    const worker = JSON.parse(line.slice('RESULT '.length)) as IngestWorkerResult;
    const documents = worker.editions.reduce((n, e) => n + e.documents, 0);
    const versions = worker.editions.reduce((n, e) => n + e.puts, 0);
    const unchangedEditions = worker.editions.filter((e) => e.unchanged).length;
    log(
      `  federal: ${worker.editions.length} editions (${unchangedEditions} unchanged, already in the sample), ${documents} sections read, ` +
        `${versions} versions written; ingest ${(worker.ingestMs / 1000).toFixed(1)} s, ${(loadWallMs / 1000).toFixed(1)} s with coverage and audit (${worker.auditSummary})`,
    );
    const pools = await federalPools(zips);
    log(`  federal pools: broad ${pools.broad.map((q) => `"${q}"`).join(', ')}; narrow ${pools.narrow.map((q) => `"${q}"`).join(', ')}`);
    const federal = await measureCorpus('federal', dataDir, headers, pools.lookups, pools.searches, s, log);
    const shown = dir.startsWith(`${REPO}/`) ? dir.slice(REPO.length + 1) : dir;
    return {
      dir: shown,
      loadAverage,
      settings: s,
      sample: { ...sampleFigures, documents: sampleDocs.length, firstStartMs: first.servingMs },
      federal: {
        ...federal,
        zips: zips.length,
        loadWallMs,
        worker,
        documents,
        versions,
        editions: worker.editions.length,
        unchangedEditions,
        poolTitles: POOL_TITLES,
        queries: { broad: pools.broad, narrow: pools.narrow },
      },
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
