// Scored postings (see search-index.ts, "Scored postings"): written by buildImpactLists beside the impact lists, read
// by a search of several frequent words, which intersects them in memory. Plain JavaScript for the reason
// sqlite-thread.mjs gives; every statement is written on the TypeScript side and arrives in `sql`.

/** A BLOB (a Buffer) as a typed array: over the Buffer's memory when aligned for it, else over a copy. */
const view = (Type, blob) =>
  blob.byteOffset % Type.BYTES_PER_ELEMENT === 0
    ? new Type(blob.buffer, blob.byteOffset, blob.byteLength / Type.BYTES_PER_ELEMENT)
    : new Type(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

/**
 * Writes the postings of one token: every version holding it in rowid order, with its bm25 for the token alone (the
 * double FTS5 gives, read back, never recomputed) and whether its catchline holds it; returns them.
 */
export function writePostings(prepared, sql, term, query) {
  const rows = prepared(sql.postingsRead).raw().all(query);
  const docs = new Int32Array(rows.length);
  const scores = new Float64Array(rows.length);
  const catches = new Uint8Array(rows.length);
  for (const [i, [doc, score, inCatchline]] of rows.entries()) {
    docs[i] = doc;
    scores[i] = score;
    catches[i] = inCatchline;
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
 */
const memories = new WeakMap();

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
  return memory;
}

/**
 * Every version's validity, jurisdiction and corpus (as small numbers), and its place in the citation order (the
 * order that breaks ties: jurisdiction, corpus, key, id, compared as SQLite compares them), indexed by doc.
 */
function readVersions(prepared, sql) {
  const size = prepared(sql.lastDoc).pluck().get() + 1;
  const versions = {
    from: new Int32Array(size),
    to: new Int32Array(size),
    jurisdiction: new Int32Array(size),
    corpus: new Int32Array(size),
    rank: new Int32Array(size),
    jurisdictions: new Map(),
    corpora: new Map(),
  };
  const code = (map, value) => map.get(value) ?? map.set(value, map.size).get(value);
  let rank = 0;
  for (const [doc, jurisdiction, corpus, from, to] of prepared(sql.versions).raw().iterate()) {
    versions.from[doc] = from;
    versions.to[doc] = to;
    versions.jurisdiction[doc] = code(versions.jurisdictions, jurisdiction);
    versions.corpus[doc] = code(versions.corpora, corpus);
    versions.rank[doc] = rank++;
  }
  return versions;
}

/** A token's postings, from memory or read (and kept, the least recently used given up past `budget` bytes). */
function postingsOf(prepared, sql, memory, term, budget) {
  const kept = memory.postings.get(term);
  if (kept !== undefined) {
    memory.postings.delete(term);
    memory.postings.set(term, kept);
    return kept;
  }
  const row = prepared(sql.postingsGet).get({ term });
  if (!row) return null;
  const postings = { docs: view(Int32Array, row.docs), scores: view(Float64Array, row.scores), catches: view(Uint8Array, row.catches) };
  postings.bytes = postings.docs.byteLength + postings.scores.byteLength + postings.catches.byteLength;
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
 */
export function postingsTopK(db, prepared, sql, { terms, state, filters, limit, budget }) {
  const memory = memoryOf(db, prepared, sql, state.generation, state.validity);
  const lists = [];
  for (const term of terms) {
    const postings = postingsOf(prepared, sql, memory, term, budget);
    if (!postings) return null;
    lists.push(postings);
  }
  const { from, to, jurisdiction, corpus, rank, jurisdictions, corpora } = memory.versions;
  const { asOf } = filters;
  const allowed = filters.jurisdictions === null ? null : new Set(JSON.parse(filters.jurisdictions).map((j) => jurisdictions.get(j)));
  const corpusCode = filters.corpus === null ? null : (corpora.get(filters.corpus) ?? -1);
  // Walk the shortest list; each other list's cursor only moves forward (every list is in rowid order).
  const shortest = lists.reduce((a, b) => (b.docs.length < a.docs.length ? b : a));
  const cursors = new Int32Array(lists.length);
  const best = [];
  walk: for (let s = 0; s < shortest.docs.length; s++) {
    const doc = shortest.docs[s];
    if (!(from[doc] <= asOf && asOf < to[doc])) continue;
    if (allowed !== null && !allowed.has(jurisdiction[doc])) continue;
    if (corpusCode !== null && corpus[doc] !== corpusCode) continue;
    for (let i = 0; i < lists.length; i++) {
      const docs = lists[i].docs;
      let c = cursors[i];
      while (c < docs.length && docs[c] < doc) c++;
      cursors[i] = c;
      if (c === docs.length) break walk;
      if (docs[c] !== doc) continue walk;
    }
    let score = 0;
    let inCatchline = 1;
    for (let i = 0; i < lists.length; i++) {
      score += lists[i].scores[cursors[i]];
      inCatchline &= lists[i].catches[cursors[i]];
    }
    offer(best, limit, { doc, inCatchline, score, rank: rank[doc] });
  }
  return best.map((b) => b.doc);
}

/** Whether `a` ranks before `b`: catchline first, then the lower bm25, then the citation. */
const before = (a, b) =>
  a.inCatchline !== b.inCatchline ? a.inCatchline > b.inCatchline : a.score !== b.score ? a.score < b.score : a.rank < b.rank;

/** Keeps `best` the `limit` best offered so far, in order (insertion: `limit` is at most a few dozen). */
function offer(best, limit, candidate) {
  if (best.length === limit && !before(candidate, best[limit - 1])) return;
  let at = best.length === limit ? limit - 1 : best.length;
  while (at > 0 && before(candidate, best[at - 1])) {
    best[at] = best[at - 1];
    at--;
  }
  best[at] = candidate;
}
