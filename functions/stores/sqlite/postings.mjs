// Scored postings (see search-index.ts, "Scored postings"): written by buildImpactLists beside the impact lists, read
// by a search of several frequent words, which intersects them in memory. Plain JavaScript for the reason
// sqlite-thread.mjs gives, type-checked from its JSDoc (an index the loop bounds keep in range is cast to its element
// type, as `!` would be in TypeScript); every statement is written on the TypeScript side and arrives in `sql`.
// @ts-check

/**
 * What a procedure of the thread is given (sqlite-thread.mjs, impact-lists.mjs and this module share them): the
 * connection, its statement for a SQL text (prepared once), and the SQL texts it runs, by name.
 * @typedef {import('better-sqlite3').Database} Db
 * @typedef {import('better-sqlite3').Statement<unknown[], unknown>} Statement
 * @typedef {(sql: string) => Statement} Prepared
 */
/**
 * The statements of the postings, named as search-index.ts names them: writing one token's, and reading them back
 * with what the filters and the citation order need of every version.
 * @typedef {Readonly<Record<'postingsRead' | 'postingsCatchline' | 'postingsPut', string>>} PostingsWriteSql
 * @typedef {Readonly<Record<'postingsGet' | 'lastDoc' | 'versions', string>>} PostingsReadSql
 */
/**
 * A token's postings: every version holding it (by doc, in rowid order), its bm25 for the token, whether its catchline
 * holds it (1) or not (0).
 * @typedef {{ docs: Int32Array; scores: Float64Array; catches: Uint8Array }} Postings
 */
/** @typedef {Postings & { bytes: number }} KeptPostings */
/**
 * The search index's state (search_meta, by name): lists `fresh` or not, their generation, the validity read.
 * @typedef {Readonly<Record<string, unknown>>} IndexState
 */
/**
 * A search's filters, as the statements take them: a day (yyyymmdd), the jurisdictions (JSON) or null, a corpus or null.
 * @typedef {{ asOf: number; jurisdictions: string | null; corpus: string | null }} Filters
 */
/**
 * Every version's validity, jurisdiction and corpus (as small numbers) and place in the citation order, by doc.
 * @typedef {object} Versions
 * @property {Int32Array} from
 * @property {Int32Array} to
 * @property {Int32Array} jurisdiction
 * @property {Int32Array} corpus
 * @property {Int32Array} rank
 * @property {Map<string, number>} jurisdictions
 * @property {Map<string, number>} corpora
 */
/**
 * @typedef {object} Memory
 * @property {unknown} generation
 * @property {unknown} validity
 * @property {Versions | null} versions
 * @property {Map<string, KeptPostings>} postings
 * @property {number} bytes
 */
/** @typedef {{ doc: number; inCatchline: number; score: number; rank: number }} Candidate */

/**
 * A BLOB (a Buffer) as a typed array: over the Buffer's memory when aligned for it, else over a copy.
 * @type {<A>(Type: { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): A; BYTES_PER_ELEMENT: number }, blob: Buffer) => A}
 */
