import type { Citation, Provenance, SectionStatus, TemporalBasis } from '#law/model.ts';
import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import { HIT_CLOSE, HIT_OPEN, renderSnippet } from '#law/snippet.ts';
import { localDateOf } from '#shared/dates.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { ftsQuery } from './fts-query.ts';
import { SqliteWorkers, type SqliteWorkersOptions, type WorkerLane } from './sqlite-workers.ts';

/**
 * The layout's version. A data dir whose index has another (or none) gets a new, empty one, which its owner fills
 * from the version store (functions/local/search-build.ts).
 */
export const SQLITE_SEARCH_SCHEMA_VERSION = '3';

/**
 * Two tables per version: `search_docs`, narrow (what a search filters and sorts on: validity as yyyymmdd integers,
 * jurisdiction, corpus, key), and `search_text` (catchline, body, the hit's fields as JSON), over which `search_fts`
 * is an FTS5 index (external content: the text is stored once, triggers keep the index in step). The narrow table is
 * what a broad search reads for each of its matches, so it is kept small enough to stay in the cache. Porter stemming
 * over unicode61 tokens matches other forms of a word as PostgreSQL's english configuration does (agreements →
 * agreement, strangling → strangled).
 *
 * Impact lists (`search_impacts`, one row per listed version of a token, in the search's order; `search_impact_terms`,
 * the tokens listed) and scored postings (`search_postings`, one row per listed token): see IMPACT_LISTS. Any change
 * to the text or to what orders hits marks them stale (`search_meta.impacts`), and a stale list is not read; each
 * rebuild is a new `generation`. Validity is not part of them (a walk joins search_docs, a postings search reads it
 * from memory again once `validity` counted a change), so ending a version leaves them fresh.
 */
const TOKENIZER = `'porter unicode61 remove_diacritics 2'`;
const STALE = `UPDATE search_meta SET value = 'stale' WHERE name = 'impacts' AND value <> 'stale';`;

const SCHEMA = `
  CREATE TABLE search_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE search_docs (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    jurisdiction TEXT NOT NULL,
    corpus TEXT NOT NULL,
    key TEXT NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER NOT NULL
  );
  CREATE TABLE search_text (doc INTEGER PRIMARY KEY, catchline TEXT NOT NULL, body TEXT NOT NULL, hit TEXT NOT NULL);
  CREATE VIRTUAL TABLE search_fts USING fts5(
    catchline, body, content = 'search_text', content_rowid = 'doc', tokenize = ${TOKENIZER}
  );
  CREATE TABLE search_impacts (
    term TEXT NOT NULL,
    pos INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    catch INTEGER NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (term, pos)
  ) WITHOUT ROWID;
  CREATE TABLE search_postings (term TEXT PRIMARY KEY, docs BLOB NOT NULL, scores BLOB NOT NULL, catches BLOB NOT NULL);
  CREATE TABLE search_impact_terms (
    term TEXT PRIMARY KEY,
    catch_rows INTEGER NOT NULL,
    catch_complete INTEGER NOT NULL,
    body_complete INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TRIGGER search_docs_deleted AFTER DELETE ON search_docs BEGIN
    DELETE FROM search_text WHERE doc = old.doc;
  END;
  CREATE TRIGGER search_docs_reordered AFTER UPDATE OF jurisdiction, corpus, key, id ON search_docs BEGIN ${STALE} END;
  CREATE TRIGGER search_docs_revalidated AFTER UPDATE OF valid_from, valid_to ON search_docs BEGIN
    UPDATE search_meta SET value = value + 1 WHERE name = 'validity';
  END;
  CREATE TRIGGER search_text_inserted AFTER INSERT ON search_text BEGIN
    INSERT INTO search_fts (rowid, catchline, body) VALUES (new.doc, new.catchline, new.body); ${STALE}
  END;
  CREATE TRIGGER search_text_deleted AFTER DELETE ON search_text BEGIN
    INSERT INTO search_fts (search_fts, rowid, catchline, body) VALUES ('delete', old.doc, old.catchline, old.body); ${STALE}
  END;
  CREATE TRIGGER search_text_retexted AFTER UPDATE ON search_text
  WHEN old.catchline IS NOT new.catchline OR old.body IS NOT new.body BEGIN
    INSERT INTO search_fts (search_fts, rowid, catchline, body) VALUES ('delete', old.doc, old.catchline, old.body);
    INSERT INTO search_fts (rowid, catchline, body) VALUES (new.doc, new.catchline, new.body); ${STALE}
  END;
  INSERT INTO search_meta (name, value)
  VALUES ('schema', '${SQLITE_SEARCH_SCHEMA_VERSION}'), ('built', 'no'), ('impacts', 'stale'), ('generation', 0), ('validity', 0);`;

