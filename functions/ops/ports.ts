import type { CadenceClass, Corpus, TemporalBasis } from '#law/model.ts';

export interface CoverageRecord {
  jurisdiction: string;
  corpus: Corpus;
  name: string;
  cadenceClass: CadenceClass;
  temporalBasis: TemporalBasis;
  /** YYYY-MM-DD: the earliest date any version of this collection is valid from. */
  coverageFrom: string;
  latestVersion: string;
  sections: number;
  versions: number;
  lastRetrievedAt: string;
}

/** The cached coverage matrix with the bookkeeping that decides whether it can still be trusted. */
export interface CoverageCache {
  records: CoverageRecord[];
  generatedAt: string;
  /** Refresh attempts that failed since the last success. */
  refreshFailures: number;
  lastError: string | null;
  lastAttemptAt: string;
  /** Set by an ingest: the numbers no longer describe the store. */
  dirtySince: string | null;
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
   * Store freshly computed numbers. When `computeStartedAt` is given and the stored cache was marked dirty after
   * it (an ingest finished while the numbers were being computed), the stored dirtySince is kept.
   */
  putCoverage(cache: CoverageCache, computeStartedAt?: string): Promise<void>;
  /** Marks the cached coverage untrustworthy (an ingest changed the store); keeps the numbers. */
  markCoverageDirty(at: string): Promise<void>;

  putAuditRun(stored: StoredAuditRun): Promise<void>;
  latestAuditRun(jurisdiction: string): Promise<StoredAuditRun | null>;
  /** Newest first. */
  auditHistory(jurisdiction: string, limit: number): Promise<AuditRun[]>;

  getHealthVerdict(): Promise<HealthVerdict | null>;
  putHealthVerdict(verdict: HealthVerdict): Promise<void>;

  /** Take (or extend, for the same owner) the named lease until `until`; false when someone else holds it unexpired at `now`. */
  acquireLease(name: string, owner: string, until: string, now: string): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;

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
