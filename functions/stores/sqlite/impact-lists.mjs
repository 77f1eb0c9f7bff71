// The two procedures of the search index that take more than one statement (see search-index.ts, "Impact lists"),
// run inside a worker thread (sqlite-thread.mjs) so that a search is one message, not a round trip per statement.
// Plain JavaScript for the reason sqlite-thread.mjs gives; every statement is written on the TypeScript side and
// arrives in `sql`.

const stemmerReady = new WeakSet();

/**
 * The index tokenizer's tokens for each of `words` (porter over unicode61, as search_fts has it), read back from a
 * one-off FTS5 table in the connection's temp schema (a read-only connection may write there): FTS5 offers no
 * tokenize() to SQL. `null` for a word that is not exactly one token.
 */
function stemsOf(db, prepared, sql, words) {
  if (!stemmerReady.has(db)) {
    db.exec(sql.stemmer);
    stemmerReady.add(db);
  }
  const put = prepared(sql.stemPut);
  for (const [i, word] of words.entries()) put.run({ i, word });
  const tokens = words.map(() => []);
  for (const { i, token } of prepared(sql.stemRead).all()) tokens[i].push(token);
  prepared(sql.stemClear).run();
  return tokens.map((t) => (t.length === 1 ? t[0] : null));
}

/** The query of one indexed token: FTS5 stems it again, so only a token that is its own stem can be asked for. */
const tokenQuery = (token) => ({ all: `"${token}"`, catchline: `{catchline} : ("${token}")` });

/**
 * Rebuilds every impact list: for each token held by at least `minDocs` versions, the first `prefix` versions, in the
 * search's exact order, of those whose catchline holds it, then as many of the others; then marks the lists fresh. One transaction: readers see the old lists or the new ones.
 */
export function buildImpactLists(db, prepared, sql, { minDocs, prefix }) {
  return db.transaction(() => {
    db.exec(sql.clear);
    const frequent = prepared(sql.frequent)
      .all({ minDocs })
      .map((r) => r.term);
    const stems = stemsOf(db, prepared, sql, frequent);
    const insertCatch = prepared(sql.insertCatch);
    const insertBody = prepared(sql.insertBody);
    const term = prepared(sql.term);
    let lists = 0;
    for (const [i, token] of frequent.entries()) {
      if (stems[i] !== token) continue;
      const query = { term: token, limit: prefix, ...tokenQuery(token) };
      const catchRows = insertCatch.run(query).changes;
      const bodyRows = insertBody.run({ ...query, offset: catchRows }).changes;
      term.run({ term: token, catchRows, catchComplete: catchRows < prefix ? 1 : 0, bodyComplete: bodyRows < prefix ? 1 : 0 });
      lists++;
    }
    db.exec(sql.fresh);
    return lists;
  })();
}

/**
 * One search. A query of words only, each token with a fresh impact list, is answered from the lists when they
 * prove the answer (oneWord, severalWords); anything else (phrases, a word without a list, lists made stale by a
 * write, lists that cannot prove it) runs the exact statement, which ranks every match.
 */
export function searchTopK(db, prepared, sql, params) {
  return db.transaction(() => {
    const { query, words } = params;
    const docs = words.length > 0 && prepared(sql.state).get()?.value === 'fresh' ? listedDocs(db, prepared, sql, params) : null;
    if (!docs) return { rows: prepared(sql.exact).all(query), path: 'exact' };
    const hit = prepared(sql.hit);
    return { rows: docs.map((doc) => hit.get({ all: query.all, doc })), path: words.length === 1 ? 'oneWord' : 'severalWords' };
  })();
}

function listedDocs(db, prepared, sql, { query, words }) {
  const tokens = stemsOf(db, prepared, sql, words);
  if (tokens.some((t) => t === null) || new Set(tokens).size < tokens.length) return null;
  const lists = [];
  for (const term of tokens) {
    const list = prepared(sql.list).get({ term });
    if (!list) return null;
    lists.push({ term, catchRows: list.catchRows, catchComplete: list.catchComplete === 1, bodyComplete: list.bodyComplete === 1 });
  }
  // The first rows of each list prove most answers; the whole lists, some more.
  if (lists.length > 1) return severalWords(prepared, sql, lists, query, FIRST_DEPTH) ?? severalWords(prepared, sql, lists, query, -1);
  const { asOf, jurisdictions, corpus, limit } = query;
  return oneWord(prepared, sql, lists[0], { asOf, jurisdictions, corpus }, limit);
}

/**
 * Walks the list in order through the filters and stops at `limit`: the catchline matches, then (only if the list
 * holds them all) the others. Exact when it filled `limit` (every version after the list ranks below all of it) or
 * when the list holds every version of the token.
 */
function oneWord(prepared, sql, { term, catchRows, catchComplete, bodyComplete }, filters, limit) {
  const through = catchComplete ? Number.MAX_SAFE_INTEGER : catchRows;
  const docs = prepared(sql.walk)
    .all({ term, through, ...filters, limit })
    .map((r) => r.doc);
  return docs.length === limit || (catchComplete && bodyComplete) ? docs : null;
}

