import type { Horizon, Observation } from './history.ts';
import type { Citation, Corpus, Provenance, SectionRef, SectionStatus, SectionVersion, TemporalBasis, VersionSummary } from './model.ts';

/** What an edition covers: every key with a prefix (a whole title or rule set), or exactly these keys. */
export type EditionScope = { kind: 'prefix'; prefix: string } | { kind: 'keys'; keys: string[] };

/** One ingested edition of a collection: the provenance its observations share. */
export interface EditionRecord {
  /** Stable id: collection, date and scope. */
  id: string;
  collection: string;
  /** Local calendar date the edition speaks from. */
  date: string;
  label: string;
  temporalBasis: TemporalBasis;
  sourceSystem: string;
  retrievedAt: string;
  scope: EditionScope;
  /** File(s) it was read from, as given to the ingest. */
  source: string;
  /**
   * The publisher's address of what this edition was read from (e.g. OLRC's zip of that title at that release point).
   * Versions starting at this edition name it as their `sourceUrl`; without it, the collection's per-key address.
   */
  sourceUrl?: string;
  /** What the edition's text is known to speak for, when the source bounds it (see history.ts): its versions end there. */
  horizon?: Horizon;
  documents: number;
  ingestedAt: string;
  /** Sections the source shows that the reader could not read (the rest of the edition was read); absent when none. */
  skipped?: { count: number; sample: SkippedSection[] };
  /**
   * Set only by the last write of an ingest that completed: a digest of what the edition showed (each key and its
   * text identity, in order). A later ingest of the same edition that reads the same digest changes nothing and is
   * skipped; an ingest that starts rewrites the record without it, so an edition cut off midway is never skipped.
   */
  completeDigest?: string;
  /**
   * Set with completeDigest when the source fingerprints what it reads (the file's bytes and the reader's code, see
   * functions/ingest/source-fingerprint.ts): a later ingest whose source has the same fingerprint skips the edition
   * unread.
   */
  sourceFingerprint?: string;
}

/** A section of a source that an ingest skipped, and why. */
export interface SkippedSection {
  /** What the source names it by: its identifier, else its number, else its element's id. */
  where: string;
  /** A short code (`unreadable-identifier`, `duplicate-key` …) and what it means here. */
  reason: string;
  detail: string;
  /** The key it would have, when that much could be read: the edition then neither shows nor drops that key. */
  key?: string;
}

/** A key's observations across editions, plus a summary of the versions they imply (coverage reads only these). */
export interface KeyHistory {
  jurisdiction: string;
  corpus: Corpus;
  key: string;
  collection: string;
  observations: Observation[];
  /** Optimistic concurrency: the stored revision; 0 for a history not yet stored. */
  rev: number;
  summary: {
    versions: number;
    /** validFrom of the first version, or null when the key has none. */
    firstValidFrom: string | null;
    latestVersionLabel: string | null;
    lastRetrievedAt: string | null;
  };
}

/** A key beside another in key order, with the summary of its history. */
export interface NearbyKey {
  key: string;
  summary: KeyHistory['summary'];
}

/**
 * Writes the ingest engine sends in one phase: independent of each other (the ingest sends at most one per key in a
 * phase), so an adapter may batch them; two writes of one version are still applied in the order given.
 */
export type StoreWrite =
  | { kind: 'put'; version: SectionVersion }
  | { kind: 'setValidTo'; ref: SectionRef; validFrom: string; validTo: string }
  | { kind: 'delete'; ref: SectionRef; validFrom: string };

/**
 * What a lookup reads of the law (the read path of a request): each call is a bounded read by key whatever the corpus
 * holds (a point read, one key's versions, or `limit` keys), and sees every write a call of the store completed
 * before it began.
 */
