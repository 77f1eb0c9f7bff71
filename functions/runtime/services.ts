import type { Logger } from '@aws-lambda-powertools/logger';
import type { Meter } from '#accounts/meter.ts';
import type { AccountStore } from '#accounts/ports.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import type { CoverageService } from '#ops/coverage.ts';
import type { OpsStore } from '#ops/ports.ts';
import type { SiteConfig } from '#http/present.ts';

/** Everything a handler may use, wired once per process (Lambda module scope, or the local runtime). */
export interface Services {
  site: SiteConfig;
  now: () => Date;
  /** null when the store is not configured: the endpoints that need it answer 503. */
  versions: VersionStore | null;
  search: SearchIndex | null;
  ops: OpsStore | null;
  accounts: AccountStore | null;
  coverage: CoverageService | null;
  meter: Meter;
  logger: Logger;
}
