/**
 * Recall and precision of the extractor's full case citations on the bundled opinions, against CourtListener's
 * markup (test/support/courtlistener-html.ts) as it is and with the hand-reviewed corrections of
 * answer-key-review.json. A citation counts as found when the extractor gives exactly its span.
 */
import { readFileSync } from 'node:fs';
import type { FoundCitation } from '#caselaw/citations/extract.ts';
import { type AnswerKey, bundledAnswerKeys } from './courtlistener-html.ts';

interface Correction {
  opinion: string;
  start: number;
  text: string;
  verdict: 'citation' | 'not-a-citation';
  why: string;
}

export interface Accuracy {
  opinions: number;
  keyed: number;
  extracted: number;
  matched: number;
  recall: number;
  precision: number;
  /** Spans the key marks that the extractor did not give, and the other way round. */
  missed: Array<{ opinion: string; start: number; text: string }>;
  extra: Array<{ opinion: string; start: number; text: string }>;
}

const review = JSON.parse(readFileSync(new URL('./answer-key-review.json', import.meta.url), 'utf8')) as { corrections: Correction[] };

function spansOf(key: AnswerKey, reviewed: boolean): Map<number, string> {
  const spans = new Map(key.citations.map((c) => [c.start, key.text.slice(c.start, c.end)]));
  if (!reviewed) return spans;
  for (const c of review.corrections) {
    if (c.opinion !== key.id) continue;
    if (c.verdict === 'citation') spans.set(c.start, c.text);
    else spans.delete(c.start);
  }
  return spans;
}

/** On `keys` (the bundled opinions by default); `reviewed` applies the corrections, which name bundled opinions only. */
export function measureAccuracy(
  extract: (text: string) => FoundCitation[],
  reviewed: boolean,
  keys: readonly AnswerKey[] = bundledAnswerKeys(),
): Accuracy {
  const result: Accuracy = { opinions: keys.length, keyed: 0, extracted: 0, matched: 0, recall: 0, precision: 0, missed: [], extra: [] };
  for (const key of keys) {
    const expected = spansOf(key, reviewed);
    const found = new Map(
      extract(key.text)
        .filter((c) => c.kind === 'full')
        .map((c) => [c.start, c.text]),
    );
    result.keyed += expected.size;
    result.extracted += found.size;
    for (const [start, text] of expected) {
      if (found.get(start) === text) result.matched++;
      else result.missed.push({ opinion: key.id, start, text });
    }
    for (const [start, text] of found) if (expected.get(start) !== text) result.extra.push({ opinion: key.id, start, text });
  }
  result.recall = result.matched / result.keyed;
  result.precision = result.matched / result.extracted;
  return result;
}
