/**
 * Schema migrations on PostgreSQL (PGlite, Aurora): numbered, all-or-nothing changes recorded per component in the
 * schema's schema_migrations table, safe when several processes migrate at once. The case-law replica's migrations
 * (caselaw-store.ts) are the ones that run on them; identifiers spliced into SQL are checked here too.
 */
import type { SqlClient } from './sql-client.ts';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** A name (schema, role, database) safe to splice into SQL, quoted: a lowercase identifier, else an error naming `what`. */
export function quoteIdentifier(name: string, what = 'identifier'): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Invalid ${what} '${name}': use a lowercase SQL identifier.`);
  return `"${name}"`;
}

/** A schema name safe to splice into SQL (lowercase identifier), quoted. */
export const quoteSchema = (schema: string): string => quoteIdentifier(schema, 'schema name');

/** One schema change. `sql` gets the quoted schema and may hold several statements; it runs all-or-nothing. */
export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
}

const UNIQUE_VIOLATION = '23505';

/**
 * Serialises migrators of one schema on a server (a no-op cost on PGlite, which has one connection anyway).
 * Transaction-scoped, so it is released by the implicit transaction of the same `exec`, whatever happens.
 */
const lock = (schema: string): string => `SELECT pg_advisory_xact_lock(hashtext('asof.migrations.${schema}'));`;

/**
 * Brings `schema` up to the latest of `component`'s migrations; returns the versions this call applied. Idempotent,
 * and safe when several processes race: each migration runs as one all-or-nothing `exec` under an advisory lock and
 * first inserts its row in schema_migrations, so a process that lost the race fails on that row's key, rolls back,
 * and moves on.
 */
export async function migrate(client: SqlClient, schema: string, migrations: readonly Migration[], component: string): Promise<number[]> {
  const s = quoteSchema(schema);
  await client.exec(`
    ${lock(schema)}
    CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      component  text NOT NULL,
      version    integer NOT NULL,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version)
    );
  `);
  const done = new Set(await appliedVersions(client, schema, component));
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue;
    const name = m.name.replace(/'/g, "''");
    try {
      await client.exec(`
        ${lock(schema)}
        INSERT INTO ${s}.schema_migrations (component, version, name) VALUES ('${component.replace(/'/g, "''")}', ${m.version}, '${name}');
        ${m.sql(s)}
      `);
      applied.push(m.version);
    } catch (err) {
      // Another process applied it between our read and our lock: its row is there, our attempt rolled back.
      if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION) throw err;
      if (!(await appliedVersions(client, schema, component)).includes(m.version)) throw err;
    }
  }
  return applied;
}

/** Versions recorded in `schema` (empty when nothing was ever migrated there). */
export async function appliedVersions(client: SqlClient, schema: string, component: string): Promise<number[]> {
  const exists = await client.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    `${quoteSchema(schema)}.schema_migrations`,
  ]);
  if (!exists.rows[0]?.present) return [];
  const { rows } = await client.query<{ version: number }>(
    `SELECT version FROM ${quoteSchema(schema)}.schema_migrations WHERE component = $1 ORDER BY version`,
    [component],
  );
  return rows.map((r) => r.version);
}
