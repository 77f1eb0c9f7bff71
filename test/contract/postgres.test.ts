/**
 * The PostgreSQL plumbing the case-law replica runs on, on PGlite and (when DATABASE_URL is set) on a server: the
 * migrations (applied once, safe when several processes race) and how SqlClient reports failures.
 */
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '#shared/errors.ts';
import { migrateCaseLaw } from '#stores/postgres/caselaw-store.ts';
import { appliedVersions } from '#stores/postgres/migrations.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { connectPostgres, pgliteClient, type SqlClient } from '#stores/postgres/sql-client.ts';

const DATABASE_URL = process.env.DATABASE_URL;

/** One in-memory PGlite for the whole file (its start costs seconds), opened on first use. */
let shared: Promise<PGlite> | undefined;
const sharedPglite = (): Promise<PGlite> => (shared ??= openPglite());
afterAll(async () => {
  if (shared) await closePglite(await shared);
});

const uniqueSchema = (prefix: string): string => `${prefix}_${randomBytes(4).toString('hex')}`;

/** The migrations and the client on PGlite and (when DATABASE_URL is set) on a server. */
function describePostgres(name: string, connect: () => Promise<{ client: SqlClient; extraClient(): SqlClient; done(): Promise<void> }>) {
  describe(`PostgreSQL: ${name}`, () => {
    let env: Awaited<ReturnType<typeof connect>>;
    const schemas: string[] = [];
    const freshSchema = async (prefix: string) => {
      env ??= await connect();
      const schema = uniqueSchema(prefix);
      schemas.push(schema);
      return schema;
    };
    afterAll(async () => {
      if (!env) return;
      for (const schema of schemas) await env.client.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await env.done();
    });

    it('migrates once: a second run applies nothing, and the versions are recorded under their component', async () => {
      const schema = await freshSchema('once');

      expect(await migrateCaseLaw(env.client, schema)).toEqual([1]);
      expect(await migrateCaseLaw(env.client, schema)).toEqual([]);

      expect(await appliedVersions(env.client, schema, 'caselaw')).toEqual([1]);
      expect(await appliedVersions(env.client, schema, 'search')).toEqual([]);
      expect(await appliedVersions(env.client, uniqueSchema('never'), 'caselaw')).toEqual([]);
    });

    it('migrates safely when several processes race', async () => {
      const schema = await freshSchema('race');
      const clients = [env.client, env.extraClient(), env.extraClient(), env.extraClient()];

      const results = await Promise.all(clients.map((c) => migrateCaseLaw(c, schema)));

      // Each version is applied exactly once, by whichever process got there first.
      expect(results.flat()).toEqual([1]);
      expect(await appliedVersions(env.client, schema, 'caselaw')).toEqual([1]);
      await Promise.all(clients.slice(1).map((c) => c.close()));
    });

    it('reports a bad statement as itself, not as an unavailable store', async () => {
      env ??= await connect();

      const failure = await env.client.query('SELEC 1').catch((e: unknown) => e);

      expect(failure).not.toBeInstanceOf(StoreUnavailableError);
      expect((failure as { code?: string }).code).toBe('42601');
    });
  });
}

describePostgres('PGlite', async () => {
  const db = await sharedPglite();
  // PGlite has one connection: "other processes" are other clients queued on the same instance.
  return { client: pgliteClient(db), extraClient: () => pgliteClient(db), done: async () => undefined };
});

if (DATABASE_URL) {
  describePostgres('server', async () => {
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
