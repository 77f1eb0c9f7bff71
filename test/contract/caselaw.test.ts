/**
 * The case-law replica's SQL adapter against the CaseLawStore contract: on PGlite (as the local runtime runs it, in
 * a worker thread) and on a PostgreSQL server when DATABASE_URL is set (CI); then resolution over it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRequest, resolveCitations } from '#caselaw/resolve.ts';
import { loadBulkFiles } from '#ingest/courtlistener-bulk.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread, type PgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { connectPostgres, pgliteClient, type SqlClient } from '#stores/postgres/sql-client.ts';
import { type CaseLawFixture, describeCaseLawStoreContract, SAMPLE_CASELAW_PATHS } from './caselaw-store.contract.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const TABLES = ['search_court', 'search_docket', 'search_opinioncluster', 'search_citation', 'search_opinion', 'search_opinionscited'];

let pglite: Promise<PgliteThread> | undefined;
const sharedPglite = () => (pglite ??= openPgliteThread());
afterAll(async () => {
  if (pglite) await closePglite(await pglite);
});

async function fixture(client: SqlClient, onDispose: () => Promise<void> = async () => undefined): Promise<CaseLawFixture> {
  const schema = `caselaw_${randomBytes(4).toString('hex')}`;
  await migrateCaseLaw(client, schema);
  return {
    store: new PostgresCaseLawStore(client, schema),
    counts: async () => {
      const out: Record<string, number> = {};
      for (const t of TABLES) out[t] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${t}`)).rows[0]!.n);
      return out;
    },
    dispose: async () => {
      await client.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await onDispose();
    },
  };
}

describeCaseLawStoreContract('PostgreSQL on PGlite in a worker thread', async () =>
  fixture(pgliteClient(await sharedPglite(), { store: 'caselaw' })),
);
if (DATABASE_URL) {
  describeCaseLawStoreContract('PostgreSQL server (DATABASE_URL)', async () => {
    const client = connectPostgres(DATABASE_URL, { store: 'caselaw' });
    return fixture(client, () => client.close());
  });
}

describe('migrations of the replica', () => {
  it('apply once, and a second run applies nothing', async () => {
    const client = pgliteClient(await sharedPglite(), { store: 'caselaw' });
    const schema = `caselaw_${randomBytes(4).toString('hex')}`;
    expect(await migrateCaseLaw(client, schema)).toEqual([1]);
    expect(await migrateCaseLaw(client, schema)).toEqual([]);
    await client.exec(`DROP SCHEMA "${schema}" CASCADE`);
  });

  it('report a closed store as the case-law store being unavailable', async () => {
    const db = await openPgliteThread();
    const client = pgliteClient(db, { store: 'caselaw' });
    await migrateCaseLaw(client);
    await closePglite(db);
    const err = await new PostgresCaseLawStore(client).clusters([1]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).store).toBe('caselaw');
  });
});

describe('resolution over the replica', () => {
  let f: CaseLawFixture;
  beforeAll(async () => {
    f = await fixture(pgliteClient(await sharedPglite(), { store: 'caselaw' }));
    await loadCourtListenerFiles(f.store, SAMPLE_CASELAW_PATHS);
  });
  afterAll(async () => f?.dispose());

  const resolve = async (text: string) => resolveCitations(f.store, parseRequest({ text }));

  it('resolves each citation of a parallel group to the same cluster, with exact offsets', async () => {
    const text = 'See Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996).';
    const results = await resolve(text);
    expect(results.map((r) => [r.status, text.slice(r.parsed.start, r.parsed.end), r.clusters.map((c) => c.id)])).toEqual([
      [200, '267 Ga. 9', [1296689]],
      [200, '471 S.E.2d 836', [1296689]],
    ]);
  });

  it('normalises a variation before matching (`97 F. 3d 553`), and gives 404 for a known reporter it does not hold', async () => {
    const results = await resolve('Perot v. FEC, 97 F. 3d 553 (D.C. Cir. 1996); Roe v. Wade, 410 U.S. 113 (1973)');
    expect(results.map((r) => [r.status, r.parsed.normalized, r.clusters.map((c) => c.id)])).toEqual([
      [200, ['97 F.3d 553'], [727295]],
      [404, ['410 U.S. 113'], []],
    ]);
    expect(results[1]!.errorMessage).toContain('410 U.S. 113');
  });

  it('gives 400 for a reporter reporters-db does not know, as given in the citations list', async () => {
    const results = await resolveCitations(
      f.store,
      parseRequest({ citations: ['12 Foo. Rptr. 34', { volume: 267, reporter: 'Ga.', page: 9 }, 'not a citation'] }),
    );
    expect(results.map((r) => r.status)).toEqual([400, 200, 400]);
    expect(results[0]!.errorMessage).toBe("Unknown reporter 'Foo. Rptr.' in '12 Foo. Rptr. 34'.");
  });
});

describe("CourtListener's bulk-data CSV files", () => {
  /** PostgreSQL `COPY … WITH (FORMAT csv, ESCAPE '\', HEADER)` as CourtListener writes it: null unquoted and empty. */
  const copyCsv = (header: string[], rows: Array<Array<string | number | null>>) =>
    `${[
      header.join(','),
      ...rows.map((r) => r.map((v) => (v === null ? '' : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')),
    ].join('\n')}\n`;

  let f: CaseLawFixture;
  let dir: string;
  beforeAll(async () => {
    f = await fixture(pgliteClient(await sharedPglite(), { store: 'caselaw' }));
    dir = await mkdtemp(join(tmpdir(), 'asof-bulk-'));
    // TEST FIXTURE in CourtListener's export format: Marsh v. Chambers and two citing cases, one of them with two
    // opinions that both cite it (depth is summed over them), and values that need every escape of the format.
    await writeFile(
      join(dir, 'courts-2026-10-31.csv'),
      copyCsv(
        ['id', 'full_name', 'short_name', 'citation_string', 'jurisdiction', 'position', 'in_use', 'start_date', 'end_date', 'url'],
        [['scotus', 'Supreme Court of the United States', 'Supreme Court', 'SCOTUS', 'F', 1, 't', null, null, 'http://supremecourt.gov/']],
      ),
    );
    await writeFile(
      join(dir, 'dockets-2026-10-31.csv'),
      copyCsv(
        ['id', 'court_id', 'case_name', 'docket_number', 'slug'],
        [
          [900, 'scotus', 'Marsh v. Chambers', '82-23', 'marsh-v-chambers'],
          [901, 'scotus', 'A "quoted" \\ name', '1', 'a'],
        ],
      ),
    );
    await writeFile(
      join(dir, 'opinion-clusters-2026-10-31.csv'),
      copyCsv(
        [
          'id',
          'docket_id',
          'case_name',
          'case_name_full',
          'case_name_short',
          'date_filed',
          'slug',
          'precedential_status',
          'citation_count',
          'judges',
        ],
        [
          [111014, 900, 'Marsh v. Chambers', '', 'Marsh', '1983-07-05', 'marsh-v-chambers', 'Published', 14, 'Burger'],
          [5001, 901, 'A "quoted" \\ name,\nwith a line break', null, null, '2001-01-02', 'a', 'Published', 3, null],
          [5002, null, 'Citing twice', '', '', null, 'b', 'Unpublished', 1, ''],
        ],
      ),
    );
    await writeFile(
      join(dir, 'citations-2026-10-31.csv'),
      copyCsv(
        ['id', 'volume', 'reporter', 'page', 'type', 'cluster_id'],
        [
          [1, '463', 'U.S.', '783', 1, 111014],
          [2, '103', 'S. Ct.', '3330', 1, 111014],
        ],
      ),
    );
    await writeFile(
      join(dir, 'opinions-2026-10-31.csv'),
      copyCsv(
        ['id', 'cluster_id', 'type', 'author_str', 'download_url', 'plain_text'],
        [
          [111014, 111014, '010combined', '', '', 'x'],
          [7001, 5001, '020lead', '', '', 'text, "quoted"'],
          [7002, 5002, '020lead', '', '', ''],
          [7003, 5002, '040dissent', '', '', ''],
        ],
      ),
    );
    await writeFile(
      join(dir, 'citation-map-2026-11-01.csv'),
      copyCsv(
        ['id', 'depth', 'cited_opinion_id', 'citing_opinion_id'],
        [
          [1, 1, 111014, 7001],
          [2, 2, 111014, 7002],
          [3, 3, 111014, 7003],
        ],
      ),
    );
  });
  afterAll(async () => {
    await f?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('streams every table into the replica, courts first, and moves dataAsOf to the newest file', async () => {
    const files = [
      'citation-map-2026-11-01.csv',
      'opinions-2026-10-31.csv',
      'citations-2026-10-31.csv',
      'opinion-clusters-2026-10-31.csv',
      'dockets-2026-10-31.csv',
      'courts-2026-10-31.csv',
    ];
    const reports = await loadBulkFiles(
      f.store,
      files.map((n) => join(dir, n)),
    );
    expect(reports.map((r) => [r.table, r.rows])).toEqual([
      ['courts', 1],
      ['dockets', 2],
      ['clusters', 3],
      ['citations', 2],
      ['opinions', 4],
      ['opinionsCited', 3],
    ]);
    expect(await f.store.dataAsOf()).toBe('2026-11-01');
    const [marsh] = await f.store.clusters([111014]);
    expect(marsh).toMatchObject({
      courtId: 'scotus',
      courtCitationString: 'SCOTUS',
      citations: [
        { volume: '103', reporter: 'S. Ct.', page: '3330', type: 1 },
        { volume: '463', reporter: 'U.S.', page: '783', type: 1 },
      ],
    });
    const [quoted] = await f.store.clusters([5001]);
    expect(quoted!.caseName).toBe('A "quoted" \\ name,\nwith a line break');
    const citing = await f.store.citedBy(111014, 10, null);
    expect(citing.map((c) => [c.cluster.id, c.depth])).toEqual([
      [5001, 1],
      [5002, 5],
    ]);
  });

  it('is idempotent, and refuses a file whose table it cannot tell, naming it', async () => {
    const before = await f.counts();
    await loadBulkFiles(f.store, [join(dir, 'citation-map-2026-11-01.csv'), join(dir, 'opinion-clusters-2026-10-31.csv')]);
    expect(await f.counts()).toEqual(before);
    await writeFile(join(dir, 'mystery.csv'), copyCsv(['a', 'b'], [[1, 2]]));
    await expect(loadBulkFiles(f.store, [join(dir, 'mystery.csv')])).rejects.toThrow(/mystery\.csv: neither its name nor its header/);
    await writeFile(
      join(dir, 'citations-broken.csv'),
      copyCsv(['id', 'volume', 'reporter', 'page', 'type', 'cluster_id'], [[1, '1', 'U.S.', '1', 1, 'not-a-number']]),
    );
    await expect(loadBulkFiles(f.store, [join(dir, 'citations-broken.csv')])).rejects.toThrow(
      /citations-broken\.csv: line 2: cluster_id must be an integer/,
    );
  });

  it('streams a large file in bounded batches (gzip too)', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [i + 1, 1, 111014, 100_000 + i]);
    await writeFile(
      join(dir, 'citation-map-2026-11-02.csv.gz'),
      gzipSync(copyCsv(['id', 'depth', 'cited_opinion_id', 'citing_opinion_id'], rows)),
    );
    const [report] = await loadBulkFiles(f.store, [join(dir, 'citation-map-2026-11-02.csv.gz')]);
    expect(report).toMatchObject({ table: 'opinionsCited', rows: 20_000 });
    expect((await f.counts()).search_opinionscited).toBe(20_003);
  });
});

