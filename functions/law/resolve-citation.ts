import { COLLECTIONS, type Collection, collectionsOf } from './collections.ts';
import type { Corpus } from './model.ts';

export type CitationResolution =
  /**
   * The citation names this key of this collection of the asked jurisdiction. `pinpoint`: what a printed form gave
   * after the number (`(a)(7)` of `Fed. R. App. P. 32(a)(7)`), or null.
   */
  | { kind: 'key'; collection: Collection; key: string; pinpoint: string | null }
  /** A printed form of another jurisdiction's collection (e.g. a U.S.C. cite asked of `dc`). */
  | { kind: 'foreign'; collection: Collection; key: string }
  /** Nothing we can read as a citation of this jurisdiction. */
  | { kind: 'unrecognised' };

/**
 * Read the `citation` parameter: a canonical key (`28-1291`, `22-404.05`, `frap-32`) or a common printed form
 * (`28 U.S.C. § 1291`, `28 USC 1291`, `D.C. Code § 22-404.05`, `Fed. R. App. P. 32(a)(7)`), within `jurisdiction`
 * and, when given, `corpus`. Printed forms win over bare keys because they name their collection.
 */
export function resolveCitation(jurisdiction: string, citation: string, corpus?: Corpus): CitationResolution {
  const candidates = collectionsOf(jurisdiction, corpus);
  const printed = readPrinted(citation, candidates);
  if (printed) return { kind: 'key', ...printed, pinpoint: pinpointOf(citation) };
  for (const collection of candidates) {
    const key = collection.normalizeKey(citation);
    if (key) return { kind: 'key', collection, key, pinpoint: null };
  }
  const foreign = readPrinted(
    citation,
    COLLECTIONS.filter((c) => c.jurisdiction !== jurisdiction),
  );
  return foreign ? { kind: 'foreign', ...foreign } : { kind: 'unrecognised' };
}

/** The first of `collections` whose printed form `citation` is, with the key it names; null when none reads it. */
export function readPrinted(
  citation: string,
  collections: readonly Collection[] = COLLECTIONS,
): { collection: Collection; key: string } | null {
  for (const collection of collections) {
    const key = collection.parsePrinted(citation);
    if (key) return { collection, key };
  }
  return null;
}

/** Every printed form reads its number up to the first "(": what follows is the pinpoint. */
function pinpointOf(citation: string): string | null {
  const at = citation.indexOf('(');
  const tail = at < 0 ? '' : citation.slice(at).trim();
  return tail === '' ? null : tail;
}
