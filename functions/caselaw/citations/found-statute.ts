import type { Corpus } from '#law/model.ts';

/** A statute or court-rule citation found in running text (statutes.ts, codes-not-carried.ts). */
export interface FoundStatute {
  /** [start, end) in UTF-16 code units. */
  start: number;
  end: number;
  /** As printed (`text.slice(start, end)`). */
  text: string;
  /** The collection's jurisdiction, or the state the code's abbreviation names (`ma`). */
  jurisdiction: string;
  /** The carried collection (`usc`, `dc-code`, `frap`, `tn-code`…); null for a code not carried. */
  collection: string | null;
  corpus: Corpus;
  /** The collection's key (`28-1291`); null for a code not carried. */
  key: string | null;
  /** `(a)(7)` of `Fed. R. App. P. 32(a)(7)`; null when none. */
  pinpoint: string | null;
  /** The citation in the collection's display form (with the pinpoint), or reporters-db's for a code not carried. */
  normalized: string;
}
