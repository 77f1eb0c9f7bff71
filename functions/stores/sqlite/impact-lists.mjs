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
 * Rebuilds every impact list: the first `prefix` versions, in the search's exact order, of each token held by at
 * least `minDocs` versions, then marks the lists fresh. One transaction: readers see the old lists or the new ones.
 */
export function buildImpactLists(db, prepared, sql, { minDocs, prefix }) {
  return db.transaction(() => {
    db.exec(sql.clear);
    const frequent = prepared(sql.frequent)
      .all({ minDocs })
      .map((r) => r.term);
    const stems = stemsOf(db, prepared, sql, frequent);
    const insert = prepared(sql.insert);
    const term = prepared(sql.term);
    let lists = 0;
    for (const [i, token] of frequent.entries()) {
      if (stems[i] !== token) continue;
      const listed = insert.run({ term: token, limit: prefix, ...tokenQuery(token) }).changes;
      term.run({ term: token, complete: listed < prefix ? 1 : 0 });
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
    lists.push({ term, complete: list.complete === 1 });
  }
  const { asOf, jurisdictions, corpus, limit } = query;
  const filters = { asOf, jurisdictions, corpus };
  if (lists.length === 1) return oneWord(prepared, sql, lists[0], filters, limit);
  return severalWords(prepared, sql, lists, filters, limit);
}

/**
 * Walks the list in order through the filters and stops at `limit`: exact when it filled `limit` (every version
 * after the list ranks below all of it) or when the list holds every version of the token.
 */
function oneWord(prepared, sql, { term, complete }, filters, limit) {
  const docs = prepared(sql.walk)
    .all({ term, ...filters, limit })
    .map((r) => r.doc);
  return docs.length === limit || complete ? docs : null;
}

/**
 * Several words, each with a list (a threshold bound, no random access). Order: a catchline holding every word
 * first, then the sum of the words' bm25 (FTS5's bm25 of several terms is that sum, added in the query's order, so
 * the sum here is the same double), then the citation. A version in every list has its place known. One missing from
 * a list that holds every version of its word is no hit; missing from a shorter list, it scores there no better than
 * the list's last row (`floor`) if its catchline holds the word or that row's catchline lacks it, and anything at all
 * otherwise. The answer is the versions known in full that pass the filters, when no version known in part (that
 * passes them) or unseen can reach the last of them, or any of them if they are fewer than `limit`; otherwise null
 * (the exact statement answers).
 */
function severalWords(prepared, sql, lists, filters, limit) {
  const known = new Map();
  const read = lists.map(({ term, complete }, i) => {
    const rows = prepared(sql.listRows).all({ term });
    for (const r of rows) {
      const entry = known.get(r.doc) ?? { doc: r.doc, scores: new Array(lists.length), seen: 0, catches: 0 };
      known.set(r.doc, entry);
      entry.scores[i] = r.score;
      entry.seen++;
      entry.catches += r.catch;
    }
    const last = rows.at(-1);
    return { complete, floor: last?.score ?? 0, lastCatch: last?.catch ?? 0 };
  });
  // In the query's order, from 0 as FTS5 adds them; a word the version is not known to score takes its list's floor.
  const sum = (scores) => {
    let total = 0;
    for (let i = 0; i < lists.length; i++) total += scores[i] ?? read[i].floor;
    return total;
  };
  const full = [];
  const partial = [];
  for (const entry of known.values()) {
    const inCatchline = entry.catches === entry.seen ? 1 : 0;
    if (entry.seen === lists.length) full.push({ doc: entry.doc, inCatchline, score: sum(entry.scores) });
    else if (!read.some((l, i) => l.complete && entry.scores[i] === undefined)) {
      // Its best case: a catchline match wherever it is missing, if the lists leave that possible.
      const canCatch = inCatchline === 1 && read.every((l, i) => entry.scores[i] !== undefined || l.lastCatch === 1);
      partial.push({ doc: entry.doc, inCatchline: canCatch ? 1 : 0, score: sum(entry.scores) });
    }
  }
  full.sort((a, b) => b.inCatchline - a.inCatchline || a.score - b.score);
  const ranks = [];
  for (const [i, f] of full.entries()) {
    const previous = full[i - 1];
    const tied = previous && previous.inCatchline === f.inCatchline && previous.score === f.score;
    ranks.push([f.doc, tied ? ranks[i - 1][1] : i]);
  }
  const docs = prepared(sql.rankFiltered)
    .all({ candidates: JSON.stringify(ranks), ...filters, limit })
    .map((r) => r.doc);
  // Fewer than `limit`: every version that could be a hit and passes the filters is a threat.
  const last = docs.length === limit ? full.find((f) => f.doc === docs[limit - 1]) : null;
  // Below a catchline match only catchline matches count, whose scores the floors bound; below another, a version
  // missing from a list whose last row is a catchline match could score anything.
  if (last?.inCatchline !== 1 && read.some((l) => !l.complete && l.lastCatch === 1)) return null;
  const reaches = (v) => last === null || v.inCatchline > last.inCatchline || (v.inCatchline === last.inCatchline && v.score <= last.score);
  const unseen = { inCatchline: read.every((l) => l.lastCatch === 1) ? 1 : 0, score: sum([]) };
  if (read.every((l) => !l.complete) && reaches(unseen)) return null; // a version in no list could reach it
  const threats = partial.filter(reaches).map((p) => p.doc);
  if (threats.length === 0) return docs;
  return prepared(sql.passing).get({ docs: JSON.stringify(threats), ...filters }).n === 0 ? docs : null;
}
