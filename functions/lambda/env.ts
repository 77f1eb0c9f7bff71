import { FALLBACK_ENV } from '#app/fallback.ts';
import type { TableKind } from '#stores/dynamodb/tables.ts';

/**
 * The environment a deployed function is configured by. The CDK constructs (lib/) write these names and the wiring
 * here reads them, from this one list, so the two cannot drift: a store whose variable is not set is not wired, and
 * the function was granted nothing on it either.
 */
export const TABLE_ENV: Record<TableKind, string> = {
  versions: 'ASOF_VERSIONS_TABLE',
  accounts: 'ASOF_ACCOUNTS_TABLE',
  meters: 'ASOF_METERS_TABLE',
  ops: 'ASOF_OPS_TABLE',
};

export const ENV = {
  /** Where permalinks point, and the API's public base (…/v1). */
  siteUrl: 'ASOF_SITE_URL',
  baseUrl: 'ASOF_BASE_URL',
  /** https://… of the OpenSearch domain; requests are SigV4-signed with the function's role. */
  searchUrl: 'ASOF_SEARCH_URL',
  searchIndex: 'ASOF_SEARCH_INDEX',
  /** The RDS Proxy in front of Aurora (IAM authentication, TLS), the database user and database. */
  caseLawHost: 'ASOF_CASELAW_HOST',
  caseLawPort: 'ASOF_CASELAW_PORT',
  caseLawUser: 'ASOF_CASELAW_USER',
  caseLawDatabase: 'ASOF_CASELAW_DATABASE',
  /**
   * Secrets Manager id of the CourtListener API token (the case-law fallback); unset = no fallback. The fallback's
   * other settings are read under the same names locally and in AWS (functions/app/fallback.ts FALLBACK_ENV).
   */
  courtListenerSecret: FALLBACK_ENV.tokenSecret,
  /** The S3 bucket of the official source files the ingest job reads. */
  sourcesBucket: 'ASOF_SOURCES_BUCKET',
  /** The deploy-time setup job: Secrets Manager id of Aurora's admin credentials (it connects to the cluster, not the proxy). */
  caseLawAdminSecret: 'ASOF_CASELAW_ADMIN_SECRET',
  /** The setup job: JSON arrays of the IAM role ARNs bound to the search index for reading, and for reading and writing. */
  searchReadRoles: 'ASOF_SEARCH_READ_ROLES',
  searchWriteRoles: 'ASOF_SEARCH_WRITE_ROLES',
} as const;

/** What a store is called when its variables leave the name out; lib/ creates the stores under these names. */
export const DEFAULT_SEARCH_INDEX = 'asof-versions';
export const DEFAULT_CASELAW_USER = 'asof_api';
export const DEFAULT_CASELAW_DATABASE = 'asof';

export type LambdaEnv = Readonly<Record<string, string | undefined>>;

export const regionOf = (env: LambdaEnv): string => env.AWS_REGION ?? 'us-east-1';

export function required(env: LambdaEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set in the function's environment`);
  return value;
}
