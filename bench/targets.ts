import { collectionById } from '#law/collections.ts';
import { WordFrequencies } from './corpus-words.ts';
import type { Target } from './results.ts';
import type { SampleDocument } from './sample-corpus.ts';
import { EDITION_DATES, prng, SYNTHETIC_TITLE, sectionText, type TextPool } from './synthetic-uslm.ts';

/**
 * What the scenarios are held to, as data: each figure that has a target carries one of these into
 * bench/results.json, and bench/render-table.ts computes met or missed from it. The headline targets are issue 30's
 * (the laptop on SQLite); the secondary scenarios keep the targets of the issues that set them.
 */
const issue30 = (of: Target['of'], op: Target['op'], bound: number): Target => ({ of, op, bound, source: 'issue 30' });
export const TARGETS = {
  /** `asof serve --no-cache --no-meter` lookups ÷ a bare node:http server answering a body of the same size. */
  lookupVsBare: issue30('ratio', '>=', 0.25),
  lookupP99SampleMs: issue30('value', '<=', 10),
  lookupP99ScaleMs: issue30('value', '<=', 15),
  meteredVsUnmetered: issue30('ratio', '>=', 0.5),
  /** A metered load must never meet a key's ceiling: its keys are spread for that. */
  meteredCeilingAnswers: { of: 'value', op: '<=', bound: 0, source: 'bench setup' } as Target,
  /** No load may end in server errors or socket errors: a fast error is no figure. */
  failedAnswers: { of: 'value', op: '<=', bound: 0, source: 'bench setup' } as Target,
  ingestVersionsPerS: issue30('value', '>=', 20_000),
  dcVersionsPerS: issue30('value', '>=', 2_000),
  /** First run ÷ the same run again with nothing changed. */
  rerunSpeedup: issue30('ratio', '>=', 20),
  serverRssMiB: issue30('value', '<=', 1024),
  startS: issue30('value', '<=', 2),
  keysCreateS: issue30('value', '<=', 1),
  keyWorksAtOnce: issue30('value', '>=', 1),
  searchP50Ms: issue30('value', '<=', 20),
  searchP99Ms: issue30('value', '<=', 100),
  citationRecall: { of: 'value', op: '>=', bound: 0.98, source: 'case-law issue' } as Target,
  citationPrecision: { of: 'value', op: '>=', bound: 0.99, source: 'case-law issue' } as Target,
  heldOutRecall: { of: 'value', op: '>=', bound: 0.998, source: 'case-law issue' } as Target,
  heldOutPrecision: { of: 'value', op: '>=', bound: 0.995, source: 'case-law issue' } as Target,
  citationMbPerS: { of: 'value', op: '>=', bound: 20, source: 'case-law issue' } as Target,
  citationVsEyecite: { of: 'ratio', op: '>=', bound: 50, source: 'case-law issue' } as Target,
  citationColdMs: { of: 'value', op: '<=', bound: 150, source: 'case-law issue' } as Target,
  resolve250P50Ms: { of: 'value', op: '<=', bound: 50, source: 'case-law issue' } as Target,
  diffP95Ms: { of: 'value', op: '<=', bound: 100, source: 'issue 19' } as Target,
  bundleKiB: { of: 'value', op: '<=', bound: 1024, source: 'AWS stack issue' } as Target,
  bundleInitMs: { of: 'value', op: '<=', bound: 150, source: 'AWS stack issue' } as Target,
} as const satisfies Record<string, Target>;

/**
 * The request pools the load runs draw from. Lookups vary key, citation form and date (a date before a section's
 * first version, or an unknown key, is a 404 no_edition_on_file: a real answer, counted and reported by status);
 * searches vary query, date and jurisdiction filter.
 */

export const lookupPath = (jurisdiction: string, citation: string, asOf: string) =>
  `/v1/law/lookup?jurisdiction=${jurisdiction}&citation=${encodeURIComponent(citation)}&asOf=${asOf}`;
