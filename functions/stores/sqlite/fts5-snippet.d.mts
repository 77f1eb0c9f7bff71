export interface SnippetOptions {
  open: string;
  close: string;
  ellipsis: string;
  /** Tokens of the excerpt. */
  size: number;
}

/** A token's stem as the index tokenizer makes it (for tokens holding characters outside ASCII), or null. */
export type StemOf = (token: string) => string | null;

/** A query's phrases as every hit's snippet reads them (fts5-snippet.mjs, snippetTerms); opaque outside it. */
export interface SnippetTerms {
  readonly lengths: readonly number[];
}

/** A query's phrases (each the text inside its quotes) prepared once per search for its hits' snippets. */
export function snippetTerms(phrases: readonly string[], stemOf: StemOf): SnippetTerms;

/** The marked excerpt FTS5's snippet() gives for a row whose column holds `bytes` (its UTF-8) (fts5-snippet.mjs). */
export function fts5Snippet(bytes: Buffer, terms: SnippetTerms, options: SnippetOptions, stemOf: StemOf): string;
