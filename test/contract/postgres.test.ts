import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { appliedVersions, migrate } from '#stores/postgres/migrations.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { openPgliteThread, type PgliteThread } from '#stores/postgres/pglite-thread-client.ts';
import { chunkRows, PostgresSearchIndex, parseKeywords } from '#stores/postgres/search-index.ts';
import { connectPostgres, pgliteClient, poolClient, type SqlClient } from '#stores/postgres/sql-client.ts';
import { describeSearchIndexContract, loadSampleDocuments, type SearchIndexFactory, searchDoc } from './search-index.contract.ts';

const DATABASE_URL = process.env.DATABASE_URL;

/** One in-memory PGlite for the whole file (its start costs seconds), opened on first use. */
let shared: Promise<PGlite> | undefined;
const sharedPglite = (): Promise<PGlite> => (shared ??= openPglite());
afterAll(async () => {
  if (shared) await closePglite(await shared);
});

const uniqueSchema = (prefix: string): string => `${prefix}_${randomBytes(4).toString('hex')}`;

/** A migrated schema of its own on `client`, emptied by TRUNCATE and dropped at the end. */
async function schemaFixture(client: SqlClient, prefix: string, onDispose: () => Promise<void> = async () => undefined) {
  const schema = uniqueSchema(prefix);
  await migrate(client, schema);
  return {
    schema,
    index: new PostgresSearchIndex(client, { schema }),
    clear: async () => {
      await client.query(`TRUNCATE "${schema}".search_documents`);
    },
    dispose: async () => {
      await client.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await onDispose();
    },
  };
}

const pgliteFactory: SearchIndexFactory = {
  open: async () => schemaFixture(pgliteClient(await sharedPglite()), 'contract'),
  // A store of its own, since closing the shared one would end every other suite of the file.
  openClosed: async () => {
    const db = await openPglite();
    const client = pgliteClient(db);
    await migrate(client, 'closed');
    await closePglite(db);
    return new PostgresSearchIndex(client, { schema: 'closed' });
  },
};

const serverFactory = (url: string): SearchIndexFactory => ({
  open: async () => {
    const client = connectPostgres(url);
    return schemaFixture(client, 'asof_contract', () => client.close());
  },
  openClosed: async () => {
    const pool = new pg.Pool({ connectionString: url });
    const client = poolClient(pool);
    await client.query('SELECT 1');
    await pool.end();
    return new PostgresSearchIndex(client, { schema: 'closed' });
  },
});

describeSearchIndexContract('PostgreSQL on PGlite', pgliteFactory);

/** The same adapter on PGlite in a worker thread of its own, as the local runtime runs it. */
let threaded: Promise<PgliteThread> | undefined;
afterAll(async () => {
  if (threaded) await closePglite(await threaded);
});
describeSearchIndexContract('PostgreSQL on PGlite in a worker thread', {
  open: async () => {
    threaded ??= openPgliteThread();
    return schemaFixture(pgliteClient(await threaded), 'threaded');
  },
  openClosed: async () => {
    const db = await openPgliteThread();
    const client = pgliteClient(db);
    await migrate(client, 'closed');
    await closePglite(db);
    return new PostgresSearchIndex(client, { schema: 'closed' });
  },
});
if (DATABASE_URL) describeSearchIndexContract('PostgreSQL server (DATABASE_URL)', serverFactory(DATABASE_URL));

// ---------------------------------------------------------------------------------------------------------------
// What is particular to the PostgreSQL adapter

const query = (q: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  q,
  jurisdictions: null,
  corpus: null,
  asOf: '2024-06-01',
  limit: 10,
  ...over,
});

describe('parseKeywords', () => {
  it('keeps quoted phrases apart and every other word as an ANDed word', () => {
    expect(parseKeywords('tenant "security deposit" or -landlord')).toEqual({
      words: 'tenant   or -landlord',
      phrases: ['security deposit'],
    });
  });

  it('reads an unterminated quote as plain words and drops empty phrases', () => {
    expect(parseKeywords('"" notice "of appeal')).toEqual({ words: 'notice  of appeal', phrases: [] });
  });
});

describe('chunkRows', () => {
  it('packs rows up to the byte bound, and an oversized row alone', () => {
    const rows = [{ t: 'a'.repeat(40) }, { t: 'b'.repeat(40) }, { t: 'c'.repeat(200) }, { t: 'd' }];

    const chunks = chunkRows(rows, 100, 10).map((c) => (JSON.parse(c) as { t: string }[]).map((r) => r.t[0]).join(''));

    expect(chunks).toEqual(['ab', 'c', 'd']);
  });

  it('respects the row bound', () => {
    expect(chunkRows([1, 2, 3, 4, 5], 1_000, 2)).toEqual(['[1,2]', '[3,4]', '[5]']);
  });
});

