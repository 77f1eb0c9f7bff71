/**
 * Accuracy of full case citations on real opinions the extractor was not written against: the held-out half of the
 * 921 CourtListener records of `--caselaw-data` (softpot9/courtlistener-bulkdata API v3 pulls, 2017–2018), less the
 * 25 bundled ones. Halves are drawn by a hash of the opinion id (test/support/citation-forms-suite.ts `halfOf`); the
 * development half was the one searched while writing the forms, the held-out half was only ever measured.
 *
 * The key is CourtListener's own markup of each opinion (`html_with_citations`, the eyecite of 2017), without the
 * spans it marked whose page is no number (`26 U.S. C`, the U.S. Code). What we find beyond it is checked twice over:
 * an extra that the eyecite port (@beshkenadze/eyecite, 2.7) also finds at the same start counts as a citation the
 * 2017 markup missed; the rest is looked at by hand, once, and the verdict kept in bench/citation-held-out-review.json
 * (a verdict judges the key, never the patterns). An extra with no verdict counts against precision.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FoundCitation } from '#caselaw/citations/extract.ts';
import { halfOf } from '../test/support/citation-forms-suite.ts';
import { type AnswerKey, answerKeysIn, bundledAnswerKeys } from '../test/support/courtlistener-html.ts';
import { eyeciteStarts as eyeciteStartsOf } from './eyecite-port.ts';

export interface HeldOutAccuracy {
  opinions: number;
  characters: number;
  keyed: number;
  extracted: number;
  matched: number;
  /** Extras the eyecite port finds too; extras a reviewed verdict calls citations. */
  confirmedByEyecite: number;
  confirmedByReview: number;
  recall: number;
  precision: number;
  missed: string[];
  /** Extras neither confirmed nor reviewed, or reviewed as no citation. */
  wrong: string[];
}

interface Verdict {
  opinion: string;
  start: number;
  text: string;
  verdict: 'citation' | 'not-a-citation';
  why: string;
}

export interface HeldOutSet {
  keys: AnswerKey[];
  /** Per opinion, where the eyecite port starts a full case citation. */
  eyeciteStarts: Map<string, Set<number>>;
}

const REVIEW = new URL('./citation-held-out-review.json', import.meta.url);

/**
 * The held-out opinions of `dir` and the eyecite port's reading of them, in a process of its own. The port reads about
 * 0.02 MB/s (some six minutes for the set), so its starts are kept in the system's temporary directory, keyed by the
 * texts read.
 */
export async function heldOutSet(dir: string): Promise<HeldOutSet> {
  const bundled = new Set(bundledAnswerKeys().map((k) => k.id));
  const keys = answerKeysIn(dir, (id) => !bundled.has(id) && halfOf(id) === 'held-out');
  if (keys.length === 0) throw new Error(`--caselaw-data ${dir}: no CourtListener API v3 records (ID.json with its text) there`);
  const digest = createHash('sha1');
  for (const key of keys) digest.update(key.id).update(key.text);
  const cache = join(tmpdir(), `asof-eyecite-held-out-${digest.digest('hex').slice(0, 16)}.json`);
  const cached = existsSync(cache) ? (JSON.parse(readFileSync(cache, 'utf8')) as Record<string, number[]>) : undefined;
  const read = cached ?? Object.fromEntries((await eyeciteStartsOf(keys.map((k) => k.text))).map((starts, i) => [keys[i]!.id, starts]));
  if (!cached) writeFileSync(cache, JSON.stringify(read));
  return { keys, eyeciteStarts: new Map(keys.map((key) => [key.id, new Set(read[key.id] ?? [])])) };
}

export function measureHeldOut(set: HeldOutSet, extract: (text: string) => FoundCitation[]): HeldOutAccuracy {
  const verdicts = JSON.parse(readFileSync(REVIEW, 'utf8')) as { verdicts: Verdict[] };
  const verdictOf = new Map(verdicts.verdicts.map((v) => [`${v.opinion}@${v.start}:${v.text}`, v.verdict]));
  const result: HeldOutAccuracy = {
    opinions: set.keys.length,
    characters: 0,
    keyed: 0,
    extracted: 0,
    matched: 0,
    confirmedByEyecite: 0,
    confirmedByReview: 0,
    recall: 0,
    precision: 0,
    missed: [],
    wrong: [],
  };
  for (const key of set.keys) {
    result.characters += key.text.length;
    const expected = new Map(key.citations.filter((c) => /^\d+$/.test(c.page)).map((c) => [c.start, key.text.slice(c.start, c.end)]));
    const found = extract(key.text).filter((c) => c.kind === 'full' && !c.placeholder);
    const foundAt = new Map(found.map((c) => [c.start, c.text]));
    result.keyed += expected.size;
    result.extracted += found.length;
    for (const [start, text] of expected) {
      if (foundAt.get(start) === text) result.matched++;
      else result.missed.push(`${key.id}@${start} ${JSON.stringify(text)} (found ${JSON.stringify(foundAt.get(start) ?? null)})`);
    }
    const eyecite = set.eyeciteStarts.get(key.id) ?? new Set<number>();
    for (const cite of found) {
      if (expected.get(cite.start) === cite.text) continue;
      if (eyecite.has(cite.start)) {
        result.confirmedByEyecite++;
        continue;
      }
      const id = `${key.id}@${cite.start}:${cite.text}`;
      if (verdictOf.get(id) === 'citation') result.confirmedByReview++;
      else {
        const context = key.text.slice(Math.max(0, cite.start - 60), cite.end + 40).replace(/\s+/g, ' ');
        result.wrong.push(`${id}${verdictOf.has(id) ? ' (reviewed: no citation)' : ' (no verdict)'} … ${context}`);
      }
    }
  }
  result.recall = result.matched / result.keyed;
  result.precision = (result.matched + result.confirmedByEyecite + result.confirmedByReview) / result.extracted;
  return result;
}
