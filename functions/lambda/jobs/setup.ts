/**
 * The deploy-time setup job (run by a CloudFormation trigger, lib/data-setup.ts): brings Aurora and the search domain
 * to what the functions need. Aurora, over the cluster's admin credentials: the database, the API's IAM-only login role,
 * the replica's migrations and the role's privileges. OpenSearch, as the domain's master role: the index and the
 * security roles mapped to the bound functions' IAM roles. Both are idempotent; a part whose variables are not set is
 * skipped (the stage has no such store).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Client } from '@opensearch-project/opensearch';
import type pg from 'pg';
import * as z from 'zod';
import { domainSetupRequests, type SearchAccess, type SearchSetupReport, setUpSearchDomain } from '#stores/opensearch/domain-setup.ts';
import { OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { type AdminConnect, type CaseLawAccess, type CaseLawSetupReport, setUpCaseLawDatabase } from '#stores/postgres/caselaw-setup.ts';
import { poolClient } from '#stores/postgres/sql-client.ts';
import { signedOpenSearchClient } from '../adapters/opensearch.ts';
import { tracedPg } from '../adapters/traced-pg.ts';
import { DEFAULT_CASELAW_DATABASE, DEFAULT_CASELAW_USER, DEFAULT_SEARCH_INDEX, ENV, type LambdaEnv, regionOf } from '../env.ts';
import { jobLambda } from '../job-entry.ts';
import { captureClient } from '../powertools.ts';

export interface SetupDeps {
  caselaw?: { connect: AdminConnect; access: CaseLawAccess };
  search?: { client: Client; index: OpenSearchSearchIndex; access: SearchAccess };
}

export interface SetupReport {
  caselaw?: CaseLawSetupReport;
  search?: SearchSetupReport;
}

/** Runs both parts (neither needs the other), then fails naming every part that failed. */
export async function runSetup(deps: SetupDeps): Promise<SetupReport> {
  const [caselaw, search] = await Promise.allSettled([
    deps.caselaw && setUpCaseLawDatabase(deps.caselaw.connect, deps.caselaw.access),
    deps.search && setUpSearchDomain(deps.search.client, deps.search.index, deps.search.access),
  ]);
  const outcomes = [
    ['case-law database', caselaw],
    ['search domain', search],
  ] as const;
  const failures = outcomes.flatMap(([part, outcome]) =>
    outcome.status === 'rejected' ? [{ part, reason: outcome.reason as unknown }] : [],
  );
  if (failures.length) {
    const message = failures.map(({ part, reason }) => `${part}: ${reason instanceof Error ? reason.message : String(reason)}`).join('; ');
    throw new AggregateError(
      failures.map((f) => f.reason),
      `setup failed: ${message}`,
    );
  }
  return {
    ...(caselaw.status === 'fulfilled' && caselaw.value && { caselaw: caselaw.value }),
    ...(search.status === 'fulfilled' && search.value && { search: search.value }),
  };
}

/** What a connection needs of the admin secret (generated with the cluster; its attachment adds host and port). */
const AdminSecret = z.object({
  username: z.string().min(1),
  password: z.string().min(1),
  host: z.string().min(1),
  port: z.coerce.number().int().positive(),
});
export type AdminSecret = z.infer<typeof AdminSecret>;

/** Reads and checks the admin secret; a secret without what a connection needs fails with what is missing, never its values. */
async function readAdminSecret(env: LambdaEnv, secretId: string): Promise<AdminSecret> {
  const secrets = captureClient(new SecretsManagerClient({ region: regionOf(env) }));
  const out = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  let parsed: unknown;
  try {
    parsed = JSON.parse(out.SecretString ?? '');
  } catch {
    throw new Error(`the secret ${secretId} is not JSON`);
  }
  const secret = AdminSecret.safeParse(parsed);
  if (!secret.success) throw new Error(`the secret ${secretId} lacks ${secret.error.issues.map((i) => i.path.join('.')).join(', ')}`);
  return secret.data;
}

/**
 * A connection to the cluster itself (not the proxy, which serves the API role only) as its admin user, TLS required
 * and the server's certificate verified: the RDS certificate authorities are not among Node's, so the function loads
 * the runtime's bundle of them (NODE_EXTRA_CA_CERTS=/var/runtime/ca-cert.pem, lib/data-setup.ts).
 */
export function adminConnectionConfig(secret: AdminSecret, database: string): pg.PoolConfig {
  return {
    host: secret.host,
    port: secret.port,
    user: secret.username,
    password: secret.password,
    database,
    ssl: { rejectUnauthorized: true },
    max: 1,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 60_000,
  };
}

const roleList = (env: LambdaEnv, name: string): string[] => {
  let list: z.ZodSafeParseResult<string[]> | undefined;
  try {
    list = z.array(z.string()).safeParse(JSON.parse(env[name] ?? '[]'));
  } catch {
    // not JSON: refused below
  }
  if (!list?.success) throw new Error(`${name} is not a JSON array of role ARNs`);
  return list.data;
};

/** The AWS wiring of both parts, from the function's environment; a part whose variables are not set is left out. */
export async function setupDeps(env: LambdaEnv): Promise<SetupDeps> {
  const deps: SetupDeps = {};
  const secretId = env[ENV.caseLawAdminSecret];
  if (secretId) {
    const secret = await readAdminSecret(env, secretId);
    deps.caselaw = {
      connect: async (database) =>
        poolClient(new tracedPg.Pool(adminConnectionConfig(secret, database)), { store: 'caselaw', owned: true }),
      access: { database: env[ENV.caseLawDatabase] ?? DEFAULT_CASELAW_DATABASE, user: env[ENV.caseLawUser] ?? DEFAULT_CASELAW_USER },
    };
  }
  const node = env[ENV.searchUrl];
  if (node) {
    const access: SearchAccess = {
      index: env[ENV.searchIndex] ?? DEFAULT_SEARCH_INDEX,
      readRoles: roleList(env, ENV.searchReadRoles),
      writeRoles: roleList(env, ENV.searchWriteRoles),
    };
    domainSetupRequests(access); // refuses a bad index name or role ARN before anything is sent
    const client = signedOpenSearchClient(env, node, 30_000);
    deps.search = { client, index: new OpenSearchSearchIndex(client, access.index), access };
  }
  if (!deps.caselaw && !deps.search) throw new Error(`nothing to set up: neither ${ENV.caseLawAdminSecret} nor ${ENV.searchUrl} is set`);
  return deps;
}

export const handler = jobLambda('setup', async () => {
  const deps = await setupDeps(process.env);
  try {
    return await runSetup(deps);
  } finally {
    await deps.search?.client.close();
  }
});