/** The adapter's own behaviour, on PGlite and (when DATABASE_URL is set) on a server. */
function describePostgresSpecifics(
  name: string,
  connect: () => Promise<{ client: SqlClient; extraClient(): SqlClient; done(): Promise<void> }>,
) {
  describe(`PostgresSearchIndex specifics: ${name}`, () => {
    let env: Awaited<ReturnType<typeof connect>>;
    const schemas: string[] = [];
    const fixture = async () => {
      env ??= await connect();
      const f = await schemaFixture(env.client, 'specifics');
      schemas.push(f.schema);
      return f;
    };
    afterAll(async () => {
      if (!env) return;
      for (const schema of schemas) await env.client.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await env.done();
    });

    it('migrates once: a second run applies nothing and the table has its indexes', async () => {
      const { schema } = await fixture();

      expect(await migrate(env.client, schema)).toEqual([]);
      expect(await appliedVersions(env.client, schema)).toEqual([1, 2]);
      const { rows } = await env.client.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'search_documents' ORDER BY indexname`,
        [schema],
      );
      expect(rows.map((r) => r.indexname)).toEqual(['search_documents_pkey', 'search_documents_scope', 'search_documents_valid_tsv']);
      expect(rows[2]!.indexdef).toMatch(/USING gin \(valid_from_date, valid_to_date, tsv\)/);
    });

    it('refresh() gathers the planner statistics an embedded PostgreSQL never gathers by itself', async () => {
      const { schema, index } = await fixture();
      await index.upsert(loadSampleDocuments().slice(0, 40));
      const statistics = async () =>
        (
          await env.client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = $1 AND tablename = 'search_documents'`,
            [schema],
          )
        ).rows[0]!.n;
      const before = await statistics();

      await index.refresh();

      expect(before).toBe(0);
      expect(await statistics()).toBeGreaterThan(0);
    });

    it('migrates safely when several processes race', async () => {
      env ??= await connect();
      const schema = uniqueSchema('race');
      schemas.push(schema);
      const clients = [env.client, env.extraClient(), env.extraClient(), env.extraClient()];

      const results = await Promise.all(clients.map((c) => migrate(c, schema)));

      // Each version is applied exactly once, by whichever process got there first.
      expect(results.flat().sort()).toEqual([1, 2]);
      expect(await appliedVersions(env.client, schema)).toEqual([1, 2]);
      await Promise.all(clients.slice(1).map((c) => c.close()));
    });

    it('matches quoted phrases in order; `or` and `-` do not weaken AND', async () => {
      const { index } = await fixture();
      await index.upsert([
        searchDoc({ key: 'phrase', body: 'The security deposit shall be returned to the tenant.' }),
        searchDoc({ key: 'apart', body: 'A deposit of security is required of the tenant.' }),
      ]);

      expect((await index.search(query('"security deposit"'))).map((h) => h.citation.key)).toEqual(['phrase']);
      expect((await index.search(query('"deposit security"'))).map((h) => h.citation.key)).toEqual([]);
      expect((await index.search(query('tenant or landlord'))).map((h) => h.citation.key)).toEqual([]);
      expect((await index.search(query('-security tenant'))).map((h) => h.citation.key).sort()).toEqual(['apart', 'phrase']);
    });

    it('counts a repeated word once: the same hits, ranks and snippets as the word said once', async () => {
      const { index } = await fixture();
      await index.upsert(loadSampleDocuments());
      const hits = async (q: string) => (await index.search(query(q, { asOf: '2023-06-01' }))).map((h) => [h.citation.key, h.snippet]);

      const once = await hits('council');

      expect(once.length).toBeGreaterThan(1);
      expect(await hits('council Council councils council')).toEqual(once);
      expect(await hits(Array(32).fill('council').join(' '))).toEqual(once);
    });

    it("stems as the 'english' configuration does: strangled and strangulation are different words", async () => {
      const { index } = await fixture();
      await index.upsert([searchDoc({ key: 'noun', body: 'Strangulation is a felony.' })]);

      expect(await index.search(query('strangled'))).toEqual([]);
      expect((await index.search(query('strangulations'))).map((h) => h.citation.key)).toEqual(['noun']);
    });

    it('stores 150 KB bodies over several statements and highlights a match near their end', async () => {
      const { schema } = await fixture();
      const real = loadSampleDocuments().find((d) => d.citation.key === '28-3814')!.bodyText;
      const body = `${real} ${real} ${real} ${real}`.slice(0, 150_000);
      const docs = Array.from({ length: 12 }, (_, i) =>
        searchDoc({ key: `big-${String(i).padStart(2, '0')}`, body: `${body} zygote${i}` }),
      );
      const small = new PostgresSearchIndex(env.client, { schema, maxStatementBytes: 400_000 });

      await small.upsert(docs);
      await small.upsert(docs);

      expect(await small.count()).toBe(12);
      const [hit] = await small.search(query('zygote7'));
      expect(hit?.citation.key).toBe('big-07');
      expect(hit?.snippet).toContain('<b>zygote7</b>');
    });

    it('finds the snippet of a long body after words that only look like the term', async () => {
      const { index } = await fixture();
      const filler = 'The Council shall publish the annual report of the Office. '.repeat(60);
      await index.upsert([
        // "citizens" begins like the stem of "city" (citi → cit) but is another word: the window misses, the body is read.
        searchDoc({ key: 'deep', body: `All citizens may apply. ${filler} The city shall maintain the register.` }),
        // Matched on the catchline only: the snippet is the body's first words.
        searchDoc({ key: 'title', catchline: 'City register.', body: filler }),
      ]);

      const hits = await index.search(query('city'));

      expect(hits.map((h) => h.citation.key)).toEqual(['title', 'deep']);
      expect(hits[1]!.snippet).toContain('The <b>city</b> shall maintain the register');
      expect(hits[0]!.snippet).toMatch(/^The Council shall publish/);
      expect(hits[0]!.snippet).not.toContain('<b>');
    });

    it('reports a bad statement as itself, not as an unavailable store', async () => {
      env ??= await connect();

      const failure = await env.client.query('SELEC 1').catch((e: unknown) => e);

      expect(failure).not.toBeInstanceOf(StoreUnavailableError);
      expect((failure as { code?: string }).code).toBe('42601');
    });

    it('answers on the sample corpus fast enough: ts_headline runs only for the returned rows', async () => {
      const { index } = await fixture();
      await index.upsert(loadSampleDocuments());
      const queries = [
        'district',
        'council',
        'strangulation',
        'debt collector',
        'united states code',
        'mayor',
        'vessel',
        'public record exemption',
        'budget',
        'person',
      ];
      for (const q of queries) await index.search(query(q, { asOf: '2023-06-01' }));

      const times: number[] = [];
      for (let round = 0; round < 5; round++) {
        for (const q of queries) {
          const start = performance.now();
          await index.search(query(q, { asOf: '2023-06-01', limit: 10 }));
          times.push(performance.now() - start);
        }
      }
      times.sort((a, b) => a - b);
      const p50 = times[Math.floor(times.length / 2)]!;

      console.info(`${name}: ${await index.count()} documents, search p50 ${p50.toFixed(2)} ms, max ${times.at(-1)!.toFixed(2)} ms`);
      expect(p50).toBeLessThan(50);
    });
  });
}

