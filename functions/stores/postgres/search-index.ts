import { parseKeywords } from '#law/keywords.ts';
import type { Citation, Provenance, SectionStatus, TemporalBasis } from '#law/model.ts';
import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import { HIT_CLOSE, HIT_OPEN, renderSnippet } from '#law/snippet.ts';
import { localDateOf } from '#shared/dates.ts';
import { BODY_FOR_PARSER, DEFAULT_SEARCH_SCHEMA, quoteSchema, TS_CONFIG } from './migrations.ts';
import type { SqlClient } from './sql-client.ts';

export interface PostgresSearchIndexOptions {
  /** Schema holding search_documents (created by `migrate`). Default `search`. */
  schema?: string;
  /**
   * Upper bound on the JSON payload of one upsert statement. Rows are packed until the next would cross it (a row
   * larger than the bound goes alone). Default 1 MiB: a few 150 KB sections or hundreds of short ones per round trip.
   */
  maxStatementBytes?: number;
  /** At most this many rows per upsert statement. Default 500. */
  maxRowsPerStatement?: number;
}

/**
 * ts_headline options: up to two fragments of at most 30 words around the densest matches (MinWords when the body
 * has no match, e.g. a catchline-only hit: its first words). Markers are control characters, never HTML: the
 * excerpt is escaped afterwards by renderSnippet, so nothing from the body can become markup.
 */
