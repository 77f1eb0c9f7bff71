/**
 * The case-law replica on PostgreSQL (Aurora, a server, or PGlite): CourtListener's bulk-data tables under their own
 * names, with the columns the API reads. Foreign keys are left out on purpose: a replica holds part of CourtListener,
 * so an opinion cites opinions the replica may not hold, and bulk files arrive table by table.
 */
import type { CaseLawStore, CitationRow, CitedByCursor, CitingCase, ClusterRecord, ReplicaBatch } from '#caselaw/ports.ts';
import { formKey } from '#caselaw/ports.ts';
import { type Migration, migrate, quoteSchema } from './migrations.ts';
import type { SqlClient } from './sql-client.ts';

export const DEFAULT_CASELAW_SCHEMA = 'caselaw';

const CASELAW_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'courtlistener_tables',
    sql: (s) => `
      CREATE TABLE ${s}.search_court (
        id              text PRIMARY KEY,
        full_name       text NOT NULL,
        short_name      text NOT NULL,
        citation_string text NOT NULL DEFAULT '',
        jurisdiction    text NOT NULL DEFAULT '',
        position        double precision,
        start_date      date,
        end_date        date,
        in_use          boolean NOT NULL DEFAULT true,
        url             text NOT NULL DEFAULT ''
      );
      CREATE TABLE ${s}.search_docket (
        id            bigint PRIMARY KEY,
        court_id      text,
        case_name     text NOT NULL DEFAULT '',
        docket_number text NOT NULL DEFAULT '',
        slug          text NOT NULL DEFAULT ''
      );
      CREATE TABLE ${s}.search_opinioncluster (
        id                  bigint PRIMARY KEY,
        docket_id           bigint,
        court_id            text,
        case_name           text NOT NULL DEFAULT '',
        case_name_full      text NOT NULL DEFAULT '',
        case_name_short     text NOT NULL DEFAULT '',
        date_filed          date,
        slug                text NOT NULL DEFAULT '',
        precedential_status text NOT NULL DEFAULT '',
        citation_count      integer NOT NULL DEFAULT 0,
        judges              text NOT NULL DEFAULT ''
      );
      CREATE INDEX search_opinioncluster_cited ON ${s}.search_opinioncluster (citation_count DESC, id);
      CREATE TABLE ${s}.search_citation (
        cluster_id bigint NOT NULL,
        volume     text NOT NULL,
        reporter   text NOT NULL,
        page       text NOT NULL,
        type       smallint NOT NULL,
        PRIMARY KEY (cluster_id, volume, reporter, page)
      );
      CREATE INDEX search_citation_form ON ${s}.search_citation (reporter, volume, page);
      CREATE TABLE ${s}.search_opinion (
        id           bigint PRIMARY KEY,
        cluster_id   bigint NOT NULL,
        type         text NOT NULL DEFAULT '',
        author_str   text NOT NULL DEFAULT '',
        download_url text NOT NULL DEFAULT ''
      );
      CREATE INDEX search_opinion_cluster ON ${s}.search_opinion (cluster_id);
      CREATE TABLE ${s}.search_opinionscited (
        citing_opinion_id bigint NOT NULL,
        cited_opinion_id  bigint NOT NULL,
        depth             integer NOT NULL DEFAULT 1,
        PRIMARY KEY (citing_opinion_id, cited_opinion_id)
      );
      CREATE INDEX search_opinionscited_cited ON ${s}.search_opinionscited (cited_opinion_id);
      CREATE TABLE ${s}.replica_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
];

export async function migrateCaseLaw(client: SqlClient, schema = DEFAULT_CASELAW_SCHEMA): Promise<number[]> {
  return migrate(client, schema, CASELAW_MIGRATIONS, 'caselaw');
}

const CHUNK = 500;
/** The reads answer requests (cases, cited-by, citation lookups); writes keep the default job budget. */
const READ = { budget: 'request' } as const;

interface ClusterSqlRow {
  id: string;
  docket_id: string | null;
  court_id: string | null;
  case_name: string;
  case_name_full: string;
  case_name_short: string;
  date_filed: string | null;
  slug: string;
  precedential_status: string;
  citation_count: number;
  judges: string;
  court_citation_string: string | null;
  citations: CitationRow[] | null;
}

/** One row per primary key, the last given winning: a statement may not upsert the same row twice. */
function unique<T>(rows: readonly T[] | undefined, key: (row: T) => string | number): T[] {
  return [...new Map((rows ?? []).map((r) => [key(r), r])).values()];
}

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

export class PostgresCaseLawStore implements CaseLawStore {
  private readonly s: string;

  constructor(
    private readonly sql: SqlClient,
    schema = DEFAULT_CASELAW_SCHEMA,
  ) {
    this.s = quoteSchema(schema);
  }

  async clustersByCitation(forms: ReadonlyArray<{ volume: string; reporter: string; page: string }>): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    for (const part of chunks(forms)) {
      const { rows } = await this.sql.query<{ volume: string; reporter: string; page: string; cluster_id: string }>(
        `SELECT c.volume, c.reporter, c.page, c.cluster_id
           FROM ${this.s}.search_citation c
           JOIN unnest($1::text[], $2::text[], $3::text[]) AS f(volume, reporter, page)
             ON c.reporter = f.reporter AND c.volume = f.volume AND c.page = f.page
          ORDER BY c.cluster_id`,
        [part.map((f) => f.volume), part.map((f) => f.reporter), part.map((f) => f.page)],
        READ,
      );
      for (const r of rows) {
        const key = formKey(r);
        out.set(key, [...(out.get(key) ?? []), Number(r.cluster_id)]);
      }
    }
    return out;
  }

  private clusterSelect(where: string): string {
    return `
      SELECT oc.id, oc.docket_id, coalesce(oc.court_id, d.court_id) AS court_id, oc.case_name, oc.case_name_full,
             oc.case_name_short, to_char(oc.date_filed, 'YYYY-MM-DD') AS date_filed, oc.slug, oc.precedential_status,
             oc.citation_count, oc.judges, ct.citation_string AS court_citation_string,
             (SELECT json_agg(json_build_object('volume', c.volume, 'reporter', c.reporter, 'page', c.page, 'type', c.type)
                              ORDER BY c.type, c.reporter, c.volume, c.page)
                FROM ${this.s}.search_citation c WHERE c.cluster_id = oc.id) AS citations
        FROM ${this.s}.search_opinioncluster oc
        LEFT JOIN ${this.s}.search_docket d ON d.id = oc.docket_id
        LEFT JOIN ${this.s}.search_court ct ON ct.id = coalesce(oc.court_id, d.court_id)
       ${where}`;
  }

  private static record(r: ClusterSqlRow): ClusterRecord {
    return {
      id: Number(r.id),
      docketId: r.docket_id === null ? null : Number(r.docket_id),
      courtId: r.court_id,
      caseName: r.case_name,
      caseNameFull: r.case_name_full,
      caseNameShort: r.case_name_short,
      dateFiled: r.date_filed,
      slug: r.slug,
      precedentialStatus: r.precedential_status,
      citationCount: r.citation_count,
      judges: r.judges,
      courtCitationString: r.court_citation_string ?? '',
      citations: r.citations ?? [],
    };
  }

  async clusters(ids: readonly number[]): Promise<ClusterRecord[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.sql.query<ClusterSqlRow>(
      `${this.clusterSelect('WHERE oc.id = ANY($1::bigint[])')} ORDER BY oc.id`,
      [ids],
      READ,
    );
    return rows.map(PostgresCaseLawStore.record);
  }

  async citedByCount(id: number): Promise<number> {
    const { rows } = await this.sql.query<{ n: string }>(
      `SELECT count(DISTINCT citing.cluster_id) AS n
         FROM ${this.s}.search_opinion cited
         JOIN ${this.s}.search_opinionscited oc ON oc.cited_opinion_id = cited.id
         JOIN ${this.s}.search_opinion citing ON citing.id = oc.citing_opinion_id
        WHERE cited.cluster_id = $1 AND citing.cluster_id <> $1`,
      [id],
      READ,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async citedBy(id: number, limit: number, after: CitedByCursor | null): Promise<CitingCase[]> {
    const { rows } = await this.sql.query<ClusterSqlRow & { depth: string }>(
      `WITH citing AS (
         SELECT citing.cluster_id, sum(oc.depth) AS depth
           FROM ${this.s}.search_opinion cited
           JOIN ${this.s}.search_opinionscited oc ON oc.cited_opinion_id = cited.id
           JOIN ${this.s}.search_opinion citing ON citing.id = oc.citing_opinion_id
          WHERE cited.cluster_id = $1 AND citing.cluster_id <> $1
          GROUP BY citing.cluster_id)
       SELECT q.*, citing.depth FROM (${this.clusterSelect('')}) q
         JOIN citing ON citing.cluster_id = q.id
        WHERE $3::integer IS NULL OR q.citation_count < $3 OR (q.citation_count = $3 AND q.id > $4)
        ORDER BY q.citation_count DESC, q.id
        LIMIT $2`,
      [id, limit, after?.citationCount ?? null, after?.id ?? 0],
      READ,
    );
    return rows.map((r) => ({ cluster: PostgresCaseLawStore.record(r), depth: Number(r.depth) }));
  }

  async courts(): Promise<Array<{ id: string; citationString: string }>> {
    const { rows } = await this.sql.query<{ id: string; citation_string: string }>(
      `SELECT id, citation_string FROM ${this.s}.search_court WHERE citation_string <> ''`,
      [],
      READ,
    );
    return rows.map((r) => ({ id: r.id, citationString: r.citation_string }));
  }

  async dataAsOf(): Promise<string | null> {
    const { rows } = await this.sql.query<{ value: string }>(`SELECT value FROM ${this.s}.replica_meta WHERE key = 'dataAsOf'`, [], READ);
    return rows[0]?.value ?? null;
  }

  async setDataAsOf(date: string): Promise<void> {
    // The newest source wins; loading an older one never moves the date back.
    await this.sql.query(
      `INSERT INTO ${this.s}.replica_meta (key, value) VALUES ('dataAsOf', $1)
       ON CONFLICT (key) DO UPDATE SET value = greatest(${this.s}.replica_meta.value, excluded.value)`,
      [date],
    );
  }

  async write(batch: ReplicaBatch): Promise<void> {
    const s = this.s;
    for (const part of chunks(unique(batch.courts, (c) => c.id))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_court (id, full_name, short_name, citation_string, jurisdiction, position, start_date, end_date, in_use, url)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::date[], $8::date[], $9::bool[], $10::text[])
         ON CONFLICT (id) DO UPDATE SET full_name = excluded.full_name, short_name = excluded.short_name, citation_string = excluded.citation_string,
           jurisdiction = excluded.jurisdiction, position = excluded.position, start_date = excluded.start_date, end_date = excluded.end_date,
           in_use = excluded.in_use, url = excluded.url`,
        [
          part.map((c) => c.id),
          part.map((c) => c.fullName),
          part.map((c) => c.shortName),
          part.map((c) => c.citationString),
          part.map((c) => c.jurisdiction),
          part.map((c) => c.position),
          part.map((c) => c.startDate),
          part.map((c) => c.endDate),
          part.map((c) => c.inUse),
          part.map((c) => c.url),
        ],
      );
    }
    for (const part of chunks(unique(batch.dockets, (d) => d.id))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_docket (id, court_id, case_name, docket_number, slug)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
         ON CONFLICT (id) DO UPDATE SET court_id = excluded.court_id, case_name = excluded.case_name, docket_number = excluded.docket_number, slug = excluded.slug`,
        [
          part.map((d) => d.id),
          part.map((d) => d.courtId),
          part.map((d) => d.caseName),
          part.map((d) => d.docketNumber),
          part.map((d) => d.slug),
        ],
      );
    }
    for (const part of chunks(unique(batch.clusters, (c) => c.id))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_opinioncluster (id, docket_id, court_id, case_name, case_name_full, case_name_short, date_filed, slug, precedential_status, citation_count, judges)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::date[], $8::text[], $9::text[], $10::int[], $11::text[])
         ON CONFLICT (id) DO UPDATE SET docket_id = excluded.docket_id, court_id = excluded.court_id, case_name = excluded.case_name,
           case_name_full = excluded.case_name_full, case_name_short = excluded.case_name_short, date_filed = excluded.date_filed, slug = excluded.slug,
           precedential_status = excluded.precedential_status, citation_count = excluded.citation_count, judges = excluded.judges`,
        [
          part.map((c) => c.id),
          part.map((c) => c.docketId),
          part.map((c) => c.courtId),
          part.map((c) => c.caseName),
          part.map((c) => c.caseNameFull),
          part.map((c) => c.caseNameShort),
          part.map((c) => c.dateFiled),
          part.map((c) => c.slug),
          part.map((c) => c.precedentialStatus),
          part.map((c) => c.citationCount),
          part.map((c) => c.judges),
        ],
      );
    }
    for (const part of chunks(unique(batch.citations, (c) => `${c.clusterId} ${formKey(c)}`))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_citation (cluster_id, volume, reporter, page, type)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::smallint[])
         ON CONFLICT (cluster_id, volume, reporter, page) DO UPDATE SET type = excluded.type`,
        [
          part.map((c) => c.clusterId),
          part.map((c) => c.volume),
          part.map((c) => c.reporter),
          part.map((c) => c.page),
          part.map((c) => c.type),
        ],
      );
    }
    for (const part of chunks(unique(batch.opinions, (o) => o.id))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_opinion (id, cluster_id, type, author_str, download_url)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])
         ON CONFLICT (id) DO UPDATE SET cluster_id = excluded.cluster_id, type = excluded.type, author_str = excluded.author_str, download_url = excluded.download_url`,
        [
          part.map((o) => o.id),
          part.map((o) => o.clusterId),
          part.map((o) => o.type),
          part.map((o) => o.authorStr),
          part.map((o) => o.downloadUrl),
        ],
      );
    }
    for (const part of chunks(unique(batch.opinionsCited, (o) => `${o.citingOpinionId} ${o.citedOpinionId}`))) {
      await this.sql.query(
        `INSERT INTO ${s}.search_opinionscited (citing_opinion_id, cited_opinion_id, depth)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[])
         ON CONFLICT (citing_opinion_id, cited_opinion_id) DO UPDATE SET depth = excluded.depth`,
        [part.map((o) => o.citingOpinionId), part.map((o) => o.citedOpinionId), part.map((o) => o.depth)],
      );
    }
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1', [], { budget: 'probe' });
  }
}