export interface VersionReads {
  /** The version in force on `date` (YYYY-MM-DD): the latest whose validFrom's local date ≤ date, if date < its validTo's local date. */
  findInForce(ref: SectionRef, date: string): Promise<SectionVersion | null>;
  /** All versions of one key, oldest first, without texts. */
  listVersions(ref: SectionRef): Promise<VersionSummary[]>;
  /** One version by its exact validFrom timestamp. */
  getVersion(ref: SectionRef, validFrom: string): Promise<SectionVersion | null>;
  /** The versions (without texts) at these exact validFrom timestamps, in the order asked, in one read or a few; null where none. */
  getSummaries(wanted: readonly { ref: SectionRef; validFrom: string }[]): Promise<(VersionSummary | null)[]>;
  /**
   * Up to `limit` keys of the corpus (jurisdiction and corpus) nearest `key` in key order, excluding `key` itself
   * (stored or not), in key order: taken alternately from either side, nearest first, a side that runs out leaving
   * its share to the other. Keys are the keys with a history, ordered as their UTF-8 bytes.
   */
  nearbyKeys(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<string[]>;
  /** The keys nearbyKeys answers, in its order, each with its history's summary (read with the keys, no more reads). */
  nearbyKeySummaries(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<NearbyKey[]>;
  /** Does the store hold the history of any key of this corpus (any corpus when omitted) for this jurisdiction? */
  carries(jurisdiction: string, corpus?: Corpus): Promise<boolean>;
  /** Throws StoreUnavailableError when the store cannot be reached. */
  ping(): Promise<void>;
}

/**
 * Section versions, their keys' histories and the editions they were read from: the reads of a lookup, plus what the
 * ingest reads and writes and the whole-store jobs scan. What every adapter guarantees (test/contract/
 * version-store.contract.ts checks each):
 * - each history write is conditional on its revision (optimistic concurrency): of several writers holding one
 *   revision exactly one wins, the others get ConcurrentUpdateError (putHistory) or their key back (putHistories);
 * - a history is at most DynamoDB's 400 KB item limit as DynamoDB counts it, in every adapter: one over it is refused
 *   by name before anything of the call is written, so that every adapter takes the same histories;
 * - applyWrites applies its writes in the order given: two writes of one version take effect in that order;
 * - nothing is promised across calls: a version's writes and its key's history are separate calls, which the ingest
 *   orders (versions first, the history last) so that a run cut off between them is completed by the next.
 * Where the store has transactions (SQLite), a call is also atomic: all of its writes or none.
 */
export interface VersionStore extends VersionReads {
  getHistories(jurisdiction: string, corpus: Corpus, keys: readonly string[]): Promise<Map<string, KeyHistory>>;
  historiesWithPrefix(jurisdiction: string, corpus: Corpus, prefix: string): AsyncIterable<KeyHistory>;
  /**
   * Stores `history` at rev = history.rev + 1 if the stored rev is still history.rev (rev 0: only if the key has no
   * history yet); else ConcurrentUpdateError, and nothing is written.
   */
  putHistory(history: KeyHistory): Promise<void>;
  /**
   * Stores each history as putHistory does, several at a time; returns the keys of those whose stored rev was no
   * longer history.rev (nothing of theirs is written) and writes every other. A history over the limit is refused
   * before anything is written; after any other failure each history is written whole or not at all.
   */
  putHistories(histories: readonly KeyHistory[]): Promise<string[]>;
  /**
   * Puts (replacing a version at the same validFrom), re-dates (setValidTo, changing nothing else) and deletes
   * (idempotent) versions, in order. A setValidTo of a version that is not stored fails the call naming it and creates
   * nothing; the call's other writes may have been applied where the store cannot undo them (DynamoDB).
   */
  applyWrites(writes: readonly StoreWrite[]): Promise<void>;
  /** Stores an edition's record, replacing the one of the same collection, date and id. */
  putEdition(edition: EditionRecord): Promise<void>;
  /** A collection's edition records, by date. */
  listEditions(collection: string): Promise<EditionRecord[]>;

  /** Every history of the collections in the catalog (functions/law/collections.ts), bounded memory. */
  scanHistories(): AsyncIterable<KeyHistory>;
  /** Every version, bounded memory. */
  scanVersions(): AsyncIterable<SectionVersion>;
}

/** A version as the search index holds it. */
export interface SearchDocument {
  /** `jurisdiction#corpus#key#validFrom`. */
  id: string;
  citation: Citation;
  catchline: string;
  bodyText: string;
  status: SectionStatus;
  temporalBasis: TemporalBasis;
  provenance: Provenance;
  validFrom: string;
  validTo: string;
}

export interface SearchQuery {
  /** The user's keywords; every term must match (AND). */
  q: string;
  /** null = every jurisdiction. */
  jurisdictions: string[] | null;
  corpus: Corpus | null;
  /** Only versions in force on this date (YYYY-MM-DD). */
  asOf: string;
  limit: number;
}

export interface SearchHit {
  citation: Citation;
  catchline: string;
  /** HTML-safe excerpt: text escaped, matched terms wrapped in <b>…</b>, no other markup. */
  snippet: string;
  status: SectionStatus;
  temporalBasis: TemporalBasis;
  versionLabel: string;
  provenance: Provenance;
}

/** Ranked full-text search over versions, filtered by validity. */
export interface SearchIndex {
  upsert(docs: readonly SearchDocument[]): Promise<void>;
  setValidTo(id: string, validTo: string): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
  search(query: SearchQuery): Promise<SearchHit[]>;
  /**
   * After a bulk change (an ingest, a reindex): make the index ready to answer well (PostgreSQL: fresh planner
   * statistics, which nothing else gathers on PGlite; OpenSearch: a refresh). Changes no result.
   */
  refresh(): Promise<void>;
  count(): Promise<number>;
  ping(): Promise<void>;
}

export const searchDocumentId = (ref: SectionRef, validFrom: string): string => `${ref.jurisdiction}#${ref.corpus}#${ref.key}#${validFrom}`;

export function toSearchDocument(v: SectionVersion): SearchDocument {
  return {
    id: searchDocumentId(v.citation, v.validFrom),
    citation: v.citation,
    catchline: v.catchline,
    bodyText: v.bodyText,
    status: v.status,
    temporalBasis: v.temporalBasis,
    provenance: v.provenance,
    validFrom: v.validFrom,
    validTo: v.validTo,
  };
}
