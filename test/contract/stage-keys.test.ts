/**
 * Keys on a deployed stage: `asof keys … --stage dev` end to end (the real CLI in a child process, as a user runs it)
 * against the stage's tables on dynalite (AWS_ENDPOINT_URL_DYNAMODB) and a local fake of API Gateway's management
 * API (AWS_ENDPOINT_URL_API_GATEWAY); then the issuing and revoking order, and the API Gateway adapter, in process.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usagePlanName } from '#accounts/gateway-tier.ts';
import { issueKey } from '#accounts/issue-key.ts';
import { PlanBook } from '#accounts/plans.ts';
import type { ApiKeyRecord } from '#accounts/ports.ts';
import { revokeKey } from '#accounts/revoke-key.ts';
import { ApiGatewayKeys } from '#stores/apigateway/gateway-keys.ts';
import { DynamoAccountStore } from '#stores/dynamodb/account-store.ts';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { ensureTables, tableNames } from '#stores/dynamodb/tables.ts';
import { STAGES } from '../../bin/stages.ts';
import { type FakeApiGateway, startFakeApiGateway } from '../support/fake-apigateway.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PREFIX = STAGES.dev!.prefix;
const OUTAGE = { status: 503, type: 'ServiceUnavailableException' } as const;

let dynalite: RunningDynalite;
let doc: DynamoDBDocumentClient;
let fake: FakeApiGateway;
let accounts: DynamoAccountStore;

beforeAll(async () => {
  dynalite = await startDynalite();
  doc = createDocumentClient(dynalite.access);
  await ensureTables(doc, tableNames(PREFIX));
  accounts = new DynamoAccountStore(doc, tableNames(PREFIX).accounts);
  fake = await startFakeApiGateway();
  for (const plan of new PlanBook().plans) fake.addUsagePlan(usagePlanName(PREFIX, plan.id));
});
afterAll(async () => {
  doc?.destroy();
  await fake?.close();
  await dynalite?.close();
});
beforeEach(() => fake.clearFailures());

/** The environment of an operator's shell pointed at the local stand-ins, with no AWS profile of their own. */
const stageEnv = (): Record<string, string> => ({
  AWS_ENDPOINT_URL_DYNAMODB: dynalite.access.endpoint,
  AWS_ENDPOINT_URL_API_GATEWAY: fake.url,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: dynalite.access.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: dynalite.access.credentials.secretAccessKey,
  AWS_CONFIG_FILE: join(ROOT, 'nonexistent-aws-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(ROOT, 'nonexistent-aws-credentials'),
  AWS_EC2_METADATA_DISABLED: 'true',
});

/** Runs `asof …` as a user would, in a child process. */
function asof(args: string[], env: Record<string, string> = stageEnv()): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const { AWS_PROFILE: _profile, AWS_SESSION_TOKEN: _token, ...inherited } = process.env;
    const child = spawn(process.execPath, [join(ROOT, 'bin/asof.js'), ...args], { cwd: ROOT, env: { ...inherited, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const gatewayKeyNamed = (name: string) => [...fake.apiKeys.values()].filter((k) => k.name === name);
const recordsNamed = async (name: string) => (await accounts.listKeys()).filter((k) => k.name === name);

async function createOnStage(name: string, ...extra: string[]) {
  const r = await asof(['keys', 'create', '--stage', 'dev', '--name', name, '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { id: string; key: string; prefix: string; scopes: string[]; test: boolean };
}

const gatewayClient = () =>
  new APIGatewayClient({ endpoint: fake.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** A key issued on the stage in process (the CLI's own path, without a process start), for tests of other commands. */
const issuedOnStage = (name: string) =>
  issueKey(accounts, { name }, new Date(), new PlanBook(), new ApiGatewayKeys(gatewayClient(), PREFIX));

describe('asof keys --stage dev (end to end)', () => {
  it("creates a key whose hash is an enabled API key on its tier's usage plan, and whose record is in the stage's accounts table", async () => {
    const r = await asof(['keys', 'create', '--stage', 'dev', '--name', 'acme']);

    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Created live key (key_\S+) on stage dev \(scopes: lookup\)\. Copy it now; it is not shown again:\nasof_live_\w+\n$/,
    );
    const [, id] = /Created live key (key_\S+)/.exec(r.stdout)!;
    const key = r.stdout.trim().split('\n')[1]!;
    const [gatewayKey, ...others] = gatewayKeyNamed(id!);
    expect(others).toEqual([]);
    expect(gatewayKey).toMatchObject({
      value: sha256(key),
      enabled: true,
      tags: { 'asof:key-id': id, 'asof:tier': 'free', 'asof:stage': PREFIX },
    });
    expect(fake.keysOn(`${PREFIX}-free`)).toContainEqual(gatewayKey);
    expect(await accounts.getById(id!)).toMatchObject({ id, name: 'acme', hash: sha256(key), plan: 'free', revokedAt: null });
  });

  it("puts a key whose override exceeds its plan's throttle on the smallest tier that admits it", async () => {
    const issued = await createOnStage('burst', '--plan', 'free', '--per-minute', '60');

    const [gatewayKey] = gatewayKeyNamed(issued.id);
    expect(fake.keysOn(`${PREFIX}-starter`)).toContainEqual(gatewayKey);
    expect(await accounts.getById(issued.id)).toMatchObject({ plan: 'free', limits: { perMinute: 60 } });
  });

  it("lists the stage's keys without their secrets and reports a key's usage", async () => {
    const issued = await issuedOnStage('listed');

    const listed = await asof(['keys', 'list', '--stage', 'dev']);
    const usage = await asof(['keys', 'usage', issued.id, '--stage', 'dev']);

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${issued.id}  ${issued.prefix}…  listed  plan=free`);
    expect(listed.stdout).not.toContain(issued.key);
    expect(listed.stdout).not.toContain(sha256(issued.key));
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toContain(`${issued.id}  listed  plan free: 30/minute, 1,000 units/day, 10,000 units/month`);
  });

  it('revokes the record and disables the gateway key; revoking again changes nothing', async () => {
    const issued = await issuedOnStage('leaver');

    const first = await asof(['keys', 'revoke', issued.id, '--stage', 'dev']);
    const revokedAt = (await accounts.getById(issued.id))!.revokedAt;
    const again = await asof(['keys', 'revoke', issued.id, '--stage', 'dev']);

    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Revoked .*revoked .*; its gateway key is disabled\n$/);
    expect(revokedAt).not.toBeNull();
    expect(gatewayKeyNamed(issued.id).map((k) => k.enabled)).toEqual([false]);
    expect(again.code, again.stderr).toBe(0);
    expect((await accounts.getById(issued.id))!.revokedAt).toBe(revokedAt);
    expect(gatewayKeyNamed(issued.id).map((k) => k.enabled)).toEqual([false]);
  });

  it('leaves no record and no gateway key when API Gateway fails midway, and a rerun issues a working key', async () => {
    const keysBefore = fake.apiKeys.size;
    fake.fail('CreateUsagePlanKey', OUTAGE, Infinity);

    const failed = await asof(['keys', 'create', '--stage', 'dev', '--name', 'midway']);

    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^asof keys: /);
    expect(fake.requests).toContain('CreateApiKey');
    expect(fake.apiKeys.size).toBe(keysBefore);
    expect(await recordsNamed('midway')).toEqual([]);

    fake.clearFailures();
    const issued = await createOnStage('midway');
    expect(gatewayKeyNamed(issued.id)).toMatchObject([{ value: sha256(issued.key), enabled: true }]);
    expect((await recordsNamed('midway')).map((k) => k.id)).toEqual([issued.id]);
  });

  it('keeps a revocation whose gateway step failed in force, and a rerun completes it', async () => {
    const issued = await issuedOnStage('half-revoked');
    fake.fail('UpdateApiKey', OUTAGE, Infinity);

    const failed = await asof(['keys', 'revoke', issued.id, '--stage', 'dev']);

    expect(failed.code).toBe(1);
    expect((await accounts.getById(issued.id))!.revokedAt).not.toBeNull(); // the authority refuses the key already
    expect(gatewayKeyNamed(issued.id).map((k) => k.enabled)).toEqual([true]);

    fake.clearFailures();
    const rerun = await asof(['keys', 'revoke', issued.id, '--stage', 'dev']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(gatewayKeyNamed(issued.id).map((k) => k.enabled)).toEqual([false]);
  });

  it('refuses an unknown stage as a usage error that names the known ones, before touching anything', async () => {
    const requests = fake.requests.length;

    const r = await asof(['keys', 'create', '--stage', 'staging', '--name', 'x']);

    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`unknown stage 'staging' (known: ${Object.keys(STAGES).join(', ')})`);
    expect(fake.requests.length).toBe(requests);
  });

  it('says so when a key to revoke does not exist on the stage', async () => {
    const r = await asof(['keys', 'revoke', 'key_nobody', '--stage', 'dev']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no key with id key_nobody on stage dev');
  });

  it('changes nothing locally: without --stage, keys never reach API Gateway', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'asof-local-keys-'));
    try {
      const requests = fake.requests.length;
      const r = await asof(['keys', 'create', '--name', 'local', '--json', '--data-dir', dataDir]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).key).toMatch(/^asof_live_/);
      expect(fake.requests.length).toBe(requests);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('issuing and revoking with a gateway (in process)', () => {
  it('takes the gateway key down when the record cannot be written: no key works that nobody holds', async () => {
    const missingTable = new DynamoAccountStore(doc, `${PREFIX}-no-such-table`);
    const gateway = new ApiGatewayKeys(gatewayClient(), PREFIX);
    const before = new Set(fake.apiKeys.keys());

    await expect(issueKey(missingTable, { name: 'orphan' }, new Date(), new PlanBook(), gateway)).rejects.toThrow(
      /not found|ResourceNotFound/i,
    );

    const created = [...fake.apiKeys.values()].filter((k) => !before.has(k.id));
    expect(created).toHaveLength(1);
    expect(created[0]!.enabled).toBe(false);
  });

  it('creates nothing when the stage has no usage plan for the tier (not deployed)', async () => {
    const undeployed = new ApiGatewayKeys(gatewayClient(), 'asof-nowhere');
    const keys = fake.apiKeys.size;

    await expect(issueKey(accounts, { name: 'too-early' }, new Date(), new PlanBook(), undeployed)).rejects.toThrow(
      'no usage plan named asof-nowhere-free: is the stage deployed?',
    );

    expect(fake.apiKeys.size).toBe(keys);
    expect(await recordsNamed('too-early')).toEqual([]);
  });

  it('refuses a key no tier can carry before calling API Gateway at all', async () => {
    const plans = new PlanBook({ default: 'a', plans: [{ id: 'a', name: 'A', perMinute: 30, daily: 10, monthly: 10 }] });
    const requests = fake.requests.length;

    await expect(
      issueKey(accounts, { name: 'fast', limits: { perMinute: 100 } }, new Date(), plans, new ApiGatewayKeys(gatewayClient(), PREFIX)),
    ).rejects.toThrow(/no plan's usage plan admits 100/);

    expect(fake.requests.length).toBe(requests);
    expect(await recordsNamed('fast')).toEqual([]);
  });

  it('revokes the record before the gateway key: an unreachable gateway leaves the key refused by the record', async () => {
    const gateway = new ApiGatewayKeys(gatewayClient(), PREFIX);
    const issued = await issueKey(accounts, { name: 'order' }, new Date(), new PlanBook(), gateway);
    fake.fail('GetApiKeys', OUTAGE, Infinity);

    await expect(revokeKey(accounts, issued.id, new Date(), gateway)).rejects.toThrow();

    expect((await accounts.getById(issued.id))!.revokedAt).not.toBeNull();
    fake.clearFailures();
    expect(await revokeKey(accounts, issued.id, new Date(), gateway)).toMatchObject({ gatewayKey: 'disabled' });
  });
});

describe('ApiGatewayKeys', () => {
  const gateway = () => new ApiGatewayKeys(gatewayClient(), PREFIX);
  const record = (id: string): ApiKeyRecord => ({
    id,
    name: id,
    hash: sha256(id),
    prefix: 'asof_live_abcdef',
    scopes: ['lookup'],
    test: false,
    createdAt: new Date().toISOString(),
    revokedAt: null,
    plan: 'free',
    limits: {},
  });

  it('disables the key of exactly that name, through every page, and says whether there was one', async () => {
    const g = gateway();
    await g.register(record('key_pager'), 'free');
    await g.register(record('key_pager2'), 'free'); // shares the name's prefix: API Gateway's name query returns it too
    fake.pageCap = 1;
    try {
      expect(await g.disable('key_pager')).toBe(true);
      expect(await g.disable('key_absent')).toBe(false);
    } finally {
      fake.pageCap = 500;
    }
    expect(gatewayKeyNamed('key_pager').map((k) => k.enabled)).toEqual([false]);
    expect(gatewayKeyNamed('key_pager2').map((k) => k.enabled)).toEqual([true]);
  });

  it('finds its usage plan through every page, and refuses two plans of the same name', async () => {
    fake.pageCap = 1;
    try {
      await gateway().register(record('key_paged_plan'), 'enterprise'); // the last of the plans
    } finally {
      fake.pageCap = 500;
    }
    expect(fake.keysOn(`${PREFIX}-enterprise`).map((k) => k.name)).toContain('key_paged_plan');

    const twin = fake.addUsagePlan(`${PREFIX}-pro`);
    try {
      await expect(gateway().register(record('key_twin'), 'pro')).rejects.toThrow(`2 usage plans are named ${PREFIX}-pro; expected one`);
      expect(gatewayKeyNamed('key_twin')).toEqual([]);
    } finally {
      fake.usagePlans.splice(fake.usagePlans.indexOf(twin), 1);
    }
  });

  it('refuses a second key with the same hash (API Gateway key values are unique)', async () => {
    await gateway().register(record('key_same'), 'free');
    await expect(gateway().register({ ...record('key_same_again'), hash: sha256('key_same') }, 'free')).rejects.toThrow(/already exists/);
    expect(gatewayKeyNamed('key_same_again')).toEqual([]);
  });
});