const DROP = `
  DROP TABLE IF EXISTS search_fts; DROP TABLE IF EXISTS search_text; DROP TABLE IF EXISTS search_docs;
  DROP TABLE IF EXISTS search_impacts; DROP TABLE IF EXISTS search_impact_terms; DROP TABLE IF EXISTS search_postings;
  DROP TABLE IF EXISTS search_meta;`;

const DOC_COLUMNS = ['jurisdiction', 'corpus', 'key', 'valid_from', 'valid_to'] as const;
const TEXT_COLUMNS = ['catchline', 'body', 'hit'] as const;
const changed = (table: string, columns: readonly string[]) =>
  `(${columns.map((c) => `${table}.${c}`).join(', ')}) IS NOT (${columns.map((c) => `excluded.${c}`).join(', ')})`;

/** Insert, or update the rows whose content differs (an unchanged document is no write at all, as on PostgreSQL). */
const UPSERT = [
  `INSERT INTO search_docs (id, ${DOC_COLUMNS.join(', ')}) VALUES (@id, ${DOC_COLUMNS.map((c) => `@${c}`).join(', ')})
   ON CONFLICT (id) DO UPDATE SET ${DOC_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
   WHERE ${changed('search_docs', DOC_COLUMNS)}`,
  `INSERT INTO search_text (doc, ${TEXT_COLUMNS.join(', ')})
   VALUES ((SELECT doc FROM search_docs WHERE id = @id), ${TEXT_COLUMNS.map((c) => `@${c}`).join(', ')})
   ON CONFLICT (doc) DO UPDATE SET ${TEXT_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
   WHERE ${changed('search_text', TEXT_COLUMNS)}`,
];

/** A local date (YYYY-MM-DD) as the integer yyyymmdd the narrow table compares. */
const dayNumber = (date: string): number => Number(date.replaceAll('-', ''));

/** Ranking weights: catchline terms count 2.5 times body terms (PostgreSQL's A 1.0 / B 0.4). */
const BM25 = 'bm25(search_fts, 2.5, 1.0)';
/**
 * A hit's snippet: what FTS5's snippet(search_fts, 1, char(1), char(2), ' … ', 30) gives (one fragment of 30 tokens
 * around the densest matches), computed by fts5-snippet.mjs from the hit's body.
 */
const SNIPPET = { open: HIT_OPEN, close: HIT_CLOSE, ellipsis: ' … ', size: 30 } as const;

/** The filters of a search, on `search_docs d`. */
const FILTERS = `d.valid_from <= @asOf AND @asOf < d.valid_to
  AND (@jurisdictions IS NULL OR d.jurisdiction IN (SELECT value FROM json_each(@jurisdictions)))
  AND (@corpus IS NULL OR d.corpus = @corpus)`;
/** The order of hits: a catchline holding the whole query first, then bm25 (lower is better), then the citation. */
const ORDER = 'in_catchline DESC, score, d.jurisdiction, d.corpus, d.key, d.id';
const IN_CATCHLINE = 'd.doc IN (SELECT rowid FROM search_fts WHERE search_fts MATCH @catchline)';
/** One hit as a search reads it: its stored fields, its catchline, and the body its snippet is cut from (UTF-8 bytes). */
const HIT_COLUMNS = 'x.hit, x.catchline, CAST(x.body AS BLOB) AS body';

/** The `limit` best versions holding every term of @all that `filters` keep, best first (as `d`). */
const ranked = (filters: string) => `
    SELECT d.doc, d.jurisdiction, d.corpus, d.key, d.id, ${IN_CATCHLINE} AS in_catchline, ${BM25} AS score
    FROM search_fts JOIN search_docs d ON d.doc = search_fts.rowid
    WHERE search_fts MATCH @all AND ${filters}
    ORDER BY ${ORDER}
    LIMIT @limit`;

/**
 * The exact search, one statement: FTS5 finds the versions holding every term, the filters cut them down, all
 * survivors are ranked, and only the `limit` best are read whole. Its cost grows with the matches.
 */
const EXACT_SEARCH = `
  SELECT ${HIT_COLUMNS} FROM (${ranked(FILTERS)}) d JOIN search_text x ON x.doc = d.doc ORDER BY ${ORDER}`;

