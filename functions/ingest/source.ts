import type { Horizon } from '#law/history.ts';
import type { SectionStatus, TemporalBasis } from '#law/model.ts';
import type { EditionScope, SkippedSection } from '#law/ports.ts';

/** One section as one edition of a source shows it, already reduced to the text we store. */
export interface SourceDocument {
  /** Canonical citation key within the collection (e.g. `1-112b`, `22-404.05`, `frap-32`). */
  key: string;
  catchline: string;
  /** Normalized with normalizeText(); the version's identity is computed from it. */
  bodyText: string;
  historyNote: string;
  status: SectionStatus;
  /** Citation parts beyond what the key gives (e.g. `chapter`). */
  parts: Record<string, string>;
  /** The service's own note on this version, if the source needs one (e.g. a stated expiry). */
  note?: string | null;
}

/** One edition of one collection, as a source connector reads it. */
export interface SourceEdition {
  /** Collection id from functions/law/collections.ts. */
  collection: string;
  /** Local calendar date (YYYY-MM-DD) the edition speaks from: its validFrom for texts it shows first. */
  date: string;
  /** Provenance versionLabel, e.g. the release point `117-80` or `2024-03-18`. */
  label: string;
  temporalBasis: TemporalBasis;
  /** ISO timestamp the bytes were retrieved from the source. */
  retrievedAt: string;
  /** Keys this edition speaks for: a covered key without a document is absent from this edition. */
  scope: EditionScope;
  /** File(s) read, for the edition record. */
  source: string;
  /** The publisher's address of the bytes read (see EditionRecord.sourceUrl). */
  sourceUrl?: string;
  /**
   * What the edition's text is known to speak for, [from, until) around `date`, when the source bounds it (the
   * federal rules change only on December 1). Without one, a text runs until the next edition, however far.
   */
  horizon?: Horizon;
  documents: AsyncIterable<SourceDocument> | Iterable<SourceDocument>;
  /**
   * What identifies the documents (and skipped sections) of the last complete reading of `documents`, or, before one,
   * of a reading now: equal fingerprints give equal readings (functions/ingest/source-fingerprint.ts). Null or left
   * out: the source cannot tell, and is read every time.
   */
  fingerprint?: () => Promise<string | null>;
  /** The sections the last complete reading of `documents` skipped (a reader that never skips leaves this out). */
  skipped?: () => readonly SkippedSection[];
}
