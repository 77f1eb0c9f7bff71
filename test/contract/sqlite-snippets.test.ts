import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fts5Snippet, snippetTerms } from '#stores/sqlite/fts5-snippet.mjs';
import { porterStem } from '#stores/sqlite/porter.mjs';
import { loadSampleDocuments } from './search-index.contract.ts';

/**
 * The snippets the SQLite search index computes in JavaScript (fts5-snippet.mjs, porter.mjs) against FTS5's own
 * snippet() and porter tokenizer, on real texts: the sample's D.C. Code and U.S. Code sections, and the two bundled
 * opinions (long texts of many sentences, with accented names).
 */
const TOKENIZER = `'porter unicode61 remove_diacritics 2'`;
const OPTIONS = { open: '\u0001', close: '\u0002', ellipsis: ' … ', size: 30 };
const OPINIONS = 'data/sample/caselaw/opinion-texts';

const texts = [
  ...loadSampleDocuments().map((d) => ({ catchline: d.catchline, body: d.bodyText })),
  ...readdirSync(OPINIONS).map((f) => ({ catchline: f, body: readFileSync(join(OPINIONS, f), 'utf8') })),
];

let db: Database.Database;
const stemmed = new Map<string, string | null>();
/** A token's stem, as FTS5's tokenizer makes it (null: not one token). */
const sqliteStem = (token: string): string | null => {
  let stem = stemmed.get(token);
  if (stem === undefined) {
    db.prepare('INSERT INTO stem (rowid, word) VALUES (1, ?)').run(token);
    const terms = db.prepare('SELECT term FROM stem_tokens').pluck().all() as string[];
    db.prepare('DELETE FROM stem').run();
    stem = terms.length === 1 ? terms[0]! : null;
    stemmed.set(token, stem);
  }
  return stem;
};

beforeAll(() => {
  db = new Database(':memory:');
  db.exec(`
    CREATE VIRTUAL TABLE docs USING fts5(catchline, body, tokenize = ${TOKENIZER});
    CREATE VIRTUAL TABLE stem USING fts5(word, tokenize = ${TOKENIZER});
    CREATE VIRTUAL TABLE stem_tokens USING fts5vocab(stem, 'instance');`);
  const put = db.prepare('INSERT INTO docs (catchline, body) VALUES (?, ?)');
  db.transaction(() => {
    for (const t of texts) put.run(t.catchline, t.body);
  })();
});
afterAll(() => db?.close());

/** Every row matching the phrases, with FTS5's snippet and the JavaScript one. */
function bothSnippets(phrases: string[]): { sqlite: string; js: string }[] {
  const match = phrases.map((p) => `"${p}"`).join(' ');
  const rows = db
    .prepare(`SELECT CAST(body AS BLOB) AS body, snippet(docs, 1, char(1), char(2), ' … ', 30) AS marked FROM docs WHERE docs MATCH ?`)
    .all(match) as { body: Buffer; marked: string }[];
  const terms = snippetTerms(phrases, sqliteStem);
  return rows.map((r) => ({ sqlite: r.marked, js: fts5Snippet(r.body, terms, OPTIONS, sqliteStem) }));
}

const words = [...new Set(texts.flatMap((t) => `${t.catchline} ${t.body}`.match(/[\p{L}\p{N}]+/gu) ?? []))];

describe('porterStem: FTS5 porter tokenizer in JavaScript', () => {
  it('stems every ASCII word of the real texts as SQLite does', () => {
    const ascii = [...new Set(words.map((w) => w.toLowerCase()).filter((w) => /^[a-z0-9]+$/.test(w)))];
    expect(ascii.length).toBeGreaterThan(4_000);
    const differ = ascii.filter((w) => porterStem(w) !== sqliteStem(w));
    expect(differ).toEqual([]);
  });

  it('keeps all but the last three letters of a stem at the start of the word (what the snippet filters tokens by)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...words), fc.stringMatching(/^[a-z]{1,20}$/)), (word) => {
        const w = word.toLowerCase();
        const stem = porterStem(w);
        expect(w.startsWith(stem.slice(0, Math.max(1, stem.length - 3)))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('fts5Snippet: snippet() in JavaScript', () => {
  it('gives the snippet FTS5 gives, on every row, for words of the texts, pairs and phrases', () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let rows = 0;
    let marked = 0;
    for (let i = 0; i < 150; i++) {
      const text = texts[Math.floor(next() * texts.length)]!.body.match(/[\p{L}\p{N}]+/gu) ?? [];
      if (text.length < 4) continue;
      const at = Math.floor(next() * (text.length - 3));
      const kind = next();
      const phrases =
        kind < 0.4
          ? [text[at]!]
          : kind < 0.7
            ? [text[at]!, text[Math.floor(next() * text.length)]!]
            : [text.slice(at, at + 2 + Math.floor(next() * 2)).join(' ')];
      for (const { sqlite, js } of bothSnippets(phrases)) {
        expect(js, JSON.stringify(phrases)).toBe(sqlite);
        rows++;
        if (sqlite.includes('\u0001')) marked++;
      }
    }
    expect(rows).toBeGreaterThan(1_000);
    expect(marked / rows).toBeGreaterThan(0.9);
  });

  it('matches accented names, words met only in the catchline, and phrases that overlap', () => {
    for (const phrases of [
      ['pena'],
      ['Peña'],
      ['PEÑA', 'grutter'],
      ['section'],
      ['the district', 'district of columbia'],
      ['district of', 'of columbia'],
    ]) {
      const both = bothSnippets(phrases);
      expect(both.length, JSON.stringify(phrases)).toBeGreaterThan(0);
      for (const { sqlite, js } of both) expect(js, JSON.stringify(phrases)).toBe(sqlite);
    }
  });
});
