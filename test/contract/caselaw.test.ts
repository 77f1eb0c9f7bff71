/**
 * The case-law replica's SQL adapter against the CaseLawStore contract: on PGlite (as the local runtime runs it, in
 * a worker thread) and on a PostgreSQL server when DATABASE_URL is set (CI); then resolution over it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRequest, resolveCitations } from '#caselaw/resolve.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { migrateCaseLaw, PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { closePglite, openPgliteThread, type PgliteLike } from '#stores/postgres/pglite.ts';
import { connectPostgres, pgliteClient, type SqlClient } from '#stores/postgres/sql-client.ts';
import { describeCaseLawStoreContract, SAMPLE_CASELAW_PATHS, type CaseLawFixture } from './caselaw-store.contract.ts';
import { loadCourtListenerFiles } from '#ingest/courtlistener-load.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const TABLES = ['search_court', 'search_docket', 'search_opinioncluster', 'search_citation', 'search_opinion', 'search_opinionscited'];

let pglite: Promise<PgliteLike> | undefined;
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

describeCaseLawStoreContract('PostgreSQL on PGlite in a worker thread', async () => fixture(pgliteClient(await sharedPglite(), { store: 'caselaw' })));
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
    const results = await resolveCitations(f.store, parseRequest({ citations: ['12 Foo. Rptr. 34', { volume: 267, reporter: 'Ga.', page: 9 }, 'not a citation'] }));
    expect(results.map((r) => r.status)).toEqual([400, 200, 400]);
    expect(results[0]!.errorMessage).toBe("Unknown reporter 'Foo. Rptr.' in '12 Foo. Rptr. 34'.");
  });
});
