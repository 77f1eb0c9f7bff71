// The two procedures of the search index that take more than one statement (see search-index.ts, "Impact lists"),
// run inside a worker thread (sqlite-thread.mjs) so that a search is one message, not a round trip per statement.
// Plain JavaScript for the reason sqlite-thread.mjs gives, type-checked from its JSDoc; every statement is written on
// the TypeScript side and arrives in `sql`.
// @ts-check

import { fts5Snippet, snippetTerms, tokenAt } from './fts5-snippet.mjs';
import { porterStem } from './porter.mjs';
import { postingsTopK, writePostings } from './postings.mjs';

/**
 * @import { SnippetOptions } from './fts5-snippet.mjs'
 * @import { Db, Filters, IndexState, Prepared, PostingsReadSql, PostingsWriteSql, Statement } from './postings.mjs'
 */
/**
 * The statements of each procedure, named as search-index.ts names them (STEMMER, IMPACT_LISTS, SEARCH).
 * @typedef {Readonly<Record<'stemmer' | 'stemPut' | 'stemRead' | 'stemClear', string>>} StemmerSql
 * @typedef {StemmerSql & PostingsWriteSql & Readonly<Record<'clear' | 'frequent' | 'citationOrder' | 'insertImpact' | 'term' | 'fresh' | 'firstInstance' | 'columns', string>>} BuildSql
 * @typedef {StemmerSql & PostingsReadSql & Readonly<Record<'exact' | 'state' | 'list' | 'walk' | 'hit', string>>} SearchSql
 */
/**
 * A search as searchTopK is sent it: the exact statement's parameters (the filters among them), the query's words
 * (none: no impact lists), its phrases for the snippets, how to mark them, and the postings' memory budget in bytes.
 * @typedef {object} SearchParams
 * @property {Filters & { all: string; catchline: string; limit: number }} query
 * @property {readonly string[]} words
 * @property {readonly string[]} phrases
 * @property {SnippetOptions} snippet
 * @property {number} postingsBytes
 */
/** @typedef {'oneWord' | 'postings' | 'exact'} SearchPath */
/**
 * A token's impact list as search_impact_terms holds it: how many rows of catchline matches, and whether each part
 * holds every version of the token.
 * @typedef {{ term: string; catchRows: number; catchComplete: boolean; bodyComplete: boolean }} ListHead
 */

const ASCII_WORD = /^[A-Za-z0-9]+$/;

const stemmerReady = new WeakSet();

/**
 * The index tokenizer's tokens for each of `words` (porter over unicode61, as search_fts has it), read back from a
 * one-off FTS5 table in the connection's temp schema (a read-only connection may write there): FTS5 offers no
 * tokenize() to SQL. `null` for a word that is not exactly one token.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {StemmerSql} sql
 * @param {readonly string[]} words
 * @returns {(string | null)[]}
 */
function stemsOf(db, prepared, sql, words) {
  if (!stemmerReady.has(db)) {
    db.exec(sql.stemmer);
    stemmerReady.add(db);
  }
  const put = prepared(sql.stemPut);
  for (const [i, word] of words.entries()) put.run({ i, word });
  /** @type {string[][]} */
  const tokens = words.map(() => []);
  const read = /** @type {{ i: number; token: string }[]} */ (prepared(sql.stemRead).all());
  for (const { i, token } of read) /** @type {string[]} */ (tokens[i]).push(token);
  prepared(sql.stemClear).run();
  return tokens.map((t) => (t.length === 1 ? /** @type {string} */ (t[0]) : null));
}

/**
 * For each indexed token, a word FTS5 reads as exactly that token, or null. FTS5 stems a query's words, and porter is
 * not idempotent (`purpose` → `purpos` → `purpo`, `considerations` → `consider` → `consid`): a token that is not its
 * own stem cannot be asked for as itself, so a word of the text it was made from is (the first instance's, found by
 * its token offset), once FTS5's tokenizer confirms that word gives the token. Without this, such tokens (`purpos`,
 * `provis`, `proceed`, `employe`, `consider`: 141 of 2,188 listed tokens at 300,000 synthetic versions) had no list,
 * and a one-word search for them ranked every match with the exact statement.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {BuildSql} sql
 * @param {readonly string[]} tokens
 * @returns {(string | null)[]}
 */