describePostgresSpecifics('PGlite', async () => {
  const db = await sharedPglite();
  // PGlite has one connection: "other processes" are other clients queued on the same instance.
  return { client: pgliteClient(db), extraClient: () => pgliteClient(db), done: async () => undefined };
});

if (DATABASE_URL) {
  describePostgresSpecifics('server', async () => {
    const client = connectPostgres(DATABASE_URL);
    return { client, extraClient: () => connectPostgres(DATABASE_URL, { max: 1 }), done: () => client.close() };
  });
}

describe('SqlClient failures', () => {
  it('maps a refused connection to StoreUnavailableError', async () => {
    // Port 1 on the loopback: nothing listens there, so the connect is refused at once (no server needed).
    const client = connectPostgres('postgres://postgres@127.0.0.1:1/test', { connectionTimeoutMillis: 2_000 });

    await expect(client.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await client.close();
  });

  it('refuses calls after close()', async () => {
    const client = pgliteClient(await sharedPglite());
    await client.close();

    await expect(client.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it.runIf(DATABASE_URL)('maps a statement timeout and a terminated connection to StoreUnavailableError', async () => {
    const slow = connectPostgres(DATABASE_URL!, { statementTimeoutMillis: 100, max: 1 });
    const killer = connectPostgres(DATABASE_URL!, { max: 1 });
    try {
      await expect(slow.query('SELECT pg_sleep(1)')).rejects.toBeInstanceOf(StoreUnavailableError);

      const victim = connectPostgres(DATABASE_URL!, { max: 1 });
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const sleeping = victim.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200));
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      expect(await sleeping).toBeInstanceOf(StoreUnavailableError);
      await victim.close();
    } finally {
      await slow.close();
      await killer.close();
    }
  });
});
