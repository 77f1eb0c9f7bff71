import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { TestProject } from 'vitest/node';
import { issueKey } from '#accounts/issue-key.ts';
import { serveLocal } from '#local/local-runtime.ts';

export interface HttpFixture {
  /** API base URL, e.g. http://127.0.0.1:41234/v1 */
  url: string;
  siteUrl: string;
  dataDir: string;
  keys: { lookup: string; test: string; noScope: string; revoked: string; pool: string[] };
}

declare module 'vitest' {
  export interface ProvidedContext {
    asof: HttpFixture;
  }
}

/**
 * One real local server (sample corpus, on-disk stores in a temp data dir) for every black-box HTTP test of the run.
 * It meters every call as `asof serve` does. The tests' calls are spread over a pool of keys (as a server's traffic
 * is spread over its customers), each far from its ceilings, so that limits are met only where they are tested
 * (limits.test.ts, with a server and a clock of its own).
 */
const POOL = 24;
const ROOMY = { perMinute: 120, daily: 1_000_000, monthly: 10_000_000 };
export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(join(tmpdir(), 'asof-http-'));
  // The site's per-address budget of law pages is met only where it is tested (hostile-pages.test.ts, a server of
  // its own): every test here reads pages from the same address.
  const server = await serveLocal({
    dataDir,
    port: 0,
    sample: true,
    schedules: true,
    siteReadsPerMinute: 100_000,
    // Some tests stop a store on purpose, and its warnings would print: this process's output is not held back per
    // test as the workers' is (silent: 'passed-only'), so only errors print.
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  const accounts = server.stores.accounts;
  const now = new Date();
  const lookup = await issueKey(accounts, { name: 'http tests', limits: ROOMY }, now);
  const test = await issueKey(accounts, { name: 'http tests (test key)', test: true, limits: ROOMY }, now);
  const pool = await Promise.all(
    Array.from({ length: POOL }, (_, i) => issueKey(accounts, { name: `http tests ${i}`, limits: ROOMY }, now)),
  );
  const noScope = await issueKey(accounts, { name: 'no lookup scope', scopes: ['admin'] }, now);
  const revoked = await issueKey(accounts, { name: 'revoked' }, now);
  await accounts.revoke(revoked.id, now.toISOString());
  project.provide('asof', {
    url: server.url,
    siteUrl: server.services.site.siteUrl,
    dataDir,
    keys: { lookup: lookup.key, test: test.key, noScope: noScope.key, revoked: revoked.key, pool: pool.map((k) => k.key) },
  });
  return async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  };
}
