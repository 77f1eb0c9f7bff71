import { Logger } from '@aws-lambda-powertools/logger';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Signer } from '@aws-sdk/rds-signer';
import pg from 'pg';
import { createMeter } from '#accounts/metering.ts';
import { PlanBook } from '#accounts/plans.ts';
import { UsageLog } from '#accounts/usage-log.ts';
import { CoverageService } from '#ops/coverage.ts';
import { NO_FALLBACK, type Services } from '#runtime/services.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { DynamoFormatStore } from '#stores/dynamodb/format-store.ts';
import { DynamoMeterStore } from '#stores/dynamodb/meter-store.ts';
import { DynamoOpsStore } from '#stores/dynamodb/ops-store.ts';
import { tableNames } from '#stores/dynamodb/tables.ts';
import { DynamoVersionStore } from '#stores/dynamodb/version-store.ts';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { PostgresCaseLawStore } from '#stores/postgres/caselaw-store.ts';
import { poolClient } from '#stores/postgres/sql-client.ts';

/**
 * The configuration a function reads from its environment (set by lib/api-functions.ts). Only what is set is wired:
 * an endpoint whose store is not configured answers the spec's 503.
 */
export interface LambdaEnv {
  ASOF_TABLE_PREFIX: string;
  ASOF_SITE_URL: string;
  ASOF_BASE_URL: string;
  AWS_REGION?: string;
  /** https://… of the OpenSearch domain (requests signed with the function's role, SigV4). */
  OPENSEARCH_URL?: string;
  OPENSEARCH_INDEX?: string;
  /** The RDS Proxy in front of Aurora: IAM authentication, TLS. */
  PG_HOST?: string;
  PG_PORT?: string;
  PG_USER?: string;
  PG_DATABASE?: string;
}

function required(env: Partial<LambdaEnv>, name: keyof LambdaEnv): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set in the function's environment`);
  return value;
}

function openSearch(env: Partial<LambdaEnv>, region: string): OpenSearchSearchIndex | null {
  if (!env.OPENSEARCH_URL) return null;
  const client = new OpenSearchClient({
    ...AwsSigv4Signer({ region, service: 'es', getCredentials: defaultProvider() }),
    node: env.OPENSEARCH_URL,
    requestTimeout: 5_000,
  });
  return new OpenSearchSearchIndex(client, env.OPENSEARCH_INDEX ?? 'asof-versions');
}

/** pg to Aurora through RDS Proxy with IAM authentication: a fresh token per new connection, no password in the function. */
function caseLaw(env: Partial<LambdaEnv>, region: string): PostgresCaseLawStore | null {
  if (!env.PG_HOST) return null;
  const port = Number(env.PG_PORT ?? 5432);
  const user = env.PG_USER ?? 'asof_api';
  const signer = new Signer({ hostname: env.PG_HOST, port, username: user, region });
  const pool = new pg.Pool({
    host: env.PG_HOST,
    port,
    user,
    database: env.PG_DATABASE ?? 'asof',
    password: () => signer.getAuthToken(),
    ssl: { rejectUnauthorized: true },
    max: 2,
    idleTimeoutMillis: 60_000,
    connectionTimeoutMillis: 3_000,
  });
  return new PostgresCaseLawStore(poolClient(pool, { store: 'caselaw' }));
}

export interface LambdaServices extends Services {
  usageLog: UsageLog;
}

/** The production adapters, wired once per execution environment (module scope of each function). */
export function productionServices(env: Partial<LambdaEnv> = process.env as Partial<LambdaEnv>, logger = new Logger({ serviceName: 'asof' })): LambdaServices {
  const region = env.AWS_REGION ?? 'us-east-1';
  const doc = createDocumentClient({ region });
  const tables = tableNames(required(env, 'ASOF_TABLE_PREFIX'));
  const versions = new DynamoVersionStore(doc, tables.versions);
  const ops = new DynamoOpsStore(doc, tables.ops);
  const meters = new DynamoMeterStore(doc, tables.meters);
  const usageLog = new UsageLog(meters, { onError: (err, pending, dropped) => logger.warn('usage records not written yet', { error: err, pending, dropped }) });
  const now = () => new Date();
  return {
    site: { siteUrl: required(env, 'ASOF_SITE_URL'), baseUrl: required(env, 'ASOF_BASE_URL') },
    now,
    versions,
    search: openSearch(env, region),
    caselaw: caseLaw(env, region),
    formats: new DynamoFormatStore(doc, tables.ops),
    fallback: NO_FALLBACK,
    ops,
    accounts: new DynamoAccountStore(doc, tables.accounts),
    // The coverage refresh is the scheduled job's: a function frozen after its response cannot run one behind it.
    coverage: new CoverageService({ versions, ops, now, refreshBehind: () => undefined }),
    meter: createMeter({ store: meters, plans: new PlanBook(), usage: usageLog, now, onRefundError: (err, attempt) => logger.warn('refund failed, will retry', { error: err, attempt }) }),
    meterStore: meters,
    usageLog,
    // The per-token edge limit is the stage's WAF rate rule, in front of API Gateway.
    edge: null,
    logger,
  };
}
