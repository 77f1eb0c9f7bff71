import { AppError } from '#shared/errors.ts';
import type { Corpus } from './model.ts';
import type { SearchHit, SearchIndex, VersionStore } from './ports.ts';

export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;

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
export function parseJurisdictions(raw: string | undefined): string[] | null {
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
