import { AppError } from '#shared/errors.ts';
import { thousands } from '#shared/thousands.ts';
import type { Corpus } from './model.ts';
import type { SearchHit, SearchIndex, VersionStore } from './ports.ts';

const SEARCH_LIMIT_DEFAULT = 10;
const SEARCH_LIMIT_MAX = 50;

/**
 * Bounds on `q` that keep one search's work bounded: a search costs about one pass over the matching versions per
 * term (docs/DECISIONS.md, "Search"), and an AND of more terms than this matches next to nothing anyway.
 */
export const QUERY_MAX_CHARS = 1_000;
export const QUERY_MAX_WORDS = 32;

/** The words of `q` as the limit counts them: runs of letters and digits (`U.S.C.` is three, `self-defense` two). */
export const queryWordCount = (q: string): number => q.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

/** Why `q` is over the limits (the 400's message), or null when it is within them. */
export function queryTooLong(q: string): string | null {
  const words = queryWordCount(q);
  if (q.length <= QUERY_MAX_CHARS && words <= QUERY_MAX_WORDS) return null;
  const got = q.length > QUERY_MAX_CHARS ? `${thousands(q.length)} characters` : `${thousands(words)} words`;
  return `q is too long: at most ${QUERY_MAX_WORDS} words and ${thousands(QUERY_MAX_CHARS)} characters (got ${got}).`;
}

export interface SearchParams {
  q: string;
  /** Raw parameter: one jurisdiction, a comma list, `all`, or absent (= all). */
  jurisdiction?: string;
  corpus?: Corpus;
  asOf: string;
  /** Already validated as a positive integer; clamped here. */
  limit?: number;
}

/** `all` or absent → every jurisdiction (null); otherwise the distinct lowercase codes of the list. */
function parseJurisdictions(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const codes = [
    ...new Set(
      raw
        .split(',')
        .map((j) => j.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (codes.length === 0 || codes.includes('all')) return null;
  return codes;
}

/**
 * Ranked lexical search over the versions in force on `asOf`; every term must match. A single named jurisdiction
 * that holds nothing of the corpus is a 404, so an empty list always means "carried, but nothing matched".
 */
export async function searchLaw(index: SearchIndex, store: VersionStore, params: SearchParams): Promise<SearchHit[]> {
  const tooLong = queryTooLong(params.q);
  if (tooLong) throw new AppError('query_too_long', tooLong);
  const jurisdictions = parseJurisdictions(params.jurisdiction);
  const isSingle = jurisdictions?.length === 1 && !params.jurisdiction!.includes(',');
  if (isSingle && !(await store.carries(jurisdictions[0]!, params.corpus))) {
    const what = params.corpus ? `the ${params.corpus} corpus` : 'any corpus';
    throw new AppError(
      'not_carried',
      `Nothing of ${what} is carried for jurisdiction '${jurisdictions[0]}'. See /law/coverage for what is.`,
    );
  }
  return index.search({
    q: params.q,
    jurisdictions,
    corpus: params.corpus ?? null,
    asOf: params.asOf,
    limit: Math.min(params.limit ?? SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX),
  });
}
