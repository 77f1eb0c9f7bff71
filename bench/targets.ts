import { collectionById } from '#law/collections.ts';
import type { SampleDocument } from './sample-corpus.ts';
import { EDITION_DATES, prng, SYNTHETIC_TITLE } from './synthetic-uslm.ts';

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

/** The date on which bench/search-matches.ts counts what each query has to rank (synthetic edition 3 and current FRAP in force). */
export const MATCHES_AS_OF = '2025-06-01';

export const SEARCH_QUERIES = [
  'strangulation',
  'brief cover',
  'international agreement',
  'Government Publishing Office',
  'notice of appeal',
  'Secretary of State',
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

export function sampleSearchPaths(): string[] {
  const paths: string[] = [];
  for (const q of SEARCH_QUERIES) {
    for (const date of [null, '2014-01-01', '2022-06-01', '2024-05-01', '2025-06-01']) paths.push(searchPath(q, date, null));
    paths.push(searchPath(q, '2024-05-01', 'dc'), searchPath(q, '2025-06-01', 'us'));
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

export function syntheticSearchPaths(): string[] {
  const paths: string[] = [];
  for (const q of SEARCH_QUERIES) {
    for (const date of [null, '2016-01-01', '2020-06-01', '2024-05-01']) paths.push(searchPath(q, date, null));
    paths.push(searchPath(q, '2020-06-01', 'us'));
  }
  return paths;
}
