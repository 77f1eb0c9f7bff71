/**
 * Is it the case the text names? (functions/caselaw/case-names.ts) measured on the real CourtListener opinions of
 * `--caselaw-data`. CourtListener's `html_with_citations` links each citation it resolved to the cluster it resolved
 * it to (`<a href="/opinion/118359/slack-v-mcdaniel/">`): for each linked citation (a parallel group once), the name
 * the extractor reads before it — as parseRequest's `namedAs` does — is scored against that case's names: the
 * cluster's names where the repository or `--caselaw-data` carries the cluster, else the link's slug (CourtListener's
 * case name, lower-cased, punctuation dropped, cut at 75 characters or so). A real name should match.
 *
 * Swapped: each name against every other case linked in the same opinion, the names as an LLM might misattach them.
 * Pairs whose two cases CourtListener names alike (the same slug: one case under two clusters, or two cases of one
 * name such as `united-states-v-jones`) are counted apart: no name can tell them apart. A swapped name should not match.
 *
 * Halves as bench/citation-held-out.ts draws them (by a hash of the opinion id; the 25 bundled opinions are
 * development): the development half was read while tuning the reading and the scoring, the held-out half only
 * measured. Misses judged by hand to be the text naming another case than the one linked (or naming none) are kept
 * in bench/case-name-review.json and counted apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClusterNames, caseNameScore, MATCH_AT } from '#caselaw/case-names.ts';
import { extractCitations } from '#caselaw/citations/extract.ts';
import { namedBefore } from '#caselaw/resolve.ts';
import { type ApiV3Record, rowsFromApiV3 } from '#ingest/courtlistener-api.ts';
import { halfOf } from '../test/support/citation-forms-suite.ts';
import { answerKeysIn, bundledAnswerKeys } from '../test/support/courtlistener-html.ts';
import { REPO } from './proc.ts';

export type NameHalf = 'development' | 'held-out';

export interface CaseNameHalfFigure {
  opinions: number;
  /** Linked citations (parallel groups once) the extractor finds, and those with a name read before them. */
  linked: number;
  named: number;
  /** Named citations scored against the cluster's own names, and against the link's slug. */
  byCluster: { named: number; matched: number };
  bySlug: { named: number; matched: number };
  /**
   * Misses against a slug CourtListener cut (a name over 75 characters; the slug is 50 or more) whose part that is
   * there agrees with the name: the rest of the cited case's name is not known, so they are counted apart.
   */
  slugCut: number;
  /**
   * Misses against a slug that is no case name: CourtListener named the case by its docket number (`no-94-1259`) or
   * began the name with a loose-leaf reporter's citation (`65-fair-emplpraccas-bna-941-…`). Counted apart.
   */
  slugNoName: number;
  /** Misses judged to be the text naming another case than the one linked: not errors of the check. */
  trueMismatches: number;
  /** matched / (named − slugCut − slugNoName − trueMismatches). */
  matchRate: number;
  /** Swapped pairs; those of one case under two clusters or the same parties (the same slug, or reviewed) apart. */
  swapped: { pairs: number; matched: number; rate: number; sameName: number };
  misses: string[];
  swappedMatches: string[];
}

export interface CaseNameFigure {
  threshold: number;
  development: CaseNameHalfFigure;
  heldOut: CaseNameHalfFigure;
}

interface Review {
  /** `opinion@start` of the citation → why the text names another case than the one linked. */
  mismatches: Record<string, string>;
  /** `slug|slug` (in code-unit order) → why the two linked cases are one case or the same parties. */
  sameParties: Record<string, string>;
}

const REVIEW = new URL('./case-name-review.json', import.meta.url);

/** CourtListener's name for a case as its link slug spells it: `slack-v-mcdaniel` → `slack v. mcdaniel`. */
export function slugName(slug: string): string {
  return slug.replace(/-v-/, ' v. ').replace(/-/g, ' ');
}

const VERSUS = /\s+(?:v\.?|vs\.?)\s+/i;

/**
 * A slug of 50 characters or more may be CourtListener's name cut at 75 characters (`robert-l-williamson-liberty-
 * mutual-insurance-company-intervenor-v`). What it still shows must agree with the name: the first party, against
 * the slug's first party (or the whole slug when the cut took the versus).
 */
function cutAgrees(name: string, slug: string): boolean {
  if (slug.length < 50) return false;
  const [first] = name.split(VERSUS);
  const [slugFirst] = slugName(slug).split(' v. ');
  if (!first || !slugFirst) return false;
  const named = (caseName: string) => ({ caseName, caseNameShort: '', caseNameFull: '' });
  return caseNameScore(first, named(slugFirst)) >= MATCH_AT;
}

