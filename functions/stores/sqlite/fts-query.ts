import { parseKeywords } from '#law/keywords.ts';

/**
 * PostgreSQL's english stop words (snowball's list, as to_tsvector('english') drops them), so that a query means on
 * SQLite what it means on PostgreSQL: `the of and` has no searchable word, `tenant's` is `tenant` (`s` is a stop word).
 */
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its
  itself they them their theirs themselves what which who whom this that these those am is are was were be been being
  have has had having do does did doing a an the and but if or because as until while of at by for with about against
  between into through during before after above below to from up down in out on off over under again further then
  once here there when where why how all any both each few more most other some such no nor not only own same so than
  too very s t can will just don should now`.split(/\s+/),
);

/** Tokens as FTS5's unicode61 tokenizer cuts them: runs of letters, digits and marks; everything else separates. */
const tokensOf = (text: string): string[] => (text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((t) => t.normalize('NFC'));

/** A token as an FTS5 string: quoted, so no word is ever read as an operator (AND, OR, NOT, NEAR, `*`, `:`, `^`). */
const quoted = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/** A phrase's tokens without the stop words at its ends (inside it they hold the words' order and distance). */
function phraseTokens(phrase: string): string[] {
  const tokens = tokensOf(phrase);
  let start = 0;
  let end = tokens.length;
  while (start < end && STOP_WORDS.has(tokens[start]!)) start++;
  while (end > start && STOP_WORDS.has(tokens[end - 1]!)) end--;
  return tokens.slice(start, end);
}

export interface FtsQuery {
  /** Every word and phrase, ANDed: what a version must hold to be a hit. */
  all: string;
  /** The same, in the catchline alone: a hit whose catchline holds the whole query ranks above every other. */
  catchline: string;
  /** The distinct terms as one word each (a phrase of one word is one), or none when a phrase has several. */
  words: string[];
  /** Each term's text as FTS5 reads it inside its quotes, in the order of `all` (FTS5's phrases, for the snippets). */
  phrases: string[];
}

/**
 * The user's keywords (parseKeywords: words, and quoted phrases) as FTS5 match expressions, or null when nothing
 * searchable is left (only stop words, punctuation). Each distinct word once: a repeated word adds cost, not meaning.
 */
export function ftsQuery(q: string): FtsQuery | null {
  const { words, phrases } = parseKeywords(q);
  const terms = new Map<string, string[]>();
  for (const token of tokensOf(words)) if (!STOP_WORDS.has(token)) terms.set(quoted(token), [token]);
  for (const phrase of phrases) {
    const tokens = phraseTokens(phrase);
    if (tokens.length > 0) terms.set(quoted(tokens.join(' ')), tokens);
  }
  if (terms.size === 0) return null;
  const all = [...terms.keys()].join(' ');
  const tokens = [...terms.values()];
  return {
    all,
    catchline: `{catchline} : (${all})`,
    words: tokens.every((t) => t.length === 1) ? tokens.flat() : [],
    phrases: tokens.map((t) => t.join(' ')),
  };
}