/**
 * Impact lists: for each token held by many versions (at least `minDocs`), the first `prefix` versions whose
 * catchline holds it, then the first `prefix` of the others, each part in the exact order of a one-word search for
 * it (bm25, then the citation), numbered on, with the version's bm25 for the token. bm25 depends on the whole index
 * (its number of versions, their mean length, the token's frequency), so lists are rebuilt whole at refresh() and
 * are not read once anything changed after that: the exact statement answers until the next refresh.
 *
 * Scored postings: for each listed token, every version holding it in rowid order with its bm25 for the token and
 * whether its catchline holds it, as three arrays (BLOBs) in one row, about 13 bytes a version. A search of several
 * listed words intersects them in a reader's memory and ranks every version of the intersection exactly, without
 * FTS5 (postings.mjs); a one-word search whose list cannot prove its answer does the same with one.
 *
 * How a search reads them, and when it gives up for the exact statement: impact-lists.mjs (oneWord), postings.mjs;
 * docs/DECISIONS.md, "Embedded search engine".
 */
const IMPACT_LISTS = {
  clear: `DELETE FROM search_impacts; DELETE FROM search_impact_terms; DELETE FROM search_postings;
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, search_fts, 'row');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_instances USING fts5vocab(main, search_fts, 'instance');`,
  frequent: 'SELECT term FROM temp.search_vocab WHERE doc >= @minDocs',
  // A token that is not its own stem is asked for by the word of its first instance (impact-lists.mjs, sourceWords).
  firstInstance: 'SELECT doc, col, offset FROM temp.search_instances WHERE term = @term LIMIT 1',
  columns: 'SELECT CAST(catchline AS BLOB) AS catchline, CAST(body AS BLOB) AS body FROM search_text WHERE doc = @doc',
  citationOrder: 'SELECT doc FROM search_docs ORDER BY jurisdiction, corpus, key, id',
  insertImpact: 'INSERT INTO search_impacts (term, pos, doc, catch, score) VALUES (@term, @pos, @doc, @catch, @score)',
  term: `INSERT INTO search_impact_terms (term, catch_rows, catch_complete, body_complete)
    VALUES (@term, @catchRows, @catchComplete, @bodyComplete)`,
  // The versions holding the token with their bm25, and apart (merged in rowid order: cheaper than an IN per row)
  // those whose catchline holds it.
  postingsRead: `SELECT rowid, ${BM25} FROM search_fts WHERE search_fts MATCH @all ORDER BY rowid`,
  postingsCatchline: 'SELECT rowid FROM search_fts WHERE search_fts MATCH @catchline ORDER BY rowid',
  postingsPut: 'INSERT INTO search_postings (term, docs, scores, catches) VALUES (@term, @docs, @scores, @catches)',
  fresh: `UPDATE search_meta SET value = 'fresh' WHERE name = 'impacts';
    UPDATE search_meta SET value = value + 1 WHERE name = 'generation';`,
} as const;

/** Tokens as the index makes them, through a one-row FTS5 table per connection (impact-lists.mjs, stemsOf). */
const STEMMER = {
  stemmer: `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_stem USING fts5(word, tokenize = ${TOKENIZER});
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_stem_tokens USING fts5vocab(temp, search_stem, 'instance');`,
  stemPut: 'INSERT INTO temp.search_stem (rowid, word) VALUES (@i, @word)',
  stemRead: 'SELECT doc AS i, term AS token FROM temp.search_stem_tokens ORDER BY doc, offset',
  stemClear: 'DELETE FROM temp.search_stem',
} as const;

const SEARCH = {
  exact: EXACT_SEARCH,
  state: `SELECT name, value FROM search_meta WHERE name IN ('impacts', 'generation', 'validity')`,
  list: `SELECT catch_rows AS catchRows, catch_complete AS catchComplete, body_complete AS bodyComplete
    FROM search_impact_terms WHERE term = @term`,
  walk: `
    SELECT p.doc FROM search_impacts p CROSS JOIN search_docs d ON d.doc = p.doc
    WHERE p.term = @term AND p.pos <= @through AND ${FILTERS}
    ORDER BY p.pos LIMIT @limit`,
  postingsGet: 'SELECT docs, scores, catches FROM search_postings WHERE term = @term',
  versions: 'SELECT doc, jurisdiction, corpus, valid_from, valid_to FROM search_docs ORDER BY jurisdiction, corpus, key, id',
  lastDoc: 'SELECT coalesce(max(doc), 0) FROM search_docs',
  hit: `SELECT ${HIT_COLUMNS} FROM search_text x WHERE x.doc = CAST(@doc AS INTEGER)`,
  ...STEMMER,
} as const;

