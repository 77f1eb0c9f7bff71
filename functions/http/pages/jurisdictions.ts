import type { CoverageRecord } from '#ops/ports.ts';
import type { JurisdictionChoice } from './forms.ts';
import type { PageServices } from './page.ts';

/** The jurisdictions carried, from coverage records: each code once, named by its collections. */
export function jurisdictionChoices(records: readonly CoverageRecord[]): JurisdictionChoice[] {
  const names = new Map<string, string[]>();
  for (const r of records) names.set(r.jurisdiction, [...(names.get(r.jurisdiction) ?? []), r.name]);
  return [...names]
    .map(([code, list]) => ({ code, name: list.length > 2 ? `${list[0]} and ${list.length - 1} more collections` : list.join(' and ') }))
    .sort((a, b) => a.code.localeCompare(b.code));
}

/** Coverage as a page reads it: the records, or null when the deployment gives none or it cannot be read now. */
export async function readCoverage(services: PageServices): Promise<CoverageRecord[] | null> {
  if (!services.coverage) return null;
  try {
    return (await services.coverage.read({})).coverage;
  } catch {
    return null;
  }
}