function sourceWords(db, prepared, sql, tokens) {
  const stems = stemsOf(db, prepared, sql, tokens);
  /** @type {(string | null)[]} */
  const words = tokens.map((token, i) => (stems[i] === token ? token : null));
  const others = words.flatMap((word, i) => (word === null ? [i] : []));
  if (others.length === 0) return words;
  const first = prepared(sql.firstInstance);
  const columns = prepared(sql.columns);
  const candidates = others.map((i) => {
    const at = /** @type {{ doc: number; col: string; offset: number } | undefined} */ (first.get({ term: tokens[i] }));
    const row = at && /** @type {Record<string, Buffer> | undefined} */ (columns.get({ doc: at.doc }));
    const text = at && row?.[at.col];
    return text ? tokenAt(text, at.offset) : null;
  });
  const found = candidates.map((word) => word ?? '');
  const confirmed = stemsOf(db, prepared, sql, found);
  others.forEach((i, n) => {
    const word = candidates[n];
    if (word && confirmed[n] === tokens[i]) words[i] = word;
  });
  return words;
}

/**
 * The query of one indexed token, by a word FTS5 reads as that token (the token itself when it is its own stem).
 * @type {(token: string) => { all: string; catchline: string }}
 */
const tokenQuery = (token) => ({ all: `"${token}"`, catchline: `{catchline} : ("${token}")` });

/**
 * Rebuilds every impact list: for each token held by at least `minDocs` versions, its scored postings (postings.mjs),
 * and from them the first `prefix` versions, in the search's exact order, of those whose catchline holds it, then as
 * many of the others; then marks the lists fresh, a new generation. One transaction: readers see the old lists or the
 * new ones.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {BuildSql} sql
 * @param {{ minDocs: number; prefix: number }} options
 * @returns {number} the lists built
 */
export function buildImpactLists(db, prepared, sql, { minDocs, prefix }) {
  return db.transaction(() => {
    db.exec(sql.clear);
    const frequent = /** @type {{ term: string }[]} */ (prepared(sql.frequent).all({ minDocs })).map((r) => r.term);
    const words = sourceWords(db, prepared, sql, frequent);
    const ranks = citationRanks(prepared, sql);
    const insert = prepared(sql.insertImpact);
    const term = prepared(sql.term);
    let lists = 0;
    for (const [i, token] of frequent.entries()) {
      const word = words[i];
      if (word === null || word === undefined) continue;
      const { docs, scores, catches } = writePostings(prepared, sql, token, tokenQuery(word));
      // One part, in the order of a one-word search for the token: bm25, then the citation.
      /** @type {(inCatchline: number) => number[]} */
      const part = (inCatchline) => {
        /** @type {number[]} */
        const at = [];
        for (let p = 0; p < docs.length; p++) if (catches[p] === inCatchline) at.push(p);
        /** @type {(p: number) => number} */
        const rank = (p) => /** @type {number} */ (ranks[/** @type {number} */ (docs[p])]);
        return at
          .sort((a, b) => /** @type {number} */ (scores[a]) - /** @type {number} */ (scores[b]) || rank(a) - rank(b))
          .slice(0, prefix);
      };
      const [inCatchline, others] = [part(1), part(0)];
      for (const [pos, p] of [...inCatchline, ...others].entries()) {
        insert.run({ term: token, pos: pos + 1, doc: docs[p], catch: catches[p], score: scores[p] });
      }
      /** @type {(rows: readonly number[]) => number} */
      const complete = (rows) => (rows.length < prefix ? 1 : 0);
      term.run({ term: token, catchRows: inCatchline.length, catchComplete: complete(inCatchline), bodyComplete: complete(others) });
      lists++;
    }
    db.exec(sql.fresh);
    return lists;
  })();
}

/**
 * Each version's place in the citation order (jurisdiction, corpus, key, id, as SQLite compares them), by doc.
 * @param {Prepared} prepared
 * @param {BuildSql} sql
 * @returns {Int32Array}
 */
function citationRanks(prepared, sql) {
  const docs = /** @type {number[]} */ (prepared(sql.citationOrder).pluck().all());
  const ranks = new Int32Array(docs.reduce((max, doc) => Math.max(max, doc), 0) + 1);
  for (const [rank, doc] of docs.entries()) ranks[doc] = rank;
  return ranks;
}

/**
 * One search. A query of words only, each token with a fresh impact list, is answered from the lists when they
 * prove the answer (oneWord), or from the tokens' scored postings, which always can (postings); anything else
 * (phrases, a word without a list, lists made stale by a write) runs the exact statement, which ranks every match.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {SearchSql} sql
 * @param {SearchParams} params
 * @returns {{ rows: { hit: string; catchline: string; marked: string }[]; path: SearchPath }}
 */
