/** The stem FTS5's porter tokenizer gives a folded token of one byte per character (porter.mjs). */
export function porterStem(token: string): string;