const HEADLINE_OPTIONS = `StartSel=${HIT_OPEN}, StopSel=${HIT_CLOSE}, MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;

/** Characters of a long body that ts_headline reads first (see headline_source in migrations.ts). */
const HEADLINE_WINDOW = 800;

/**
 * SQL: how the words of tsquery `q` begin, as a regex alternation for finding them in a body. A lexeme of 4+
 * characters stands for the words it begins (most english stems are prefixes: strangulation → strangul), without a
 * final `i`, since the stemmer turns a final y into i (city → citi, policy → polici); a shorter one must be a whole
 * word, or it would lead to every word that starts with it. `'u.s.c' & 'citi' & 'o'` → `u\.s\.c|cit|o\M`.
 * The lexemes are the quoted items of the tsquery's text form, in which a quote inside a lexeme is doubled.
 */
const LEXEME_PATTERN = (q: string): string => String.raw`
  SELECT coalesce(string_agg(CASE WHEN length(lexeme) < 4 THEN escaped || '\M' ELSE regexp_replace(escaped, '(...)i$', '\1') END, '|'), '')
  FROM (SELECT lexeme, regexp_replace(lexeme, '([^[:alnum:]])', '\\\1', 'g') AS escaped
        FROM (SELECT replace(m[1], '''''', '''') AS lexeme FROM regexp_matches(${q}::text, '''((?:[^'']|'''')*)''', 'g') AS m) AS l) AS e`;

/**
 * SQL: the words of `text` as a tsquery that ANDs each distinct lexeme once. plainto_tsquery keeps repeats, and a
 * search costs about one pass over the matching rows per item of its query (ts_rank_cd, the recheck): `court` said
 * 64 times took 4.7 s on 300,000 versions where `court` once took 1.2 s. Lexemes are quoted for tsquery's input form
 * (a quote doubled, a backslash escaped); the cast does not stem them again. No word: an empty query, as
 * plainto_tsquery gives.
 */
const WORDS_QUERY = (text: string): string => String.raw`(
  SELECT coalesce(string_agg('''' || replace(replace(l, '', '\'), '''', '''''') || '''', ' & '), '')::tsquery
  FROM unnest(tsvector_to_array(to_tsvector('${TS_CONFIG}', ${text}))) AS l)`;

/** Ranking weights {D, C, B, A}: only A (catchline) and B (body) are used. */
const RANK_WEIGHTS = '{0.1, 0.2, 0.4, 1.0}';
/** ts_rank_cd normalization: 1 divides by 1 + log(length) so long sections don't win by size alone; 32 maps to [0, 1). */
const RANK_NORMALIZATION = 1 | 32;

export { parseKeywords };

interface HitRow {
  citation: Citation;
  catchline: string;
  status: SectionStatus;
  temporal_basis: TemporalBasis;
  version_label: string;
  provenance: Provenance;
  marked: string;
}

/** The row as stored; dates are the local calendar dates of validFrom / validTo (OPEN_END → 9999-12-31). */
interface DocumentRow {
  id: string;
  jurisdiction: string;
  corpus: string;
  key: string;
  citation: Citation;
  catchline: string;
  body: string;
  status: SectionStatus;
  temporal_basis: TemporalBasis;
  version_label: string;
  provenance: Provenance;
  valid_from_date: string;
  valid_to_date: string;
}

const toRow = (d: SearchDocument): DocumentRow => ({
  id: d.id,
  jurisdiction: d.citation.jurisdiction,
  corpus: d.citation.corpus,
  key: d.citation.key,
  citation: d.citation,
  catchline: d.catchline,
  body: d.bodyText,
  status: d.status,
  temporal_basis: d.temporalBasis,
  version_label: d.provenance.versionLabel,
  provenance: d.provenance,
  valid_from_date: localDateOf(d.validFrom),
  valid_to_date: localDateOf(d.validTo),
});

const COLUMNS = [
  'id',
  'jurisdiction',
  'corpus',
  'key',
  'citation',
  'catchline',
  'body',
  'status',
  'temporal_basis',
  'version_label',
  'provenance',
  'valid_from_date',
  'valid_to_date',
] as const;

const RECORD_TYPE = COLUMNS.map(
  (c) => `${c} ${c === 'citation' || c === 'provenance' ? 'jsonb' : c.endsWith('_date') ? 'date' : 'text'}`,
).join(', ');
const UPDATABLE = COLUMNS.filter((c) => c !== 'id');

/** Splits rows into statements of at most `maxBytes` of JSON and `maxRows` rows (an oversized row goes alone). */
export function chunkRows<T>(rows: readonly T[], maxBytes: number, maxRows: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    const size = Buffer.byteLength(json);
    if (current.length > 0 && (bytes + size > maxBytes || current.length >= maxRows)) {
      chunks.push(`[${current.join(',')}]`);
      current = [];
      bytes = 0;
    }
    current.push(json);
    bytes += size + 1;
  }
  if (current.length > 0) chunks.push(`[${current.join(',')}]`);
  return chunks;
}

/**
 * SearchIndex on PostgreSQL full-text search: PGlite locally, any PostgreSQL (Aurora) in production.
 *
 * One table, one row per version; a stored weighted tsvector (catchline A, body B) under a GIN index. A search is
 * one statement: the GIN index finds the versions holding every term, the validity / jurisdiction / corpus filters
 * cut them down, all survivors are ranked, and ts_headline runs only for the `limit` rows returned.
 */
export class PostgresSearchIndex implements SearchIndex {
  private readonly schema: string;
  private readonly table: string;
  private readonly maxStatementBytes: number;
  private readonly maxRowsPerStatement: number;

  constructor(
    private readonly client: SqlClient,
    options: PostgresSearchIndexOptions = {},
  ) {
    this.schema = quoteSchema(options.schema ?? DEFAULT_SEARCH_SCHEMA);
    this.table = `${this.schema}.search_documents`;
    this.maxStatementBytes = options.maxStatementBytes ?? 1024 * 1024;
    this.maxRowsPerStatement = options.maxRowsPerStatement ?? 500;
  }

  async upsert(docs: readonly SearchDocument[]): Promise<void> {
    // One statement may not touch a row twice (ON CONFLICT DO UPDATE): the last document with an id wins.
    const byId = new Map<string, DocumentRow>();
    for (const d of docs) {
      byId.delete(d.id);
      byId.set(d.id, toRow(d));
    }
    const sql = `
      INSERT INTO ${this.table} AS t (${COLUMNS.join(', ')})
      SELECT ${COLUMNS.join(', ')} FROM json_to_recordset($1::json) AS r(${RECORD_TYPE})
      ON CONFLICT (id) DO UPDATE SET ${UPDATABLE.map((c) => `${c} = excluded.${c}`).join(', ')}
      WHERE (${UPDATABLE.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${UPDATABLE.map((c) => `excluded.${c}`).join(', ')})`;
    for (const chunk of chunkRows([...byId.values()], this.maxStatementBytes, this.maxRowsPerStatement)) {
      await this.client.query(sql, [chunk]);
    }
  }

  async setValidTo(id: string, validTo: string): Promise<void> {
    await this.client.query(`UPDATE ${this.table} SET valid_to_date = $2::date WHERE id = $1 AND valid_to_date IS DISTINCT FROM $2::date`, [
      id,
      localDateOf(validTo),
    ]);
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 5_000) {
      await this.client.query(`DELETE FROM ${this.table} WHERE id = ANY($1::text[])`, [ids.slice(i, i + 5_000)]);
    }
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const { words, phrases } = parseKeywords(query.q);
    if (!/[\p{L}\p{N}]/u.test(words + phrases.join(''))) return [];
    if (query.limit < 1 || query.jurisdictions?.length === 0) return [];

    const params: unknown[] = [words, query.asOf, Math.floor(query.limit), HEADLINE_OPTIONS, HIT_OPEN];
    const param = (value: unknown): string => `$${params.push(value)}`;
    const tsquery = [WORDS_QUERY('$1'), ...phrases.map((p) => `phraseto_tsquery('${TS_CONFIG}', ${param(p)})`)].join(' && ');
    // The cheap column tests first: where the planner scans rows instead of the GIN index, a row out of scope is
    // dropped before its tsvector is read.
    const filters = [
      'd.valid_from_date <= $2::date',
      '$2::date < d.valid_to_date',
      ...(query.jurisdictions ? [`d.jurisdiction = ANY(${param(query.jurisdictions)}::text[])`] : []),
      ...(query.corpus ? [`d.corpus = ${param(query.corpus)}`] : []),
      'd.tsv @@ q.q',
    ];
    // Ties (equal scores) fall back to the citation, in byte order on every server, so results are reproducible.
    const order = (a: string, score: string) =>
      `${score} DESC, ${a}.jurisdiction COLLATE "C", ${a}.corpus COLLATE "C", ${a}.key COLLATE "C", ${a}.id COLLATE "C"`;

    // The query is built once (MATERIALIZED), and rows with an empty query (only stopwords) never reach the index.
    // Score: a catchline that matches the whole query puts the version ahead of every body-only match; within each
    // group, ts_rank_cd over the weighted vector (catchline terms weigh 1.0, body terms 0.4; denser covers rank higher).
    // Snippets: ts_headline for the `limit` rows only, on a window of a long body (headline_source). The whole body
    // is read only when the window holds no match although a word starts like a query lexeme (a false lead, e.g.
    // "citizens" for city → cit); no such word at all means the hit is on the catchline, and the window (the body's
    // first words) is the snippet. `b` fetches a long (TOASTed) body once, not at each use.
    const sql = `
      WITH q AS MATERIALIZED (
        SELECT x.q, (${LEXEME_PATTERN('x.q')}) AS pattern FROM (SELECT ${tsquery} AS q) x
      ),
      top AS (
        SELECT d.id, d.jurisdiction, d.corpus, d.key,
               (d.catchline_tsv @@ q.q)::int + ts_rank_cd('${RANK_WEIGHTS}', d.tsv, q.q, ${RANK_NORMALIZATION}) AS score
        FROM q JOIN ${this.table} d ON ${filters.join(' AND ')}
        WHERE numnode(q.q) > 0
        ORDER BY ${order('d', 'score')}
        LIMIT $3
      )
      SELECT d.citation, d.catchline, d.status, d.temporal_basis, d.version_label, d.provenance,
             CASE WHEN strpos(head.marked, $5) > 0 OR length(b.body) <= ${HEADLINE_WINDOW} THEN head.marked
                  WHEN q.pattern = '' OR b.body !~* ('\\m(' || q.pattern || ')') THEN head.marked
                  ELSE ts_headline('${TS_CONFIG}', ${BODY_FOR_PARSER('b.body')}, q.q, $4) END AS marked
      FROM top JOIN ${this.table} d ON d.id = top.id CROSS JOIN q
      CROSS JOIN LATERAL (SELECT d.body || '' AS body OFFSET 0) b
      CROSS JOIN LATERAL (
        SELECT ts_headline('${TS_CONFIG}', ${this.schema}.headline_source(b.body, q.pattern, ${HEADLINE_WINDOW}), q.q, $4) AS marked
        OFFSET 0
      ) head
      ORDER BY ${order('top', 'top.score')}`;

    const { rows } = await this.client.query<HitRow>(sql, params, { budget: 'request' });
    return rows.map((r) => ({
      citation: r.citation,
      catchline: r.catchline,
      snippet: renderSnippet(r.marked.replaceAll('\u0003', '<').replaceAll('\u0004', '>')),
      status: r.status,
      temporalBasis: r.temporal_basis,
      versionLabel: r.version_label,
      provenance: r.provenance,
    }));
  }

  async refresh(): Promise<void> {
    await this.client.query(`ANALYZE ${this.table}`);
  }

  async count(): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table}`);
    return rows[0]?.n ?? 0;
  }

  async ping(): Promise<void> {
    await this.client.query('SELECT 1', [], { budget: 'probe' });
  }
}
