import type { SqlClient } from './sql-client.ts';

/** Default schema of the search tables. Tests pass their own so suites never see each other's rows. */
export const DEFAULT_SEARCH_SCHEMA = 'search';

/** The one text-search configuration of the index and of every query against it. */
export const TS_CONFIG = 'english';

/**
 * The body as the tsvector and ts_headline read it: `<` and `>` become control characters the parser treats as
 * blanks, so text that looks like a tag (`<script>`, `a<b and c>d`) is read as words instead of being dropped as a
 * tag. The search maps them back before escaping. Stored text never holds C0 characters (normalizeText strips them).
 */
export const BODY_FOR_PARSER = (column: string): string => `translate(${column}, '<>', E'\\x03\\x04')`;

/**
 * The part of a body ts_headline reads. ts_headline parses all the text it is given (a few MB/s in WASM: ~6 ms for
 * a 36 KB section), so a body longer than `size` characters is cut to a window of about `size` characters that
 * starts a few words before the first word beginning like a query lexeme (`pattern`: an alternation, see the
 * search), or at the start when there is none. Partial words at the cuts are dropped. Returned in the parser's form
 * (BODY_FOR_PARSER). Needs regexp_instr (PostgreSQL 15+).
 */
const HEADLINE_SOURCE = (s: string): string => String.raw`
      CREATE FUNCTION ${s}.headline_source(body text, pattern text, size integer) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
      DECLARE
        total integer := length(body);
        start integer := 1;
        piece text;
      BEGIN
        IF total <= size THEN
          piece := body;
        ELSE
          IF pattern <> '' THEN
            start := greatest(coalesce(nullif(regexp_instr(body, '\m(' || pattern || ')', 1, 1, 0, 'i'), 0), 1) - 40, 1);
            start := greatest(least(start, total - size + 1), 1);
          END IF;
          piece := substr(body, start, size);
          IF start > 1 THEN piece := regexp_replace(piece, '^\S*\s+', ''); END IF;
          IF start + size <= total THEN piece := regexp_replace(piece, '\s+\S*$', ''); END IF;
        END IF;
        RETURN translate(piece, '<>', E'\x03\x04');
      END
      $fn$;`;

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

/** Migrations of the search index, in order. Never edit an applied one: append a new version. */
const SEARCH_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'search_documents',
    sql: (s) => `
      CREATE TABLE ${s}.search_documents (
        id              text PRIMARY KEY,
        jurisdiction    text NOT NULL,
        corpus          text NOT NULL,
        key             text NOT NULL,
        citation        jsonb NOT NULL,
        catchline       text NOT NULL,
        body            text NOT NULL,
        status          text NOT NULL,
        temporal_basis  text NOT NULL,
        version_label   text NOT NULL,
        provenance      jsonb NOT NULL,
        valid_from_date date NOT NULL,
        valid_to_date   date NOT NULL,
        catchline_tsv   tsvector GENERATED ALWAYS AS (to_tsvector('${TS_CONFIG}', ${BODY_FOR_PARSER('catchline')})) STORED,
        tsv             tsvector GENERATED ALWAYS AS (
                          setweight(to_tsvector('${TS_CONFIG}', ${BODY_FOR_PARSER('catchline')}), 'A') ||
                          setweight(to_tsvector('${TS_CONFIG}', ${BODY_FOR_PARSER('body')}), 'B')) STORED,
        CHECK (valid_from_date < valid_to_date)
      );
      CREATE INDEX search_documents_tsv ON ${s}.search_documents USING gin (tsv);
      CREATE INDEX search_documents_scope ON ${s}.search_documents (jurisdiction, corpus, valid_from_date);
      ${HEADLINE_SOURCE(s)}
    `,
  },
  {
    // The validity filter inside the text index: a broad query's rows outside the date are dropped by the index
    // instead of being fetched from the table first (at 90,000 versions, "notice of appeal" went from 210 to 110 ms).
    // btree_gin is a trusted extension, in PostgreSQL's contrib on every server and in PGlite; installed once per
    // database, so under a database-wide lock (the migration lock is per schema).
    version: 2,
    name: 'validity_in_text_index',
    sql: (s) => `
      SELECT pg_advisory_xact_lock(hashtext('asof.extensions'));
      CREATE EXTENSION IF NOT EXISTS btree_gin;
      CREATE INDEX search_documents_valid_tsv ON ${s}.search_documents USING gin (valid_from_date, valid_to_date, tsv);
      DROP INDEX ${s}.search_documents_tsv;
    `,
  },
];

const UNIQUE_VIOLATION = '23505';

/**
 * Serialises migrators of one schema on a server (a no-op cost on PGlite, which has one connection anyway).
 * Transaction-scoped, so it is released by the implicit transaction of the same `exec`, whatever happens.
 */
const lock = (schema: string): string => `SELECT pg_advisory_xact_lock(hashtext('asof.migrations.${schema}'));`;

/**
 * Brings `schema` up to the latest migration; returns the versions this call applied. Idempotent, and safe when
 * several processes race: each migration runs as one all-or-nothing `exec` under an advisory lock and first inserts
 * its row in schema_migrations, so a process that lost the race fails on that row's key, rolls back, and moves on.
 */
export async function migrate(
  client: SqlClient,
  schema: string = DEFAULT_SEARCH_SCHEMA,
  migrations: readonly Migration[] = SEARCH_MIGRATIONS,
  component = 'search',
): Promise<number[]> {
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
export async function appliedVersions(client: SqlClient, schema: string = DEFAULT_SEARCH_SCHEMA, component = 'search'): Promise<number[]> {
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