describe('an ambiguous citation (300)', () => {
  let f: CaseLawFixture;
  beforeAll(async () => {
    f = await fixture(pgliteClient(await sharedPglite(), { store: 'caselaw' }));
    await loadCourtListenerFiles(f.store, [SAMPLE_CASELAW_PATHS[0]!]); // the court table
    // TEST FIXTURE: ten clusters printed under one citation, in different years and courts (no real data has this).
    const ids = Array.from({ length: 10 }, (_, i) => 9000 + i);
    await f.store.write({
      clusters: ids.map((id, i) => ({
        id,
        docketId: null,
        courtId: i === 7 ? 'ca9' : 'scotus',
        caseName: `Case ${i}`,
        caseNameFull: '',
        caseNameShort: '',
        dateFiled: i === 3 ? '1990-05-01' : `19${70 + i}-01-01`,
        slug: `case-${i}`,
        precedentialStatus: 'Published',
        citationCount: i,
        judges: '',
      })),
      citations: ids.map((id) => ({ clusterId: id, volume: '500', reporter: 'F.2d', page: '1', type: 1 })),
    });
  });
  afterAll(async () => f?.dispose());

  it('lists at most eight candidates, the parenthetical’s year first, then its court, then the most cited', async () => {
    const [byYear] = await resolveCitations(f.store, parseRequest({ text: 'X v. Y, 500 F.2d 1 (1990).' }));
    expect(byYear!.status).toBe(300);
    expect(byYear!.clusters.map((c) => c.id)).toEqual([9003, 9009, 9008, 9007, 9006, 9005, 9004, 9002]);
    const [byCourt] = await resolveCitations(f.store, parseRequest({ text: 'X v. Y, 500 F.2d 1 (9th Cir. 1977).' }));
    expect(byCourt!.clusters[0]!.id).toBe(9007);
    const [plain] = await resolveCitations(f.store, parseRequest({ citations: ['500 F.2d 1'] }));
    expect(plain!.clusters.map((c) => c.id)).toEqual([9009, 9008, 9007, 9006, 9005, 9004, 9003, 9002]);
    expect(plain!.errorMessage).toMatch(/^10 clusters match/);
  });
});