/** The probe's read: the layout's version, and an FTS5 query (it reads the index's structure and a term's leaf). */
const PING = `SELECT (SELECT value FROM search_meta WHERE name = 'schema') AS schema,
  (SELECT rowid FROM search_fts WHERE search_fts MATCH 'section' LIMIT 1) AS hit`;

/** What a hit shows beside its catchline and snippet, stored as JSON. */
interface StoredHit {
  citation: Citation;
  status: SectionStatus;
  temporalBasis: TemporalBasis;
  versionLabel: string;
  provenance: Provenance;
}

const toRow = (d: SearchDocument) => ({
  id: d.id,
  jurisdiction: d.citation.jurisdiction,
  corpus: d.citation.corpus,
  key: d.citation.key,
  valid_from: dayNumber(localDateOf(d.validFrom)),
  valid_to: dayNumber(localDateOf(d.validTo)),
  catchline: d.catchline,
  body: d.bodyText,
  hit: JSON.stringify({
    citation: d.citation,
    status: d.status,
    temporalBasis: d.temporalBasis,
    versionLabel: d.provenance.versionLabel,
    provenance: d.provenance,
  } satisfies StoredHit),
});

/** Creates the layout on a new file, or replaces one of another version with an empty one. */
async function ensureSchema(writer: WorkerLane): Promise<void> {
  const tables = await writer.run({ kind: 'all', sql: `SELECT name FROM sqlite_master WHERE name = 'search_meta'` });
  if ((tables.rows ?? []).length > 0) {
    const found = await writer.run({ kind: 'all', sql: `SELECT value FROM search_meta WHERE name = 'schema'` });
    if ((found.rows as { value: string }[])[0]?.value === SQLITE_SEARCH_SCHEMA_VERSION) return;
  }
  await writer.run({ kind: 'exec', sql: `BEGIN; ${DROP} ${SCHEMA} COMMIT;` });
}

export interface ImpactListOptions {
  /** Tokens held by at least this many versions get a list (fewer: the exact statement is cheap). */
  minDocs: number;
  /** Versions per list. */
  prefix: number;
  /** Bytes of scored postings each reader thread keeps in memory, the least recently used given up past it. */
  postingsBytes: number;
}

/**
 * The exact statement costs about 0.6 µs a match on a quiet machine (`court`, 40,524 versions of the 60,000 of
 * bench/search-engines.ts: 25 ms), so about 0.6 ms for a token of 1,000, which 16 searches queued on each of the two
 * readers turn into 10 ms (at 5,000, the D.C. Code's `court` and `rule` had no list: docs/DECISIONS.md); 1,000 listed
 * versions a part serve a `limit` of up to 100 unless the filters keep fewer than one in ten of them.
 */
export const DEFAULT_IMPACT_LISTS: ImpactListOptions = { minDocs: 1_000, prefix: 1_000, postingsBytes: 32 * 2 ** 20 };

type SearchPath = 'oneWord' | 'postings' | 'exact';

export interface SqliteSearchIndexOptions extends SqliteWorkersOptions {
  /** false: never build nor read impact lists (every search ranks all its matches, as before issue 17's lists). */
  impactLists?: ImpactListOptions | false;
}

const SET_VALID_TO = 'UPDATE search_docs SET valid_to = @to WHERE id = @id AND valid_to IS NOT @to';

/**
 * SearchIndex on SQLite FTS5 (better-sqlite3), the embedded search: one database file, searched by a few reader
 * threads at once and written by one writer thread (sqlite-workers.ts), so neither a search nor a write runs on the
 * event loop, and a search past its budget is answered 503 while the others go on.
 */
export class SqliteSearchIndex implements SearchIndex {
  /** Searches answered from an impact list, from the scored postings and by the exact statement (tests, benchmarks). */
  readonly answeredBy: Record<SearchPath, number> = { oneWord: 0, postings: 0, exact: 0 };
  /** setValidTo calls not yet sent to the writer (see setValidTo). */
  private readonly pendingEnds: { row: { id: string; to: number }; resolve(): void; reject(err: unknown): void }[] = [];

  private constructor(
    readonly workers: SqliteWorkers,
    private readonly impactLists: ImpactListOptions | false,
  ) {}

  static async open(file: string, options: SqliteSearchIndexOptions = {}): Promise<SqliteSearchIndex> {
    const { impactLists = DEFAULT_IMPACT_LISTS, ...workers } = options;
    return new SqliteSearchIndex(await SqliteWorkers.open(file, ensureSchema, workers), impactLists);
  }

