/**
 * The composition root of the request path: one function builds what a handler may use from the stores and explicit
 * options, for the local server and for a deployed function alike. The options are the only place where the two
 * deployments differ (functions/local/local-runtime.ts, functions/lambda/route-services.ts).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { EdgeLimiter } from '#accounts/edge-limit.ts';
import { createMeter, type Meter, unmeteredMeter } from '#accounts/meter.ts';
import { PlanBook } from '#accounts/plans.ts';
import type { AccountStore, MeterStore } from '#accounts/ports.ts';
import { UsageLog } from '#accounts/usage-log.ts';
import type { FallbackConfig } from '#caselaw/fallback.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { LawLookup } from '#caselaw/statutes.ts';
import type { FormatStore } from '#formats/ports.ts';
import { lookupVersion } from '#law/lookup.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { CoverageService } from '#ops/coverage.ts';
import type { OpsStore } from '#ops/ports.ts';

/** Where the service is reached: every permalink and link in an answer is built from these. */
export interface SiteConfig {
  /** Where permalinks resolve, e.g. http://127.0.0.1:8787 (no trailing slash). */
  siteUrl: string;
  /** The API's base address including its version segment, e.g. http://127.0.0.1:8787/v1. */
  baseUrl: string;
}

/**
 * The MCP endpoint's protocol server (functions/http/handlers/mcp.ts, on the MCP SDK). Brought by the process that
 * serves the endpoint, as a store's client is, so that no other function bundles the SDK: the OpenAPI functions read
 * the whole route table.
 */
export type McpEndpoint = (request: McpRequest) => Promise<McpAnswer>;

/** One POST to the MCP endpoint: its body's text (size checked), its headers (names lowercased), the services it runs on. */
export interface McpRequest {
  body: string;
  headers: Record<string, string>;
  services: Services;
}

/** The protocol's answer, as it is sent. */
export interface McpAnswer {
  status: number;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

/** The stores a deployment gives the request path; null where it has none (the endpoints that need it answer 503). */
export interface ServiceStores {
  versions: VersionStore | null;
  search: SearchIndex | null;
  caselaw: CaseLawStore | null;
  /** The validated filing-format records. */
  formats: FormatStore | null;
  ops: OpsStore | null;
  accounts: AccountStore | null;
  /** The per-key counters and usage records; required when `metered`. */
  meters: MeterStore | null;
}

/** Everything a handler may use, wired once per process (Lambda module scope, or the local runtime). */
export interface Services extends Omit<ServiceStores, 'meters'> {
  site: SiteConfig;
  now: () => Date;
  /** The paid case-law fallback: the provider on the shared token (null when none is configured) and its budget. */
  fallback: FallbackConfig;
  coverage: CoverageService | null;
  /** /law/lookup's lookup over the version store, for the statute citations of a citation lookup; null without the store. */
  lawLookup: LawLookup | null;
  meter: Meter;
  /** The meter's write-behind usage records (flushed before a function returns or a server stops); null unmetered. */
  usageLog: UsageLog | null;
  /** The per-token edge limit in process; null where the edge is in front of the process (the stage's WAF rule). */
  edge: EdgeLimiter | null;
  /**
   * The site's per-address budget of pages that read the law (functions/http/pages/page-budget.ts): absent, the
   * process's own of SITE_READS_PER_MINUTE; null, none.
   */
  siteReads?: EdgeLimiter | null;
  logger: Logger;
  /** The MCP endpoint, where this process serves it (the local server, the endpoint's function); absent elsewhere. */
  mcp?: McpEndpoint;
}

export interface ServiceOptions {
  site: SiteConfig;
  logger: Logger;
  now?: () => Date;
  /**
   * Count every metered call against its key's ceilings. Off (`asof serve --no-meter`), keys are still checked but
   * nothing is counted or limited: the benchmark measures the meter's cost this way.
   */
  metered: boolean;
  /** Apply the per-token edge limit in process: locally; on AWS the stage's WAF rate rule is the edge. */
  edgeLimit: boolean;
  /** The site's pages that read the law, per address and minute (default SITE_READS_PER_MINUTE; 0: no limit). */
  siteReadsPerMinute?: number;
  /**
   * How a response that finds the coverage numbers old gets them refreshed: a task run behind the response (a
   * long-lived process), or null: only the scheduled job refreshes them (a function may be frozen once it answered).
   */
  refreshBehind: ((task: () => Promise<void>) => void) | null;
  /** Parsed and validated once (functions/app/fallback.ts). */
  fallback: FallbackConfig;
  /** The MCP endpoint's protocol server, where this process serves /mcp. */
  mcp?: McpEndpoint;
}

export function assembleServices(stores: ServiceStores, options: ServiceOptions): Services {
  const { logger, metered } = options;
  const now = options.now ?? (() => new Date());
  const { meters, ...served } = stores;
  if (metered && !meters) throw new Error('a metered deployment needs the meters store');
  const usageLog =
    metered && meters
      ? new UsageLog(meters, {
          onError: (err, pending, dropped) => logger.warn('usage records not written yet', { error: err, pending, dropped }),
        })
      : null;
  const meter =
    usageLog && meters
      ? createMeter({
          store: meters,
          plans: new PlanBook(),
          usage: usageLog,
          now,
          onRefundError: (err, attempt) => logger.warn('refund failed, will retry', { error: err, attempt }),
        })
      : unmeteredMeter;
  const { versions, ops } = stores;
  const refreshBehind = options.refreshBehind ?? (() => undefined);
  return {
    ...served,
    site: options.site,
    now,
    fallback: options.fallback,
    coverage: versions && ops ? new CoverageService({ versions, ops, now, refreshBehind }) : null,
    lawLookup: versions ? (params) => lookupVersion(versions, { ...params, coverageUrl: `${options.site.baseUrl}/law/coverage` }) : null,
    meter,
    usageLog,
    edge: metered && options.edgeLimit ? new EdgeLimiter() : null,
    ...(options.siteReadsPerMinute !== undefined && {
      siteReads: options.siteReadsPerMinute > 0 ? new EdgeLimiter(options.siteReadsPerMinute, 50_000) : null,
    }),
    logger,
    ...(options.mcp && { mcp: options.mcp }),
  };
}
