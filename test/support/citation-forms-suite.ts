/**
 * A suite of citation forms: every example citation reporters-db gives for its reporters (`examples` in
 * reporters.json, written by its maintainers to test their own patterns), each set in a sentence of its own. A form
 * counts as found when the extractor gives exactly the example's span as a full case citation; anything else it calls
 * a full case citation in the suite is an extra.
 *
 * The examples are split in two by a hash of the citation: the extractor's forms were compiled from reporters-db's
 * patterns, not from these examples, and only the `development` half was looked at, example by example, while fixing
 * the compilation; the `held-out` half is measured and never read.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FoundCitation } from '#caselaw/citations/extract.ts';

export interface FormExample {
  reporter: string;
  citation: string;
  kind: FormKind;
}

export type FormKind =
  | 'standard'
  | 'nominative'
  | 'year in the volume or before the page'
  | 'paragraph (CCH ¶, par.)'
  | 'format-neutral (year-reporter-page)'
  | 'page with a letter suffix'
  | 'roman-numeral page'
  | 'no volume';

export interface FormAccuracy {
  kind: string;
  examples: number;
  matched: number;
  extracted: number;
  recall: number;
  precision: number;
  missed: string[];
  extra: string[];
}

const PREFIX = 'See Smith v. Jones, ';
const SUFFIX = ' (1990).';
const ROMAN_PAGE = /\s[ivxlc]+$/;

function kindOf(citation: string): FormKind {
  if (/¶|\bpar\.|\bP \d/.test(citation)) return 'paragraph (CCH ¶, par.)';
  if (/^\d{4}-[A-Za-z]/.test(citation)) return 'format-neutral (year-reporter-page)';
  if (!/^\d/.test(citation)) return 'no volume';
  if (ROMAN_PAGE.test(citation)) return 'roman-numeral page';
  if (/\((?:1[6-9]|20)\d\d,?\)/.test(citation)) return 'year in the volume or before the page';
  if (/\(\d* ?[A-Z][^)]*\)\s*\d+$/.test(citation)) return 'nominative';
  if (/\d[A-Za-z]$|\d-[A-Z]$|[[(][A-Z][\])]$/.test(citation)) return 'page with a letter suffix';
  return 'standard';
}

/** reporters-db's examples, each once, from the carried reporters.json. */
export type Half = 'development' | 'held-out' | 'all';

/** Which half a citation falls in: the first hex digit of its SHA-1, 0–7 held out. */
export function halfOf(id: string): Exclude<Half, 'all'> {
  return Number.parseInt(createHash('sha1').update(id).digest('hex')[0]!, 16) < 8 ? 'held-out' : 'development';
}

export function formExamples(half: Half = 'all'): FormExample[] {
  const path = new URL('../../layers/reporters-db/reporters.json', import.meta.url);
  const reporters = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Array<{ examples?: string[] }>>;
  const seen = new Set<string>();
  const out: FormExample[] = [];
  for (const [reporter, family] of Object.entries(reporters)) {
    for (const citation of family.flatMap((r) => r.examples ?? [])) {
      if (seen.has(citation) || (half !== 'all' && halfOf(citation) !== half)) continue;
      seen.add(citation);
      out.push({ reporter, citation, kind: kindOf(citation) });
    }
  }
  return out;
}

/** The suite's sentences of one kind (or all), end to end: what the throughput per kind is measured on. */
export function formText(examples: readonly FormExample[]): string {
  return examples.map((e) => `${PREFIX}${e.citation}${SUFFIX}`).join(' ');
}

/** Recall and precision on each kind of form, and over all of them (kind `all`). */
export function measureForms(extract: (text: string) => FoundCitation[], examples = formExamples()): FormAccuracy[] {
  const byKind = new Map<string, FormAccuracy>();
  const tally = (kind: string) => {
    let a = byKind.get(kind);
    if (!a) {
      a = { kind, examples: 0, matched: 0, extracted: 0, recall: 0, precision: 0, missed: [], extra: [] };
      byKind.set(kind, a);
    }
    return a;
  };
  for (const example of examples) {
    const sentence = `${PREFIX}${example.citation}${SUFFIX}`;
    const found = extract(sentence).filter((c) => c.kind === 'full');
    const hit = found.some((c) => c.start === PREFIX.length && c.text === example.citation);
    for (const a of [tally(example.kind), tally('all')]) {
      a.examples++;
      a.extracted += found.length;
      if (hit) a.matched++;
      else a.missed.push(example.citation);
      for (const c of found)
        if (!(hit && c.start === PREFIX.length && c.text === example.citation)) a.extra.push(`${example.citation} → ${c.text}`);
    }
  }
  for (const a of byKind.values()) {
    a.recall = a.matched / a.examples;
    a.precision = a.extracted === 0 ? 1 : a.matched / a.extracted;
  }
  return [...byKind.values()].sort((a, b) => (a.kind === 'all' ? 1 : b.kind === 'all' ? -1 : b.examples - a.examples));
}
