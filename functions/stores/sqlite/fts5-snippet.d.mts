export interface SnippetOptions {
  open: string;
  close: string;
  ellipsis: string;
  /** Tokens of the excerpt. */
  size: number;
}

/** A token's stem as the index tokenizer makes it (for tokens holding characters outside ASCII), or null. */
export type StemOf = (token: string) => string | null;

/** The stems of a query's phrases as FTS5 reads them (each phrase the text inside its quotes). */
export function phraseStems(phrases: readonly string[], stemOf: StemOf): (string | null)[][];

/** The marked excerpt FTS5's snippet() gives for a row whose column holds `bytes` (its UTF-8) (fts5-snippet.mjs). */
export function fts5Snippet(
  bytes: Buffer,
  phrases: readonly (readonly (string | null)[])[],
  options: SnippetOptions,
  stemOf: StemOf,
): string;