  /** Whether the index was filled from the version store since it was created (see markBuilt). */
  async isBuilt(): Promise<boolean> {
    const rows = await this.workers.writerAll<{ value: string }>(`SELECT value FROM search_meta WHERE name = 'built'`);
    return rows[0]?.value === 'yes';
  }

  async markBuilt(): Promise<void> {
    await this.workers.batch(`UPDATE search_meta SET value = 'yes' WHERE name = 'built'`, [[]]);
  }

  async upsert(docs: readonly SearchDocument[]): Promise<void> {
    await this.workers.batch(UPSERT, docs.map(toRow));
  }

  /**
   * The calls made in one turn of the event loop (an ingest ends a batch's versions a few at a time) go to the writer
   * as one batch, one transaction, instead of one commit each; each call settles with that batch.
   */
  setValidTo(id: string, validTo: string): Promise<void> {
    const to = dayNumber(localDateOf(validTo));
    return new Promise((resolve, reject) => {
      const first = this.pendingEnds.length === 0;
      this.pendingEnds.push({ row: { id, to }, resolve, reject });
      if (first) queueMicrotask(() => this.flushEnds());
    });
  }

  private flushEnds(): void {
    const ends = this.pendingEnds.splice(0);
    this.workers
      .batch(
        SET_VALID_TO,
        ends.map((e) => e.row),
      )
      .then(
        () => {
          for (const e of ends) e.resolve();
        },
        (err: unknown) => {
          for (const e of ends) e.reject(err);
        },
      );
  }

  async remove(ids: readonly string[]): Promise<void> {
    await this.workers.batch(
      'DELETE FROM search_docs WHERE id = ?',
      ids.map((id) => [id]),
    );
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const match = ftsQuery(query.q);
    if (!match || query.limit < 1 || query.jurisdictions?.length === 0) return [];
    const params = {
      all: match.all,
      catchline: match.catchline,
      asOf: dayNumber(query.asOf),
      jurisdictions: query.jurisdictions ? JSON.stringify(query.jurisdictions) : null,
      corpus: query.corpus,
      limit: Math.floor(query.limit),
    };
    const { rows, path } = await this.workers.call(
      'searchTopK',
      SEARCH,
      {
        query: params,
        words: this.impactLists ? match.words : [],
        phrases: match.phrases,
        snippet: SNIPPET,
        postingsBytes: this.impactLists ? this.impactLists.postingsBytes : 0,
      },
      { lane: 'reader', budget: 'request' },
    );
    this.answeredBy[path]++;
    return rows.map((r) => {
      const hit = JSON.parse(r.hit) as StoredHit;
      return {
        citation: hit.citation,
        catchline: r.catchline,
        snippet: renderSnippet(r.marked),
        status: hit.status,
        temporalBasis: hit.temporalBasis,
        versionLabel: hit.versionLabel,
        provenance: hit.provenance,
      };
    });
  }

  /**
   * After a bulk change: FTS5's segments merged into one b-tree (fewer to read per term), the impact lists rebuilt if
   * anything changed since they were built, the WAL folded back.
   */
  async refresh(): Promise<void> {
    await this.workers.exec(`INSERT INTO search_fts (search_fts) VALUES ('optimize'); PRAGMA optimize;`);
    if (this.impactLists && !(await this.impactListsFresh())) {
      await this.workers.call('buildImpactLists', { ...IMPACT_LISTS, ...STEMMER }, { ...this.impactLists }, { lane: 'writer' });
    }
    await this.workers.writerAll('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  private async impactListsFresh(): Promise<boolean> {
    const rows = await this.workers.writerAll<{ name: string; value: string }>(SEARCH.state);
    return rows.find((r) => r.name === 'impacts')?.value === 'fresh';
  }

  async count(): Promise<number> {
    const rows = await this.workers.all<{ n: number }>('SELECT count(*) AS n FROM search_docs', [], 'request');
    return rows[0]?.n ?? 0;
  }

  /** The index answers: its layout is there and FTS5 reads a term's entries (a damaged or missing file fails here). */
  async ping(): Promise<void> {
    const rows = await this.workers.all<{ schema: string | null }>(PING, [], 'probe');
    if (rows[0]?.schema !== SQLITE_SEARCH_SCHEMA_VERSION) {
      throw new StoreUnavailableError('search', `The search index has lost its layout (schema ${rows[0]?.schema ?? 'none'}).`, {
        reason: 'damaged',
      });
    }
  }

  close(): Promise<void> {
    return this.workers.close();
  }
}
