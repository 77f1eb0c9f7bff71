/**
 * Search words drawn from a corpus's own text: how many sections each word of six letters or more is found in
 * (document frequency), then the broad queries (the most widespread words, and the two most widespread together)
 * and the narrow ones (words found in two or three sections only).
 */

const STOP = new Set(['shall', 'section', 'subsection', 'paragraph', 'chapter', 'title', 'under', 'which', 'other', 'there', 'their']);

export class WordFrequencies {
  /** Per word: sections counted, and the last section counted (versions of one section, read in a row, count once). */
  readonly #counts = new Map<string, { sections: number; last: string }>();

  /** Counts the words of one section's text; `section` identifies the section, so its other versions add nothing. */
  add(section: string, text: string): void {
    for (const word of new Set(text.toLowerCase().match(/\b[a-z]{6,}\b/g) ?? [])) {
      if (STOP.has(word)) continue;
      const c = this.#counts.get(word);
      if (!c) this.#counts.set(word, { sections: 1, last: section });
      else if (c.last !== section) {
        c.sections++;
        c.last = section;
      }
    }
  }

  /** Broad: the three most widespread words and the first two together; narrow: `narrowCount` words in 2 or 3 sections. */
  queries(rnd: () => number, narrowCount = 4): { broad: string[]; narrow: string[] } {
    const byDf = [...this.#counts].sort((a, b) => b[1].sections - a[1].sections || (a[0] < b[0] ? -1 : 1));
    const broad = byDf.slice(0, 3).map(([w]) => w);
    if (broad.length < 2) throw new Error('too few words in the corpus to draw search queries from');
    broad.push(`${broad[0]} ${broad[1]}`);
    const rare = byDf.filter(([, c]) => c.sections >= 2 && c.sections <= 3).map(([w]) => w);
    if (!rare.length) throw new Error('no word of the corpus is found in two or three sections only');
    const narrow = Array.from({ length: narrowCount }, () => rare[Math.floor(rnd() * rare.length)]!);
    return { broad, narrow };
  }
}
