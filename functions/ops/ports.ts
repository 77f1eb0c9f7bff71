import type { CadenceClass, Corpus, TemporalBasis } from '#law/model.ts';

export interface CoverageRecord {
  jurisdiction: string;
  corpus: Corpus;
  name: string;
  cadenceClass: CadenceClass;
  temporalBasis: TemporalBasis;
  /** YYYY-MM-DD: the earliest date any version of this collection is valid from. */
  coverageFrom: string;
  /** Label of the newest edition on file. */
  latestVersion: string;
  sections: number;
  versions: number;
  lastRetrievedAt: string;
  /** YYYY-MM-DD the last version ends (exclusive); null while some version is open (in force from its start on). */
  coverageTo: string | null;
  /** YYYY-MM-DD the newest edition (latestVersion) speaks from. */
  latestVersionDate: string;
  /** The editions on file (release points, dated editions) by label, oldest first, each with its earliest date. */
  editions: Array<{ label: string; date: string }>;
  /** For a collection published in titles (US Code, D.C. Code): the titles carried, in the Code's order. */
  titles?: TitleCoverage[];
}

/** One carried title of a collection published in titles. */
export interface TitleCoverage {
  /** As in keys: `28`, `5a` (Title 5 Appendix). */
  title: string;
  /** The title's name, where known (the US Code's headings). */
  name?: string;
  coverageFrom: string;
  coverageTo: string | null;
  /** Labels of the title's oldest and newest editions on file, and the date the newest speaks from. */
  firstVersion: string;
  latestVersion: string;
  latestVersionDate: string;
  /** How many editions (e.g. release points) of this title are on file. */
  editionCount: number;
  sections: number;
  versions: number;
}

/** The cached coverage matrix with the bookkeeping that decides whether it can still be trusted. */
export interface CoverageCache {
  records: CoverageRecord[];
  /** COVERAGE_FORMAT of the code that computed the records; absent before the records carried titles and editions. */
  format?: number;
  generatedAt: string;
  /** Refresh attempts that failed since the last success. */
  refreshFailures: number;
  lastError: string | null;
  lastAttemptAt: string;
  /** Set by an ingest: the numbers no longer describe the store. */
  dirtySince: string | null;
  /**
   * Set when an ingest starts writing, until an ingest completes (absent otherwise): the store may hold part of an
   * ingest (one that is running, or one that died), so no refresh can make the numbers current meanwhile. Only
   * markIngestStarted and markIngestCompleted write it.
   */
  ingestingSince?: string;
}

/** A named lease as stored: its owner (opaque to the store) and until when it holds. */
export interface LeaseRecord {
  owner: string;
  until: string;
}

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface AuditFinding {
  scope: string;
  checkName: string;
  status: CheckStatus;
  detail: string;
  rows: number;
  avgChars: number | null;
  maxChars: number | null;
  unexplainedEmpty: number;
  misattributed: number;
}

export interface AuditRun {
  ranAt: string;
  jurisdiction: string;
  trigger: 'schedule' | 'manual' | 'ingest' | 'startup';
  totalChecks: number;
  passed: number;
  warned: number;
  failed: number;
}

/** One audit run as stored: only non-passing findings are kept. */
export interface StoredAuditRun {
  run: AuditRun;
  findings: AuditFinding[];
}

export interface HealthVerdict {
  checkedAt: string;
  reachable: boolean;
  /** What the probe saw, e.g. 'ok' or the reason it failed. */
  detail: string;
}

/** Operational state shared by every function: caches, audits, probe verdicts, leases. */
export interface OpsStore {
  getCoverage(): Promise<CoverageCache | null>;
  /**
   * Store freshly computed numbers, and return the cache as stored. When `computeStartedAt` is given and the stored
   * cache was marked dirty after it (an ingest finished while the numbers were being computed), or an ingest is under
   * way or died (`ingestingSince`), the stored dirtySince is kept. The ingest marks themselves are never written here.
   */
  putCoverage(cache: CoverageCache, computeStartedAt?: string): Promise<CoverageCache>;
  /**
   * An ingest is about to write: coverage is dirty from `at` (unless already dirty) and stays so, whatever refreshes
   * run, until an ingest completes. Marked even before any coverage was computed (getCoverage stays null).
   */
  markIngestStarted(at: string): Promise<void>;
  /** An ingest completed at `at`: the ingest mark goes; the cache is dirty from `at`, until a refresh started after it. */
  markIngestCompleted(at: string): Promise<void>;

  putAuditRun(stored: StoredAuditRun): Promise<void>;
  latestAuditRun(jurisdiction: string): Promise<StoredAuditRun | null>;
  /** Newest first. */
  auditHistory(jurisdiction: string, limit: number): Promise<AuditRun[]>;

  getHealthVerdict(): Promise<HealthVerdict | null>;
  putHealthVerdict(verdict: HealthVerdict): Promise<void>;

  /** Take (or extend, for the same owner) the named lease until `until`; false when someone else holds it unexpired at `now`. */
  acquireLease(name: string, owner: string, until: string, now: string): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
  /** The named lease as stored, held or run out; null when there is none. */
  getLease(name: string): Promise<LeaseRecord | null>;
  /**
   * Take the named lease from `from` (its owner as read, known to be gone), whatever its time, until `until`; false
   * when `from` no longer holds it (released, or taken by another claimant first). Exact under concurrency.
   */
  takeOverLease(name: string, from: string, owner: string, until: string): Promise<boolean>;

  /**
   * Takes up to `n` of a named budget of `limit` (e.g. the case-law provider's requests of one UTC day): exact under
   * concurrency, never over `limit`. Returns how many were granted and how many are used after the grant.
   */
  takeQuota(name: string, n: number, limit: number): Promise<{ granted: number; used: number }>;
  quotaUsed(name: string): Promise<number>;

  /** Named facts the runtime records once (e.g. when the sample corpus finished loading); null when never set. */
  getMarker(name: string): Promise<string | null>;
  putMarker(name: string, value: string): Promise<void>;
  ping(): Promise<void>;
}
