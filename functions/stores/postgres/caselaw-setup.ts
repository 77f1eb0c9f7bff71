/**
 * The case-law database as the API needs it, brought about over the cluster's admin connection: the database, the
 * API's login role (IAM authentication only: RDS Proxy's end-to-end IAM authentication logs it in with a token, so it
 * has no password), the replica's migrations, and the API's privileges on the replica's tables.
 *
 * Idempotent: the statements declare the end state, and what a run changed is read from the catalog before and after,
 * so a second run reports no change, and makes none. Every step is all-or-nothing (CREATE DATABASE on its own, each
 * migration in its transaction, the role and its privileges in one), so a run that fails leaves a state the next run
 * completes.
 */
import { DEFAULT_CASELAW_SCHEMA, migrateCaseLaw } from './caselaw-store.ts';
import { quoteIdentifier } from './migrations.ts';
import type { SqlClient } from './sql-client.ts';

/** The role whose members log in with IAM tokens, built into RDS and Aurora PostgreSQL. */
export const RDS_IAM_ROLE = 'rds_iam';

/** The database an admin connection opens before the API's database exists. */
export const MAINTENANCE_DATABASE = 'postgres';

export interface CaseLawAccess {
  /** The API's database, e.g. `asof`. */
  database: string;
  /** The API's login role, e.g. `asof_api`. */
  user: string;
  /** Default: RDS_IAM_ROLE. */
  iamRole?: string;
  /** Default: the replica's schema, DEFAULT_CASELAW_SCHEMA. */
  schema?: string;
}

export interface CaseLawSetupReport {
  databaseCreated: boolean;
  migrationsApplied: number[];
  /** What the run changed in the role, its membership and the privileges, `what: before → after`; empty when nothing. */
  changes: string[];
}

/** Opens a connection as the cluster's admin user to one database; the caller closes it. */
export type AdminConnect = (database: string) => Promise<SqlClient>;

const DUPLICATE_DATABASE = '42P04';

/** Creates `database` unless it exists; true when this call created it. */
async function ensureDatabase(maintenance: SqlClient, database: string): Promise<boolean> {
  const name = quoteIdentifier(database, 'database name');
  const { rows } = await maintenance.query('SELECT 1 FROM pg_catalog.pg_database WHERE datname = $1', [database]);
  if (rows.length) return false;
  try {
    // Alone in its message, CREATE DATABASE is not inside a transaction (it may not be) and is atomic by itself.
    await maintenance.exec(`CREATE DATABASE ${name}`);
    return true;
  } catch (err) {
    // A concurrent run created it between the look and the create.
    if ((err as { code?: unknown }).code === DUPLICATE_DATABASE) return false;
    throw err;
  }
}

const settled = (access: CaseLawAccess): Required<CaseLawAccess> => ({ iamRole: RDS_IAM_ROLE, schema: DEFAULT_CASELAW_SCHEMA, ...access });

/**
 * The API role and its privileges, as one transaction (one simple-protocol message): it logs in, has no password,
 * creates nothing, is a member of the IAM role; it alone (not PUBLIC) may connect to the database; on the replica's
 * schema it may read, insert and update (the fallback's backfill upserts), never delete, truncate or alter, and it
 * does not see the migrations' bookkeeping. Privileges granted by hand beyond these are revoked.
 */
function accessStatements(access: CaseLawAccess): string {
  const a = settled(access);
  const user = quoteIdentifier(a.user, 'role name');
  const iam = quoteIdentifier(a.iamRole, 'role name');
  const db = quoteIdentifier(a.database, 'database name');
  const s = quoteIdentifier(a.schema, 'schema name');
  // `a.user` is a checked lowercase identifier, so it is also a safe string literal.
  return `
    DO $do$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '${a.user}') THEN CREATE ROLE ${user}; END IF;
    END $do$;
    ALTER ROLE ${user} WITH LOGIN NOCREATEDB NOCREATEROLE INHERIT PASSWORD NULL;
    GRANT ${iam} TO ${user};
    REVOKE ALL ON DATABASE ${db} FROM PUBLIC;
    GRANT CONNECT ON DATABASE ${db} TO ${user};
    REVOKE ALL ON SCHEMA ${s} FROM ${user};
    GRANT USAGE ON SCHEMA ${s} TO ${user};
    REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${user};
    GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA ${s} TO ${user};
    REVOKE ALL ON ${s}.schema_migrations FROM ${user};
  `;
}

