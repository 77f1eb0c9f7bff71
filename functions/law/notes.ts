import type { SectionVersion, TemporalBasis } from './model.ts';

/** The service's own note on each temporal basis: what a validFrom of that kind does and does not claim. */
const BASIS_NOTES: Record<TemporalBasis, string | null> = {
  'effective-date': null,
  'compiled-edition':
    'validFrom is the date of the compiled edition in which this text first appeared; the text may have taken legal effect earlier.',
  'publication-date': 'validFrom is the date this text was published; its legal effect may differ.',
  'retrieval-date':
    'validFrom is the date this text was retrieved from the source; it may have been in force earlier, but no earlier text is on file.',
};

export const DISCLAIMER =
  'Unofficial copy of government-published law, for research. Verify against the official source (provenance.sourceUrl) before relying on it.';

/** The `note` a response carries: the basis note, then any note the source connector attached to this version. */
export function serviceNote(v: Pick<SectionVersion, 'temporalBasis' | 'note'>): string | null {
  const parts = [BASIS_NOTES[v.temporalBasis], v.note].filter((p): p is string => !!p);
  return parts.length ? parts.join(' ') : null;
}
