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
 * One search. A query of one word whose token has a fresh impact list walks that list in order, keeping the
 * versions the filters keep, and stops at `limit`: the answer is exact when it filled `limit` from the list or the
 * list holds every version of the token. Anything else (phrases, several words, no list, stale lists, a list the
 * filters emptied) runs the exact statement, which ranks every match.
 */
export function searchTopK(db, prepared, sql, params) {
  return db.transaction(() => {
    const { query, words } = params;
    const docs = words.length === 1 && prepared(sql.state).get()?.value === 'fresh' ? listedDocs(db, prepared, sql, params) : null;
    if (!docs) return { rows: prepared(sql.exact).all(query), path: 'exact' };
    const hit = prepared(sql.hit);
    return { rows: docs.map((doc) => hit.get({ all: query.all, doc })), path: 'list' };
  })();
}

function listedDocs(db, prepared, sql, { query, words }) {
  const [token] = stemsOf(db, prepared, sql, words);
  if (!token) return null;
  const list = prepared(sql.list).get({ term: token });
  if (!list) return null;
  const { asOf, jurisdictions, corpus, limit } = query;
  const docs = prepared(sql.walk)
    .all({ term: token, asOf, jurisdictions, corpus, limit })
    .map((r) => r.doc);
  return docs.length === limit || list.complete === 1 ? docs : null;
}
