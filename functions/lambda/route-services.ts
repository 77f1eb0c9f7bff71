import { Logger } from '@aws-lambda-powertools/logger';
import { assembleServices, type McpEndpoint, type Services } from '#app/services.ts';
import { type FallbackConfig, NO_FALLBACK } from '#caselaw/fallback.ts';
import type { CaseLawStore } from '#caselaw/ports.ts';
import type { RouteStore } from '#http/route.ts';
import type { SearchIndex } from '#law/ports.ts';
import { TimeWindowStamps } from '#stores/cache/change-stamps.ts';
import { CachingFormatStore } from '#stores/cache/format-store.ts';
import { dynamoStores } from './dynamo-stores.ts';
import { ENV, type LambdaEnv, required, TABLE_ENV } from './env.ts';

/**
 * The adapters a function's entry brings for the stores outside DynamoDB. They are passed in, not imported here, so
 * that a function bundles the OpenSearch client or pg only when its route uses them.
 */
export interface LambdaAdapters {
  search?: (env: LambdaEnv) => SearchIndex | null;
  caselaw?: (env: LambdaEnv) => CaseLawStore | null;
  fallback?: (env: LambdaEnv) => FallbackConfig;
  /** The MCP endpoint's protocol server (the MCP function only). */
  mcp?: McpEndpoint;
}

/** Format records change only with an ingest; a function re-reads them at most this often. */
const FORMAT_RECORDS_TTL_MS = 5 * 60_000;

/**
 * The services of one route's function: the stores its route declares (and the keys and meters every route uses),
 * nothing else, assembled as the local server assembles its own (functions/app/services.ts) with AWS's options:
 * metered, no edge limiter in process (the stage's WAF rule is the edge), coverage refreshed only by its scheduled
 * job (a function may be frozen once it has answered). A declared store outside DynamoDB without an adapter from
 * the entry is a wiring mistake, refused at module load so that it fails a deployment's first call (and the tests),
 * not a customer's.
 */
export function lambdaServices(
  route: { id: string; stores: readonly RouteStore[] },
  adapters: LambdaAdapters,
  env: LambdaEnv = process.env,
  logger = new Logger({ serviceName: 'asof' }),
): Services {
  for (const store of ['search', 'caselaw', 'fallback'] as const) {
    if (route.stores.includes(store) && !adapters[store])
      throw new Error(`route ${route.id} uses ${store}, but its entry brings no adapter for it`);
  }
  const uses = (store: RouteStore) => route.stores.includes(store);
  const stores = dynamoStores(env, 'request-path');
  if (!stores.meters) throw new Error(`${TABLE_ENV.meters} is not set in the function's environment`);
  const formats =
    uses('formats') && stores.formats && stores.opsTable
      ? new CachingFormatStore(stores.formats, { stamps: new TimeWindowStamps(FORMAT_RECORDS_TTL_MS), table: stores.opsTable })
      : null;
  return assembleServices(
    {
      versions: uses('versions') ? stores.versions : null,
      search: uses('search') ? (adapters.search?.(env) ?? null) : null,
      caselaw: uses('caselaw') ? (adapters.caselaw?.(env) ?? null) : null,
      formats,
      ops: uses('ops') ? stores.ops : null,
      accounts: stores.accounts,
      meters: stores.meters,
    },
    {
      site: { siteUrl: required(env, ENV.siteUrl), baseUrl: required(env, ENV.baseUrl) },
      logger,
      metered: true,
      edgeLimit: false,
      refreshBehind: null,
      fallback: uses('fallback') ? (adapters.fallback?.(env) ?? NO_FALLBACK) : NO_FALLBACK,
      ...(adapters.mcp && { mcp: adapters.mcp }),
    },
  );
}