const view = (Type, blob) =>
  blob.byteOffset % Type.BYTES_PER_ELEMENT === 0
    ? new Type(blob.buffer, blob.byteOffset, blob.byteLength / Type.BYTES_PER_ELEMENT)
    : new Type(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

/**
 * Writes the postings of one token: every version holding it in rowid order, with its bm25 for the token alone (the
 * double FTS5 gives, read back, never recomputed) and whether its catchline holds it; returns them.
 * @param {Prepared} prepared
 * @param {PostingsWriteSql} sql
 * @param {string} term
 * @param {{ all: string; catchline: string }} query the token's FTS5 queries, of the whole text and of the catchline
 * @returns {Postings}
 */
export function writePostings(prepared, sql, term, query) {
  const rows = /** @type {[doc: number, score: number][]} */ (prepared(sql.postingsRead).raw().all({ all: query.all }));
  const inCatchline = /** @type {number[]} */ (prepared(sql.postingsCatchline).pluck().all({ catchline: query.catchline }));
  const docs = new Int32Array(rows.length);
  const scores = new Float64Array(rows.length);
  const catches = new Uint8Array(rows.length);
  // Both in rowid order, and every catchline match is a match of the whole text: one pass sets the catchline flags.
  let c = 0;
  for (const [i, [doc, score]] of rows.entries()) {
    docs[i] = doc;
    scores[i] = score;
    while (c < inCatchline.length && /** @type {number} */ (inCatchline[c]) < doc) c++;
    catches[i] = inCatchline[c] === doc ? 1 : 0;
  }
  prepared(sql.postingsPut).run({
    term,
    docs: Buffer.from(docs.buffer),
    scores: Buffer.from(scores.buffer),
    catches: Buffer.from(catches.buffer),
  });
  return { docs, scores, catches };
}

/**
 * What a connection keeps between searches: the postings it read (least recently used first, up to a budget in
 * bytes) and what the filters and the citation order need of every version, for the generation of lists and the
 * validity they were read at; both are dropped when either changes.
 * @type {WeakMap<Db, Memory>}
 */
const memories = new WeakMap();

/**
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {PostingsReadSql} sql
 * @param {unknown} generation
 * @param {unknown} validity
 * @returns {Memory & { versions: Versions }}
 */
function memoryOf(db, prepared, sql, generation, validity) {
  let memory = memories.get(db);
  if (!memory || memory.generation !== generation) {
    memory = { generation, validity: null, versions: null, postings: new Map(), bytes: 0 };
    memories.set(db, memory);
  }
  if (memory.validity !== validity) {
    memory.versions = readVersions(prepared, sql);
    memory.validity = validity;
  }
  return /** @type {Memory & { versions: Versions }} */ (memory);
}

/**
 * Every version's validity, jurisdiction and corpus (as small numbers), and its place in the citation order (the
 * order that breaks ties: jurisdiction, corpus, key, id, compared as SQLite compares them), indexed by doc.
 * @param {Prepared} prepared
 * @param {PostingsReadSql} sql
 * @returns {Versions}
 */
function readVersions(prepared, sql) {
  const size = /** @type {number} */ (prepared(sql.lastDoc).pluck().get()) + 1;
  /** @type {Versions} */
  const versions = {
    from: new Int32Array(size),
    to: new Int32Array(size),
    jurisdiction: new Int32Array(size),
    corpus: new Int32Array(size),
    rank: new Int32Array(size),
    jurisdictions: new Map(),
    corpora: new Map(),
  };
  /** @type {(map: Map<string, number>, value: string) => number} */
  const code = (map, value) => map.get(value) ?? /** @type {number} */ (map.set(value, map.size).get(value));
  let rank = 0;
  const rows = /** @type {IterableIterator<[doc: number, jurisdiction: string, corpus: string, from: number, to: number]>} */ (
    prepared(sql.versions).raw().iterate()
  );
  for (const [doc, jurisdiction, corpus, from, to] of rows) {
    versions.from[doc] = from;
    versions.to[doc] = to;
    versions.jurisdiction[doc] = code(versions.jurisdictions, jurisdiction);
    versions.corpus[doc] = code(versions.corpora, corpus);
    versions.rank[doc] = rank++;
  }
  return versions;
}

/**
 * A token's postings, from memory or read (and kept, the least recently used given up past `budget` bytes).
 * @param {Prepared} prepared
 * @param {PostingsReadSql} sql
 * @param {Memory} memory
 * @param {string} term
 * @param {number} budget
 * @returns {KeptPostings | null}
 */
function postingsOf(prepared, sql, memory, term, budget) {
  const kept = memory.postings.get(term);
  if (kept !== undefined) {
    memory.postings.delete(term);
    memory.postings.set(term, kept);
    return kept;
  }
  const row = /** @type {{ docs: Buffer; scores: Buffer; catches: Buffer } | undefined} */ (prepared(sql.postingsGet).get({ term }));
  if (!row) return null;
  const [docs, scores, catches] = [view(Int32Array, row.docs), view(Float64Array, row.scores), view(Uint8Array, row.catches)];
  /** @type {KeptPostings} */
  const postings = { docs, scores, catches, bytes: docs.byteLength + scores.byteLength + catches.byteLength };
  memory.postings.set(term, postings);
  memory.bytes += postings.bytes;
  for (const [old, p] of memory.postings) {
    if (memory.bytes <= budget || old === term) break;
    memory.postings.delete(old);
    memory.bytes -= p.bytes;
  }
  return postings;
}

/**
 * The `limit` best versions holding every token of `terms` (in the query's order) that pass the filters, best first,
 * or null when a token has no postings. Exact: every version holding every token is in each token's postings, so the
 * intersection is every match; each is placed by the exact statement's order: a catchline holding every token first,
 * then the sum of the tokens' bm25 (FTS5's bm25 of several terms is that sum, added in the query's order from 0, so
 * the sum here is the same double), then the citation.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {PostingsReadSql} sql
 * @param {{ terms: readonly string[]; state: IndexState; filters: Filters; limit: number; budget: number }} search
 * @returns {number[] | null}
 */
export function postingsTopK(db, prepared, sql, { terms, state, filters, limit, budget }) {
  const memory = memoryOf(db, prepared, sql, state.generation, state.validity);
  /** @type {KeptPostings[]} */
  const lists = [];
  for (const term of terms) {
    const postings = postingsOf(prepared, sql, memory, term, budget);
    if (!postings) return null;
    lists.push(postings);
  }
  const { from, to, jurisdiction, corpus, rank, jurisdictions, corpora } = memory.versions;
  const { asOf } = filters;
  const allowed =
    filters.jurisdictions === null
      ? null
      : new Set(/** @type {string[]} */ (JSON.parse(filters.jurisdictions)).map((j) => jurisdictions.get(j)));
  const corpusCode = filters.corpus === null ? null : (corpora.get(filters.corpus) ?? -1);
  // Walk the shortest list; each other list's cursor only moves forward (every list is in rowid order).
  const shortest = lists.reduce((a, b) => (b.docs.length < a.docs.length ? b : a));
  const cursors = new Int32Array(lists.length);
  /** @type {Candidate[]} */
  const best = [];
  walk: for (let s = 0; s < shortest.docs.length; s++) {
    const doc = /** @type {number} */ (shortest.docs[s]);
    // biome-ignore format: the formatter drops the parentheses of a JSDoc cast inside a binary expression
    if (!(/** @type {number} */ (from[doc]) <= asOf && asOf < /** @type {number} */ (to[doc]))) continue;
    if (allowed !== null && !allowed.has(jurisdiction[doc])) continue;
    if (corpusCode !== null && corpus[doc] !== corpusCode) continue;
    for (let i = 0; i < lists.length; i++) {
      const docs = /** @type {KeptPostings} */ (lists[i]).docs;
      let c = /** @type {number} */ (cursors[i]);
      while (c < docs.length && /** @type {number} */ (docs[c]) < doc) c++;
      cursors[i] = c;
      if (c === docs.length) break walk;
      if (docs[c] !== doc) continue walk;
    }
    let score = 0;
    let inCatchline = 1;
    for (let i = 0; i < lists.length; i++) {
      const list = /** @type {KeptPostings} */ (lists[i]);
      const c = /** @type {number} */ (cursors[i]);
      score += /** @type {number} */ (list.scores[c]);
      inCatchline &= /** @type {number} */ (list.catches[c]);
    }
    offer(best, limit, { doc, inCatchline, score, rank: /** @type {number} */ (rank[doc]) });
  }
  return best.map((b) => b.doc);
}

/** Whether `a` ranks before `b`: catchline first, then the lower bm25, then the citation. @type {(a: Candidate, b: Candidate) => boolean} */
const before = (a, b) =>
  a.inCatchline !== b.inCatchline ? a.inCatchline > b.inCatchline : a.score !== b.score ? a.score < b.score : a.rank < b.rank;

/**
 * Keeps `best` the `limit` best offered so far, in order (insertion: `limit` is at most a few dozen).
 * @param {Candidate[]} best
 * @param {number} limit
 * @param {Candidate} candidate
 */
function offer(best, limit, candidate) {
  if (best.length === limit && !before(candidate, /** @type {Candidate} */ (best[limit - 1]))) return;
  let at = best.length === limit ? limit - 1 : best.length;
  while (at > 0 && before(candidate, /** @type {Candidate} */ (best[at - 1]))) {
    best[at] = /** @type {Candidate} */ (best[at - 1]);
    at--;
  }
  best[at] = candidate;
}