export const searchPath = (q: string, asOf: string | null, jurisdiction: string | null) =>
  `/v1/law/search?q=${encodeURIComponent(q)}${asOf ? `&asOf=${asOf}` : ''}${jurisdiction ? `&jurisdiction=${jurisdiction}` : ''}`;

/** Dates spanning the sample's editions (US Code 2013 and 2022, D.C. Code 2021-2024, rules 2024-2026). */
export const SAMPLE_DATES = [
  '2012-06-01',
  '2016-01-01',
  '2021-11-01',
  '2022-06-01',
  '2023-03-01',
  '2024-04-01',
  '2024-12-15',
  '2025-06-01',
  '2026-06-01',
];

/** Every key of the sample at every date of SAMPLE_DATES; US Code keys alternate with their printed form; a few unknown keys. */
export function sampleLookupPaths(docs: readonly SampleDocument[]): string[] {
  const keys = new Map<string, { jurisdiction: string; collection: string; key: string }>();
  for (const d of docs) keys.set(`${d.jurisdiction}|${d.key}`, { jurisdiction: d.jurisdiction, collection: d.collection, key: d.key });
  const paths: string[] = [];
  for (const { jurisdiction, collection, key } of [...keys.values()].sort((a, b) => (a.key < b.key ? -1 : 1))) {
    SAMPLE_DATES.forEach((date, i) => {
      const citation = collection === 'usc' && i % 2 === 1 ? collectionById('usc').display(key) : key;
      paths.push(lookupPath(jurisdiction, citation, date));
    });
  }
  for (const [jurisdiction, key] of [
    ['us', '1-999'],
    ['dc', '22-9999'],
    ['us', 'frap-99'],
    ['nd', 'ndrappp-99'],
  ] as const) {
    for (const date of SAMPLE_DATES) paths.push(lookupPath(jurisdiction, key, date));
  }
  return paths;
}

/**
 * Lookups on the synthetic title: 85 % a random section on a random date after its first edition (200), 10 % a
 * date before it (404 with the versions on file), 5 % a section number past the end (404 with similar keys).
 */
export function syntheticLookupPaths(sections: number, count: number, seed = 7): string[] {
  const rnd = prng(seed);
  const first = Date.parse(EDITION_DATES[0]);
  const span = Date.parse('2026-06-01') - first;
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const u = rnd();
    const n = u < 0.95 ? 1 + Math.floor(rnd() * sections) : sections + 1 + Math.floor(rnd() * 1000);
    const date =
      u < 0.85 || u >= 0.95
        ? new Date(first + Math.floor(rnd() * span)).toISOString().slice(0, 10)
        : `20${10 + Math.floor(rnd() * 4)}-06-01`;
    const key = `${SYNTHETIC_TITLE}-${n}`;
    paths.push(lookupPath('us', i % 2 ? collectionById('usc').display(key) : key, date));
  }
  return paths;
}

/**
 * Search words of the synthetic title, drawn from its own text (bench/corpus-words.ts) over its first `sections`
 * sections as the last edition shows them: broad, the most widespread words; narrow, words found in two or three of
 * those sections (a few in a thousand of the whole title, whatever its size: its sentences are drawn uniformly).
 */
export function syntheticSearchWords(pool: TextPool, sections = 2000): { broad: string[]; narrow: string[] } {
  const words = new WordFrequencies();
  for (let s = 1; s <= sections; s++) {
    const text = sectionText(pool, s, EDITION_DATES.length);
    words.add(String(s), `${text.heading} ${text.subsections.flatMap((ids) => ids.map((i) => pool.sentences[i]!)).join(' ')}`);
  }
  return words.queries(prng(3));
}

/** Each word alone and filtered by date and jurisdiction: the searches of one kind (broad or narrow). */
export function syntheticSearchPool(words: readonly string[]): string[] {
  return words.flatMap((q) => [
    ...[null, '2016-01-01', '2020-06-01', '2024-05-01'].map((date) => searchPath(q, date, null)),
    searchPath(q, '2020-06-01', 'us'),
  ]);
}
