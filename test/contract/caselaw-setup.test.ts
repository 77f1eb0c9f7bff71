/**
 * The setup job's SQL (functions/stores/postgres/caselaw-setup.ts) on PGlite and, when DATABASE_URL is set, on the
 * PostgreSQL server. Roles are cluster-wide, so each test works with names of its own: its database, its API role and
 * its stand-in for Aurora's built-in `rds_iam` role (created by the test, as Aurora has it from the start).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AdminConnect,
  type CaseLawAccess,
  MAINTENANCE_DATABASE,
  readAccess,
  setUpCaseLawDatabase,
} from '#stores/postgres/caselaw-setup.ts';
import { appliedVersions } from '#stores/postgres/migrations.ts';
import type { SqlClient } from '#stores/postgres/sql-client.ts';
import { type Cluster, type MadeNames, pgliteCluster, serverCluster } from '../support/admin-clusters.ts';

const DATABASE_URL = process.env.DATABASE_URL;

function describeCaseLawSetup(name: string, open: (made: MadeNames) => Promise<Cluster>) {
  describe(`case-law setup: ${name}`, () => {
    const made: MadeNames = { databases: new Set(), roles: new Set() };
    let cluster: Promise<Cluster> | undefined;
    const connect: AdminConnect = async (database) => {
      cluster ??= open(made);
      return (await cluster).connect(database);
    };
    afterAll(async () => {
      if (cluster) await (await cluster).dispose();
    });

    /** Names of a test's own, and Aurora's IAM role stand-in unless `iamRole: false`. */
    async function prepare(options: { iamRole?: boolean } = {}): Promise<Required<CaseLawAccess>> {
      const tag = randomBytes(4).toString('hex');
      const access = { database: `asof_setup_${tag}`, user: `asof_api_${tag}`, iamRole: `rds_iam_${tag}`, schema: 'caselaw' };
      made.databases.add(access.database);
      made.roles.add(access.user).add(access.iamRole);
      if (options.iamRole !== false) await query(MAINTENANCE_DATABASE, (c) => c.exec(`CREATE ROLE "${access.iamRole}" NOLOGIN`));
      return access;
    }

    async function query<T>(database: string, run: (c: SqlClient) => Promise<T>): Promise<T> {
      const c = await connect(database);
      try {
        return await run(c);
      } finally {
        await c.close();
      }
    }

    const privileges = (a: CaseLawAccess, table: string) =>
      query(a.database, async (c) => {
        const kinds = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];
        const { rows } = await c.query<Record<string, boolean>>(
          `SELECT ${kinds.map((k) => `has_table_privilege($1, $2, '${k}') AS "${k}"`).join(', ')}`,
          [a.user, `caselaw.${table}`],
        );
        return kinds.filter((k) => rows[0]![k]);
      });

    const roleState = (a: CaseLawAccess) =>
      query(MAINTENANCE_DATABASE, async (c) => {
        const { rows } = await c.query<{ login: boolean; createdb: boolean; password: boolean; member: boolean }>(
          `SELECT a.rolcanlogin AS login, a.rolcreatedb AS createdb, a.rolpassword IS NOT NULL AS password,
                  pg_has_role(a.rolname, $2, 'MEMBER') AS member
             FROM pg_catalog.pg_authid a WHERE a.rolname = $1`,
          [a.user, a.iamRole],
        );
        return rows[0] ?? null;
      });

    /** Everything a run could touch, for comparing two runs. */
    const snapshot = (a: CaseLawAccess) =>
      query(a.database, async (c) => ({ access: await readAccess(c, a), migrations: await appliedVersions(c, 'caselaw', 'caselaw') }));

    it('creates the database, the API role (IAM login, no password), the replica tables and exactly the API privileges', async () => {
      // Prepare
      const access = await prepare();
      // Act
      const report = await setUpCaseLawDatabase(connect, access);
      // Assess
      expect(report.databaseCreated).toBe(true);
      expect(report.migrationsApplied).toEqual([1]);
      expect(report.changes.some((c) => c.startsWith(`role ${access.user}: absent → LOGIN`))).toBe(true);
      expect(await roleState(access)).toEqual({ login: true, createdb: false, password: false, member: true });
      for (const table of [
        'search_citation',
        'search_opinioncluster',
        'search_opinionscited',
        'search_court',
        'search_docket',
        'search_opinion',
        'replica_meta',
      ]) {
        expect(await privileges(access, table), table).toEqual(['SELECT', 'INSERT', 'UPDATE']);
      }
      expect(await privileges(access, 'schema_migrations')).toEqual([]);
      const acl = await query(access.database, async (c) => {
        const { rows } = await c.query<{ connect: boolean; create: boolean; usage: boolean; schemaCreate: boolean }>(
          `SELECT has_database_privilege($1, $2, 'CONNECT') AS connect, has_database_privilege($1, $2, 'CREATE') AS create,
                  has_schema_privilege($1, 'caselaw', 'USAGE') AS usage, has_schema_privilege($1, 'caselaw', 'CREATE') AS "schemaCreate"`,
          [access.user, access.database],
        );
        return rows[0];
      });
      expect(acl).toEqual({ connect: true, create: false, usage: true, schemaCreate: false });
      // PUBLIC (every other role) may no longer connect: no ACL item without a grantee.
      const state = await snapshot(access);
      expect(state.access[`database ${access.database}`]!.split(' ').some((item) => item.startsWith('='))).toBe(false);
    });

    it('changes nothing when run again', async () => {
      // Prepare
      const access = await prepare();
      await setUpCaseLawDatabase(connect, access);
      const before = await snapshot(access);
      // Act
      const report = await setUpCaseLawDatabase(connect, access);
      // Assess
      expect(report).toEqual({ databaseCreated: false, migrationsApplied: [], changes: [] });
      expect(await snapshot(access)).toEqual(before);
      expect(await roleState(access)).toEqual({ login: true, createdb: false, password: false, member: true });
    });

    it('brings an existing role with a password, other attributes and hand-made privileges back to the wanted state', async () => {
      // Prepare: the role exists with another password and may not log in; after a first run someone grants it more.
      const access = await prepare();
      await query(MAINTENANCE_DATABASE, (c) => c.exec(`CREATE ROLE "${access.user}" NOLOGIN CREATEDB PASSWORD 'another-password'`));
      expect(await roleState(access)).toEqual({ login: false, createdb: true, password: true, member: false });
      const first = await setUpCaseLawDatabase(connect, access);
      await query(access.database, (c) =>
        c.exec(`GRANT DELETE, TRUNCATE ON caselaw.search_citation TO "${access.user}"; GRANT CREATE ON SCHEMA caselaw TO "${access.user}"`),
      );
      // Act
      const second = await setUpCaseLawDatabase(connect, access);
      // Assess
      expect(first.changes).toEqual(
        expect.arrayContaining([
          `role ${access.user}: NOLOGIN CREATEDB NOCREATEROLE INHERIT → LOGIN NOCREATEDB NOCREATEROLE INHERIT`,
          `password of ${access.user}: set → none`,
          `${access.user} in ${access.iamRole}: not a member → member`,
        ]),
      );
      expect(await roleState(access)).toEqual({ login: true, createdb: false, password: false, member: true });
      expect(second.changes.map((c) => c.split(':')[0]).sort()).toEqual(['schema caselaw', 'table caselaw.search_citation']);
      expect(await privileges(access, 'search_citation')).toEqual(['SELECT', 'INSERT', 'UPDATE']);
    });

    it('leaves no half-made role when a step fails, and a rerun finishes the work', async () => {
      // Prepare: a cluster without the IAM role (not Aurora): granting it fails.
      const access = await prepare({ iamRole: false });
      // Act
      const failed = setUpCaseLawDatabase(connect, access);
      // Assess: refused, and the role step left nothing (it is one transaction); the completed steps stay.
      await expect(failed).rejects.toThrow(new RegExp(access.iamRole));
      expect(await roleState(access)).toBeNull();
      expect((await snapshot(access)).migrations).toEqual([1]);
      await query(MAINTENANCE_DATABASE, (c) => c.exec(`CREATE ROLE "${access.iamRole}" NOLOGIN`));
      const rerun = await setUpCaseLawDatabase(connect, access);
      expect(rerun.databaseCreated).toBe(false);
      expect(rerun.migrationsApplied).toEqual([]);
      expect(await roleState(access)).toEqual({ login: true, createdb: false, password: false, member: true });
      expect(await privileges(access, 'replica_meta')).toEqual(['SELECT', 'INSERT', 'UPDATE']);
    });

    it('refuses a name that is not a plain identifier before it touches anything', async () => {
      // Prepare
      const access = await prepare();
      // Act
      const refused = setUpCaseLawDatabase(connect, { ...access, user: 'asof_api"; DROP DATABASE postgres; --' });
      // Assess
      await expect(refused).rejects.toThrow(/Invalid role name/);
      const exists = await query(MAINTENANCE_DATABASE, (c) =>
        c.query('SELECT 1 FROM pg_catalog.pg_database WHERE datname = $1', [access.database]),
      );
      expect(exists.rows).toEqual([]);
    });
  });
}

describeCaseLawSetup('PGlite', () => pgliteCluster());
if (DATABASE_URL) describeCaseLawSetup('PostgreSQL server', async (made) => serverCluster(DATABASE_URL, made));
else describe('case-law setup: PostgreSQL server', () => it.skip('runs when DATABASE_URL is set', () => undefined));
