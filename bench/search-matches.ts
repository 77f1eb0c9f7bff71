import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_SEARCH_SCHEMA, TS_CONFIG } from '#stores/postgres/migrations.ts';
import { closePglite, openPglite } from '#stores/postgres/pglite.ts';
import { ftsQuery } from '#stores/sqlite/fts-query.ts';

/**
 * What a search has to rank: for each query, the versions holding every term, in force on a date. Read straight
 * from a stopped server's PGlite data dir (the search ranks every in-force match before it keeps `limit`), with the
 * planner's view of the table (PGlite runs no autovacuum: a table nobody ANALYZEd has no statistics).
 */

export interface SearchMatches {
  asOf: string;
  documents: number;
  queries: { q: string; matching: number; inForce: number }[];
  /** pg_class.reltuples: -1 when the table was never analyzed. */
  plannerRows: number;
  lastAnalyze: string | null;
}

export async function searchMatches(dataDir: string, queries: readonly string[], asOf: string): Promise<SearchMatches> {
  const sqlite = join(dataDir, 'search', 'search.sqlite');
  if (existsSync(sqlite)) return sqliteMatches(sqlite, queries, asOf);
  const pg = await openPglite(join(dataDir, 'postgres'));
  try {
    const table = `${DEFAULT_SEARCH_SCHEMA}.search_documents`;
    const total = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    const out: SearchMatches['queries'] = [];
    for (const q of queries) {
      const { rows } = await pg.query<{ matching: number; in_force: number }>(
        `SELECT count(*)::int AS matching,
                (count(*) FILTER (WHERE valid_from_date <= $2::date AND $2::date < valid_to_date))::int AS in_force
         FROM ${table} WHERE tsv @@ plainto_tsquery('${TS_CONFIG}', $1)`,
        [q, asOf],
      );
      out.push({ q, matching: rows[0]!.matching, inForce: rows[0]!.in_force });
    }
    const stats = await pg.query<{ reltuples: number; last_analyze: string | null }>(
      `SELECT c.reltuples::float8 AS reltuples, s.last_analyze::text AS last_analyze
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE n.nspname = $1 AND c.relname = 'search_documents'`,
      [DEFAULT_SEARCH_SCHEMA],
    );
    return {
      asOf,
      documents: total.rows[0]!.n,
      queries: out,
      plannerRows: stats.rows[0]?.reltuples ?? NaN,
      lastAnalyze: stats.rows[0]?.last_analyze ?? null,
    };
  } finally {
    await closePglite(pg);
  }
}

/** The same counts on the SQLite index (FTS5 has no planner statistics to report). */
function sqliteMatches(file: string, queries: readonly string[], asOf: string): SearchMatches {
  const db = new Database(file, { readonly: true });
  try {
    const day = Number(asOf.replaceAll('-', ''));
    const count = db.prepare(`
      SELECT count(*) AS matching, coalesce(sum(d.valid_from <= @day AND @day < d.valid_to), 0) AS inForce
      FROM search_fts JOIN search_docs d ON d.doc = search_fts.rowid WHERE search_fts MATCH @all`);
    const out = queries.map((q) => {
      const match = ftsQuery(q);
      const row = match ? (count.get({ all: match.all, day }) as { matching: number; inForce: number }) : { matching: 0, inForce: 0 };
      return { q, matching: row.matching, inForce: row.inForce };
    });
    const documents = (db.prepare('SELECT count(*) AS n FROM search_docs').get() as { n: number }).n;
    return { asOf, documents, queries: out, plannerRows: Number.NaN, lastAnalyze: null };
  } finally {
    db.close();
  }
}
