/**
 * The deploy-time setup job (functions/lambda/jobs/setup.ts): both parts together on real PostgreSQL (PGlite) and a
 * local fake of the OpenSearch REST API (OpenSearch cannot run here), and its AWS wiring from the environment a
 * deployed setup function gets, with Secrets Manager faked behind the SDK's endpoint override.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#lambda/env.ts';
import { adminConnectionConfig, runSetup, type SetupDeps, setupDeps } from '#lambda/jobs/setup.ts';
import { SEARCH_READ_ROLE, SEARCH_WRITE_ROLE } from '#stores/opensearch/domain-setup.ts';
import { INDEX_MAPPING, OpenSearchSearchIndex } from '#stores/opensearch/search-index.ts';
import { MAINTENANCE_DATABASE, RDS_IAM_ROLE } from '#stores/postgres/caselaw-setup.ts';
import { type Cluster, pgliteCluster } from '../support/admin-clusters.ts';
import { type FakeOpenSearch, startFakeOpenSearch } from '../support/fake-opensearch.ts';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/fake-secrets-manager.ts';

const roleArn = (name: string) => `arn:aws:iam::123456789012:role/${name}`;
const READERS = [roleArn('asof-test-law-search')];
const WRITERS = [roleArn('asof-test-ingest')];

let cluster: Cluster;
let search: FakeOpenSearch;
let secrets: FakeSecretsManager;
const clients: Client[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  [cluster, search, secrets] = await Promise.all([pgliteCluster(), startFakeOpenSearch(), startFakeSecretsManager()]);
  // Aurora has the IAM login role from the start; this cluster gets it once.
  const admin = await cluster.connect(MAINTENANCE_DATABASE);
  await admin.exec(`CREATE ROLE ${RDS_IAM_ROLE} NOLOGIN`);
  await admin.close();
});
afterEach(() => {
  process.env = { ...saved };
  search.refuse.clear();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([cluster?.dispose(), search?.close(), secrets?.close()]);
});

/** The job's parts as the entry builds them, on this machine's stand-ins, with a database of the test's own. */
function localDeps(database = `asof_${randomBytes(3).toString('hex')}`): SetupDeps {
  const client = new Client({ node: search.url });
  clients.push(client);
  return {
    caselaw: { connect: cluster.connect, access: { database, user: `api_${database}` } },
    search: {
      client,
      index: new OpenSearchSearchIndex(client, 'asof-versions'),
      access: { index: 'asof-versions', readRoles: READERS, writeRoles: WRITERS },
    },
  };
}

const apiRoleExists = async (user: string) => {
  const admin = await cluster.connect(MAINTENANCE_DATABASE);
  try {
    return (await admin.query('SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1', [user])).rows.length === 1;
  } finally {
    await admin.close();
  }
};

describe('runSetup', () => {
  it('sets up the case-law database and the search domain: index with the adapter mapping, roles mapped to the bound functions', async () => {
    // Prepare
    const deps = localDeps();
    // Act
    const report = await runSetup(deps);
    // Assess
    expect(report.caselaw).toMatchObject({ databaseCreated: true, migrationsApplied: [1] });
    expect(report.search!.applied).toHaveLength(5);
    expect(search.indices.get('asof-versions')).toEqual(JSON.parse(JSON.stringify(INDEX_MAPPING)));
    expect(search.rolesMapping.get(SEARCH_READ_ROLE)).toEqual({ backend_roles: READERS, hosts: [], users: [] });
    expect(search.rolesMapping.get(SEARCH_WRITE_ROLE)).toEqual({ backend_roles: WRITERS, hosts: [], users: [] });
    expect(search.roles.get(SEARCH_READ_ROLE)).toMatchObject({ index_permissions: [{ index_patterns: ['asof-versions'] }] });
    expect(search.settings.get('asof-versions')).toMatchObject({ 'index.search.slowlog.threshold.query.warn': '2s' });
    expect(await apiRoleExists(deps.caselaw!.access.user)).toBe(true);
  });

  it('changes nothing when run again: no database change, the index left as it is, the same security state', async () => {
    // Prepare
    const deps = localDeps();
    await runSetup(deps);
    const state = JSON.stringify([...search.roles, ...search.rolesMapping, ...search.indices]);
    const sent = search.requests.length;
    // Act
    const again = await runSetup(deps);
    // Assess
    expect(again.caselaw).toEqual({ databaseCreated: false, migrationsApplied: [], changes: [] });
    expect(JSON.stringify([...search.roles, ...search.rolesMapping, ...search.indices])).toBe(state);
    const requests = search.requests.slice(sent).map((r) => `${r.method} ${r.path}`);
    expect(requests).toContain('HEAD /asof-versions');
    expect(requests).not.toContain('PUT /asof-versions');
  });

  it('fails naming the part, the request and the answer when the domain refuses; the other part still completes', async () => {
    // Prepare: the domain refuses the caller (as it refuses any role that is not its master user).
    const deps = localDeps();
    search.refuse.set(`/_plugins/_security/api/rolesmapping/${SEARCH_READ_ROLE}`, 403);
    // Act
    const run = runSetup(deps);
    // Assess
    await expect(run).rejects.toThrow(
      /^setup failed: search domain: OpenSearch PUT \/_plugins\/_security\/api\/rolesmapping\/asof_read failed \(403\): .*security_exception/,
    );
    await expect(run).rejects.not.toThrow(/case-law/);
    expect(await apiRoleExists(deps.caselaw!.access.user)).toBe(true);
  });

  it('fails naming both parts when both fail', async () => {
    // Prepare: an API user name the database refuses, and a domain that refuses role changes.
    const deps = localDeps();
    deps.caselaw!.access.user = 'Not-An-Identifier';
    search.refuse.set('/_plugins/_security/api/roles/', 403);
    // Act + Assess
    await expect(runSetup(deps)).rejects.toThrow(
      /case-law database: Invalid role name 'Not-An-Identifier'.*; search domain: OpenSearch PUT/,
    );
  });
});