export function searchTopK(db, prepared, sql, params) {
  return db.transaction(() => {
    const { query, words, phrases, snippet } = params;
    /** @type {IndexState | null} */
    const state =
      words.length > 0 ? Object.fromEntries(/** @type {[name: string, value: unknown][]} */ (prepared(sql.state).raw().all())) : null;
    const listed = state?.impacts === 'fresh' ? listedDocs(db, prepared, sql, params, state) : null;
    const hit = listed && prepared(sql.hit);
    const rows = /** @type {{ hit: string; catchline: string; body: Buffer }[]} */ (
      listed ? listed.docs.map((doc) => /** @type {Statement} */ (hit).get({ doc })) : prepared(sql.exact).all(query)
    );
    // Each hit's snippet is FTS5's snippet() of its body, computed here (fts5-snippet.mjs says why).
    /** @type {(token: string) => string | null} */
    const stemOf = (token) => stemOfToken(db, prepared, sql, token);
    const terms = snippetTerms(phrases, stemOf);
    return {
      rows: rows.map((r) => ({ hit: r.hit, catchline: r.catchline, marked: fts5Snippet(r.body, terms, snippet, stemOf) })),
      path: listed ? listed.path : 'exact',
    };
  })();
}

/**
 * Stems of words holding characters outside ASCII, as the index tokenizer makes them (null: not one token); few, so
 * kept once read.
 * @type {Map<string, string | null>}
 */
const otherStems = new Map();
const OTHER_STEMS_KEPT = 10_000;

/**
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {StemmerSql} sql
 * @param {string} token
 * @returns {string | null}
 */
function stemOfToken(db, prepared, sql, token) {
  let stem = otherStems.get(token);
  if (stem === undefined) {
    stem = /** @type {string | null} */ (stemsOf(db, prepared, sql, [token])[0]);
    if (otherStems.size >= OTHER_STEMS_KEPT) otherStems.clear();
    otherStems.set(token, stem);
  }
  return stem;
}

/**
 * The docs of the answer, from the impact lists or the postings, and which answered; null: the exact statement must.
 * @param {Db} db
 * @param {Prepared} prepared
 * @param {SearchSql} sql
 * @param {SearchParams} params
 * @param {IndexState} state
 * @returns {{ path: SearchPath; docs: number[] } | null}
 */
function listedDocs(db, prepared, sql, { query, words, postingsBytes }, state) {
  // A word of ASCII letters and digits is one token, its porter stem (porter.mjs); SQLite stems any other.
  const tokens = words.map((word) => (ASCII_WORD.test(word) ? porterStem(word.toLowerCase()) : stemOfToken(db, prepared, sql, word)));
  if (tokens.some((t) => t === null) || new Set(tokens).size < tokens.length) return null;
  /** @type {ListHead[]} */
  const lists = [];
  for (const term of /** @type {string[]} */ (tokens)) {
    const list = /** @type {{ catchRows: number; catchComplete: number; bodyComplete: number } | undefined} */ (
      prepared(sql.list).get({ term })
    );
    if (!list) return null;
    lists.push({ term, catchRows: list.catchRows, catchComplete: list.catchComplete === 1, bodyComplete: list.bodyComplete === 1 });
  }
  const { asOf, jurisdictions, corpus, limit } = query;
  const filters = { asOf, jurisdictions, corpus };
  // One word: the list's first rows prove most answers. Several words, or one the list cannot prove: the postings.
  const walked = lists.length === 1 ? oneWord(prepared, sql, /** @type {ListHead} */ (lists[0]), filters, limit) : null;
  if (walked) return { path: 'oneWord', docs: walked };
  const docs = postingsTopK(db, prepared, sql, { terms: /** @type {string[]} */ (tokens), state, filters, limit, budget: postingsBytes });
  return docs && { path: 'postings', docs };
}

/**
 * Walks the list in order through the filters and stops at `limit`: the catchline matches, then (only if the list
 * holds them all) the others. Exact when it filled `limit` (every version after the list ranks below all of it) or
 * when the list holds every version of the token.
 * @param {Prepared} prepared
 * @param {SearchSql} sql
 * @param {ListHead} list
 * @param {Filters} filters
 * @param {number} limit
 * @returns {number[] | null}
 */
function oneWord(prepared, sql, { term, catchRows, catchComplete, bodyComplete }, filters, limit) {
  const through = catchComplete ? Number.MAX_SAFE_INTEGER : catchRows;
  const docs = /** @type {{ doc: number }[]} */ (prepared(sql.walk).all({ term, through, ...filters, limit })).map((r) => r.doc);
  return docs.length === limit || (catchComplete && bodyComplete) ? docs : null;
}