/** The names of every cluster the repository and `dir` carry, by cluster id. */
function carriedClusters(dir: string): Map<number, ClusterNames> {
  const records: ApiV3Record[] = [
    ...readFileSync(join(REPO, 'data', 'sample', 'caselaw', 'courtlistener-records.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as ApiV3Record),
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ApiV3Record),
  ];
  const out = new Map<number, ClusterNames>();
  for (const record of records) {
    const [c] = rowsFromApiV3(record).batch.clusters;
    if (c) out.set(c.id, { caseName: c.caseName, caseNameShort: c.caseNameShort, caseNameFull: c.caseNameFull });
  }
  return out;
}

interface Named {
  opinion: string;
  start: number;
  name: string;
  clusterId: number;
  slug: string;
  target: ClusterNames;
  byCluster: boolean;
}

function emptyHalf(): CaseNameHalfFigure {
  return {
    opinions: 0,
    linked: 0,
    named: 0,
    byCluster: { named: 0, matched: 0 },
    bySlug: { named: 0, matched: 0 },
    slugCut: 0,
    slugNoName: 0,
    trueMismatches: 0,
    matchRate: 0,
    swapped: { pairs: 0, matched: 0, rate: 0, sameName: 0 },
    misses: [],
    swappedMatches: [],
  };
}

export function measureCaseNames(dir: string): CaseNameFigure {
  const bundled = new Set(bundledAnswerKeys().map((k) => k.id));
  const halfOfOpinion = (id: string): NameHalf => (bundled.has(id) ? 'development' : halfOf(id));
  const clusters = carriedClusters(dir);
  const review = JSON.parse(readFileSync(REVIEW, 'utf8')) as Review;
  const figures = { development: emptyHalf(), 'held-out': emptyHalf() };
  for (const key of answerKeysIn(dir)) {
    const f = figures[halfOfOpinion(key.id)];
    f.opinions++;
    const found = extractCitations(key.text);
    const at = new Map(found.map((c, i) => [c.start, i]));
    const names: Named[] = [];
    const seen = new Set<string>();
    for (const cite of key.citations) {
      if (cite.clusterId === undefined || cite.slug === undefined) continue;
      const index = at.get(cite.start);
      if (index === undefined || found[index]!.kind !== 'full') continue;
      const head = found[index]!.parallelTo ?? index;
      const group = `${found[head]!.start}:${cite.clusterId}`;
      if (seen.has(group)) continue;
      seen.add(group);
      f.linked++;
      const named = namedBefore(key.text, found, index);
      if (!named) continue;
      const carried = clusters.get(cite.clusterId);
      const target = carried ?? { caseName: slugName(cite.slug), caseNameShort: '', caseNameFull: '' };
      names.push({
        opinion: key.id,
        start: cite.start,
        name: named.name,
        clusterId: cite.clusterId,
        slug: cite.slug,
        target,
        byCluster: carried !== undefined,
      });
    }
    for (const n of names) {
      f.named++;
      const bucket = n.byCluster ? f.byCluster : f.bySlug;
      bucket.named++;
      const score = caseNameScore(n.name, n.target);
      if (score >= MATCH_AT) {
        bucket.matched++;
        continue;
      }
      const id = `${n.opinion}@${n.start}`;
      if (review.mismatches[id]) f.trueMismatches++;
      else if (!n.byCluster && /^(?:\d|no-\d)|(?:^|-)p-\d{3,}-/.test(n.slug)) f.slugNoName++;
      else if (!n.byCluster && cutAgrees(n.name, n.slug)) f.slugCut++;
      else {
        const context = key.text.slice(Math.max(0, n.start - 90), n.start + 20).replace(/\s+/g, ' ');
        f.misses.push(
          `${id} ${score.toFixed(2)} ${JSON.stringify(n.name)} vs ${n.byCluster ? JSON.stringify(n.target.caseName) : n.slug} … ${context}`,
        );
      }
    }
    for (const n of names) {
      // A name the text gives another case than the one linked is no swap.
      if (review.mismatches[`${n.opinion}@${n.start}`]) continue;
      for (const other of new Map(names.map((o) => [o.clusterId, o])).values()) {
        if (other.clusterId === n.clusterId) continue;
        if (other.slug === n.slug || review.sameParties[[n.slug, other.slug].sort().join('|')]) {
          f.swapped.sameName++;
          continue;
        }
        f.swapped.pairs++;
        const score = caseNameScore(n.name, other.target);
        if (score >= MATCH_AT) {
          f.swapped.matched++;
          f.swappedMatches.push(`${n.opinion}@${n.start} ${score.toFixed(2)} ${JSON.stringify(n.name)} (${n.slug}) vs ${other.slug}`);
        }
      }
    }
  }
  for (const f of Object.values(figures)) {
    f.matchRate = (f.byCluster.matched + f.bySlug.matched) / Math.max(1, f.named - f.trueMismatches - f.slugCut - f.slugNoName);
    f.swapped.rate = f.swapped.matched / Math.max(1, f.swapped.pairs);
  }
  return { threshold: MATCH_AT, development: figures.development, heldOut: figures['held-out'] };
}