describe('setupDeps: the AWS wiring from a deployed setup function’s environment', () => {
  const ADMIN_SECRET = 'asof-test/caselaw/admin';
  const deployedEnv = (over: Record<string, string> = {}) => ({
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    [ENV.caseLawAdminSecret]: ADMIN_SECRET,
    [ENV.caseLawUser]: 'asof_api',
    [ENV.caseLawDatabase]: 'asof',
    [ENV.searchUrl]: search.url,
    [ENV.searchIndex]: 'asof-versions',
    [ENV.searchReadRoles]: JSON.stringify(READERS),
    [ENV.searchWriteRoles]: JSON.stringify(WRITERS),
    ...over,
  });
  const useEnv = (env: Record<string, string>) => {
    Object.assign(process.env, env);
    return env;
  };
  const adminSecret = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      engine: 'postgres',
      username: 'asof_admin',
      password: 'p4ss-w0rd',
      host: '127.0.0.1',
      port: 5432,
      dbClusterIdentifier: 'c',
      ...over,
    });

  it('reads the admin secret, connects to the cluster only over verified TLS, and signs domain requests with SigV4 for es', async () => {
    // Prepare
    secrets.secrets.set(ADMIN_SECRET, adminSecret());
    const env = useEnv(deployedEnv());
    // Act
    const deps = await setupDeps(env);
    clients.push(deps.search!.client);
    // Assess: the secret named in the environment was read; the access is the environment's.
    expect(secrets.reads).toContain(ADMIN_SECRET);
    expect(deps.caselaw!.access).toEqual({ database: 'asof', user: 'asof_api' });
    expect(deps.search!.access).toEqual({ index: 'asof-versions', readRoles: READERS, writeRoles: WRITERS });
    expect(adminConnectionConfig({ username: 'u', password: 'p', host: 'h', port: 5432 }, 'asof')).toMatchObject({
      host: 'h',
      port: 5432,
      user: 'u',
      database: 'asof',
      ssl: { rejectUnauthorized: true },
    });
    // A server that does not speak TLS (this machine's) is refused, never used in plain text.
    await expect(deps.caselaw!.connect('postgres').then((c) => c.query('SELECT 1').finally(() => c.close()))).rejects.toThrow(/SSL/i);
    // Requests to the domain carry a SigV4 signature for the OpenSearch service.
    const sent = search.requests.length;
    await deps.search!.index.ensureIndex();
    expect(search.requests[sent]!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/us-east-1\/es\/aws4_request/);
  });

  it('refuses an admin secret without what a connection needs, naming the fields and never their values', async () => {
    // Prepare
    secrets.secrets.set(ADMIN_SECRET, adminSecret({ password: '', host: undefined }));
    const env = useEnv(deployedEnv());
    // Act
    const deps = setupDeps(env);
    // Assess
    await expect(deps).rejects.toThrow(`the secret ${ADMIN_SECRET} lacks password, host`);
    await expect(deps).rejects.not.toThrow(/asof_admin/);
  });

  it('refuses a secret that is missing or not JSON', async () => {
    secrets.secrets.set(ADMIN_SECRET, 'not json');
    await expect(setupDeps(useEnv(deployedEnv()))).rejects.toThrow(`the secret ${ADMIN_SECRET} is not JSON`);
    await expect(setupDeps(useEnv(deployedEnv({ [ENV.caseLawAdminSecret]: 'no/such/secret' })))).rejects.toThrow(
      /can't find the specified secret/,
    );
  });

  it('refuses role lists that are not JSON arrays of role ARNs before anything is sent', async () => {
    const env = deployedEnv({ [ENV.caseLawAdminSecret]: '' });
    await expect(setupDeps(useEnv({ ...env, [ENV.searchReadRoles]: 'arn:aws:iam::123456789012:role/x' }))).rejects.toThrow(
      `${ENV.searchReadRoles} is not a JSON array of role ARNs`,
    );
    await expect(setupDeps(useEnv({ ...env, [ENV.searchWriteRoles]: '["*"]' }))).rejects.toThrow(/write roles: not IAM role ARNs/);
  });

  it('sets up only the parts it is given, and refuses to run with neither', async () => {
    const searchOnly = await setupDeps(useEnv(deployedEnv({ [ENV.caseLawAdminSecret]: '' })));
    clients.push(searchOnly.search!.client);
    expect(searchOnly.caselaw).toBeUndefined();
    await expect(setupDeps(useEnv(deployedEnv({ [ENV.caseLawAdminSecret]: '', [ENV.searchUrl]: '' })))).rejects.toThrow(
      /nothing to set up/,
    );
  });
});