/**
 * Several words, each with a list (a threshold bound). Order: a catchline holding every word first, then the sum of
 * the words' bm25 (FTS5's bm25 of several terms is that sum, added in the query's order, so the sum here is the same
 * double), then the citation. A version in every list has its place known. One missing from a list may still hold
 * the word only where that list stops short (its catchline part, its other part), and then scores no better there
 * than the last row read of that part (`floor`). The answer is the versions known in full that pass the filters,
 * when no version known in part (that passes them) or unseen can reach the last of them, or any of them if they are
 * fewer than `limit`; a few such threats are scored by FTS5 one by one; more: null (the exact statement answers).
 */
function severalWords(prepared, sql, lists, query, depth) {
  const { asOf, jurisdictions, corpus, limit } = query;
  const filters = { asOf, jurisdictions, corpus };
  const known = new Map();
  const segment = (term, i, inCatchline, complete, [after, through]) => {
    const rows = prepared(sql.listRows).raw().all({ term, after, through, depth });
    for (const [doc, score] of rows) {
      const entry = known.get(doc) ?? { doc, scores: new Array(lists.length), seen: 0, catches: 0 };
      known.set(doc, entry);
      entry.scores[i] = score;
      entry.seen++;
      entry.catches += inCatchline;
    }
    const short = !complete || (depth >= 0 && rows.length === depth);
    return short ? (rows.at(-1)?.[1] ?? Number.NEGATIVE_INFINITY) : null;
  };
  const read = lists.map(({ term, catchRows, catchComplete, bodyComplete }, i) => {
    const catchFloor = segment(term, i, 1, catchComplete, [0, catchRows]);
    const bodyFloor = segment(term, i, 0, bodyComplete, [catchRows, Number.MAX_SAFE_INTEGER]);
    const floors = [catchFloor, bodyFloor].filter((f) => f !== null);
    return { catchFloor, anyFloor: floors.length > 0 ? Math.min(...floors) : null };
  });
  // In the query's order, from 0 as FTS5 adds them; where a score is not known, the floor given for that list.
  const sum = (scores, floor) => {
    let total = 0;
    for (let i = 0; i < lists.length; i++) total += scores[i] ?? floor(read[i]);
    return total;
  };
  /** The best a version missing from some lists could be: a catchline match (when possible) or not. */
  const bestCases = (scores, catchesKnown) => {
    const missing = read.filter((_, i) => scores[i] === undefined);
    const cases = [];
    if (catchesKnown && missing.every((l) => l.catchFloor !== null))
      cases.push({ inCatchline: 1, score: sum(scores, (l) => l.catchFloor) });
    if (missing.every((l) => l.anyFloor !== null)) cases.push({ inCatchline: 0, score: sum(scores, (l) => l.anyFloor) });
    return cases;
  };
  const full = [];
  const partial = [];
  for (const entry of known.values()) {
    const inCatchline = entry.catches === entry.seen ? 1 : 0;
    if (entry.seen === lists.length) full.push({ doc: entry.doc, inCatchline, score: sum(entry.scores) });
    else partial.push({ doc: entry.doc, cases: bestCases(entry.scores, inCatchline === 1), mayCatch: inCatchline === 1 });
  }
  const ranked = () => {
    full.sort((a, b) => b.inCatchline - a.inCatchline || a.score - b.score);
    const ranks = [];
    for (const [i, f] of full.entries()) {
      const previous = full[i - 1];
      const tied = previous && previous.inCatchline === f.inCatchline && previous.score === f.score;
      ranks.push([f.doc, tied ? ranks[i - 1][1] : i]);
    }
    return prepared(sql.rankFiltered)
      .all({ candidates: JSON.stringify(ranks), ...filters, limit })
      .map((r) => r.doc);
  };
  const docs = ranked();
  // Fewer than `limit`: every version that could be a hit and passes the filters is a threat.
  const last = docs.length === limit ? full.find((f) => f.doc === docs[limit - 1]) : null;
  const reaches = (v) => last === null || v.inCatchline > last.inCatchline || (v.inCatchline === last.inCatchline && v.score <= last.score);
  if (bestCases([], true).some(reaches)) return null; // a version in no list could reach it
  const threats = partial.filter((p) => p.cases.some(reaches));
  if (threats.length === 0) return docs;
  if (threats.length > MAX_THREATS) return null;
  const passing = new Set(
    prepared(sql.passing)
      .all({ docs: JSON.stringify(threats.map((t) => t.doc)), ...filters })
      .map((r) => r.doc),
  );
  if (passing.size === 0) return docs;
  if (passing.size > MAX_RESOLVED) return null;
  // A few threats: FTS5 scores each (the same bm25 as the exact statement's), and they join the versions known in
  // full. What was below the last hit stays below the new one, which ranks no lower.
  for (const { doc, mayCatch } of threats) {
    if (!passing.has(doc)) continue;
    const scored = prepared(sql.score).get({ all: query.all, doc });
    const inCatchline = mayCatch && prepared(sql.inCatchline).get({ catchline: query.catchline, doc }) ? 1 : 0;
    if (scored) full.push({ doc, inCatchline, score: scored.score });
  }
  return ranked();
}

/**
 * Threats scored one by one at most: FTS5's bm25 counts each word's versions at every call, so one costs about 0.7 ms
 * at 60,000 versions and 2.3 ms at 300,000 (`court rule`, quiet machine); more: the exact statement.
 */
const MAX_RESOLVED = 4;
/** Threats checked against the filters at most (one statement over all of them); more: the exact statement. */
const MAX_THREATS = 512;
/** Rows of each list read first by a search of several words (-1: all). */
const FIRST_DEPTH = 200;