/** An ACL as sorted text (grant order is not meaningful); the built-in default when none was ever set. */
const aclText = (column: string, kind: string, owner: string) =>
  `array_to_string(array(SELECT item::text FROM unnest(coalesce(${column}, acldefault('${kind}', ${owner}))) AS item ORDER BY 1), ' ')`;

/**
 * What the setup governs, as `what → value` read from the catalog: the role's attributes and password (where the
 * connection may read pg_authid: a superuser's can, Aurora's admin cannot), its membership of the IAM role, and the
 * ACLs of the database, the schema and each table.
 */
export async function readAccess(db: SqlClient, access: CaseLawAccess): Promise<Record<string, string>> {
  const a = settled(access);
  const state: Record<string, string> = {};
  const role = await db.query<{ login: boolean; createdb: boolean; createrole: boolean; inherit: boolean }>(
    `SELECT rolcanlogin AS login, rolcreatedb AS createdb, rolcreaterole AS createrole, rolinherit AS inherit
       FROM pg_catalog.pg_roles WHERE rolname = $1`,
    [a.user],
  );
  const r = role.rows[0];
  state[`role ${a.user}`] = r
    ? [
        r.login ? 'LOGIN' : 'NOLOGIN',
        r.createdb ? 'CREATEDB' : 'NOCREATEDB',
        r.createrole ? 'CREATEROLE' : 'NOCREATEROLE',
        r.inherit ? 'INHERIT' : 'NOINHERIT',
      ].join(' ')
    : 'absent';
  const readable = await db.query<{ readable: boolean }>(`SELECT has_table_privilege('pg_catalog.pg_authid', 'SELECT') AS readable`);
  if (readable.rows[0]?.readable) {
    const pw = await db.query<{ has: boolean }>('SELECT rolpassword IS NOT NULL AS has FROM pg_catalog.pg_authid WHERE rolname = $1', [
      a.user,
    ]);
    state[`password of ${a.user}`] = pw.rows[0] ? (pw.rows[0].has ? 'set' : 'none') : 'absent';
  }
  const member = await db.query<{ member: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members m
                      JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
                      JOIN pg_catalog.pg_roles u ON u.oid = m.member
                     WHERE g.rolname = $2 AND u.rolname = $1) AS member`,
    [a.user, a.iamRole],
  );
  state[`${a.user} in ${a.iamRole}`] = member.rows[0]?.member ? 'member' : 'not a member';
  const dbAcl = await db.query<{ acl: string }>(
    `SELECT ${aclText('datacl', 'd', 'datdba')} AS acl FROM pg_catalog.pg_database WHERE datname = $1`,
    [a.database],
  );
  state[`database ${a.database}`] = dbAcl.rows[0]?.acl ?? 'absent';
  const schemaAcl = await db.query<{ acl: string }>(
    `SELECT ${aclText('nspacl', 'n', 'nspowner')} AS acl FROM pg_catalog.pg_namespace WHERE nspname = $1`,
    [a.schema],
  );
  state[`schema ${a.schema}`] = schemaAcl.rows[0]?.acl ?? 'absent';
  const tables = await db.query<{ name: string; acl: string }>(
    `SELECT c.relname AS name, ${aclText('c.relacl', 'r', 'c.relowner')} AS acl
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
      ORDER BY c.relname`,
    [a.schema],
  );
  for (const t of tables.rows) state[`table ${a.schema}.${t.name}`] = t.acl;
  return state;
}

/** The entries that differ, as `what: before → after`. */
function changesBetween(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((k) => before[k] !== after[k]).map((k) => `${k}: ${before[k] ?? 'absent'} → ${after[k] ?? 'absent'}`);
}

/**
 * Brings the cluster to what the API needs: the database (created from the maintenance database), then, inside it,
 * the replica's migrations and the API role with its privileges. Names are checked before anything runs.
 */
export async function setUpCaseLawDatabase(connect: AdminConnect, access: CaseLawAccess): Promise<CaseLawSetupReport> {
  const a = settled(access);
  const statements = accessStatements(a);
  const maintenance = await connect(MAINTENANCE_DATABASE);
  let databaseCreated: boolean;
  try {
    databaseCreated = await ensureDatabase(maintenance, a.database);
  } finally {
    await maintenance.close();
  }
  const db = await connect(a.database);
  try {
    const before = await readAccess(db, a);
    const migrationsApplied = await migrateCaseLaw(db, a.schema);
    await db.exec(statements);
    return { databaseCreated, migrationsApplied, changes: changesBetween(before, await readAccess(db, a)) };
  } finally {
    await db.close();
  }
}
