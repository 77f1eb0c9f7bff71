/**
 * How a search's `q` is read, whatever engine answers it (SQLite FTS5 on the laptop, OpenSearch in AWS): plain words,
 * all required, and quoted phrases. Pure: each engine turns the parts into its own query.
 */

/** At most this many quoted phrases are honoured as phrases; the rest count as plain words. */
const MAX_PHRASES = 8;

/**
 * The user's keywords as the parts of an all-terms query: the words outside quotes (every word ANDed; operators and
 * punctuation are just separators) and each quoted phrase (its words in that order). No word is an operator: `or`
 * and `-word` are words, or "every term must match" would break.
 */
export function parseKeywords(q: string): { words: string; phrases: string[] } {
  const parts = q.split('"');
  // An odd number of quotes leaves the last segment unterminated: read it as plain words.
  const closed = parts.length % 2 === 1 ? parts.length : parts.length - 1;
  const words: string[] = [];
  const phrases: string[] = [];
  parts.forEach((part, i) => {
    const isPhrase = i % 2 === 1 && i < closed;
    if (isPhrase && phrases.length < MAX_PHRASES) phrases.push(part.trim());
    else words.push(part);
  });
  return { words: words.join(' ').trim(), phrases: phrases.filter(Boolean) };
}
