import type { Logger } from '@aws-lambda-powertools/logger';
import type { EdgeLimiter } from '#accounts/edge-limit.ts';
import type { Meter } from '#accounts/meter.ts';
import type { AccountStore, MeterStore } from '#accounts/ports.ts';
import type { UsageLog } from '#accounts/usage-log.ts';
import type { FallbackConfig } from '#caselaw/fallback.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { CoverageService } from '#ops/coverage.ts';
import type { OpsStore } from '#ops/ports.ts';

/** Where the service is reached: every permalink and link in an answer is built from these. */
export interface SiteConfig {
  /** Where permalinks resolve, e.g. http://127.0.0.1:8787 (no trailing slash). */
  siteUrl: string;
  /** The API's base address including its version segment, e.g. http://127.0.0.1:8787/v1. */
  baseUrl: string;
}

/** Everything a handler may use, wired once per process (Lambda module scope, or the local runtime). */
export interface Services {
  site: SiteConfig;
  now: () => Date;
  /** null when the store is not configured: the endpoints that need it answer 503. */
  versions: VersionStore | null;
  search: SearchIndex | null;
  caselaw: CaseLawStore | null;
  /** The validated filing-format records. */
  formats: FormatStore | null;
  /** The paid case-law fallback: the provider on the shared token (null when none is configured) and its budget. */
  fallback: FallbackConfig;
  ops: OpsStore | null;
  accounts: AccountStore | null;
  coverage: CoverageService | null;
  meter: Meter;
  /** The meter's counters and its write-behind usage records; null when the deployment runs unmetered. */
  meterStore: MeterStore | null;
  usageLog: UsageLog | null;
  /** The per-token edge limit in process; null where the edge is in front of the process (the stage's WAF rule). */
  edge: EdgeLimiter | null;
  logger: Logger;
}
