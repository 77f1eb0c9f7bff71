/**
 * The public pages that read the law must not stall the server for everyone (issue 29, row 4): sixteen clients with no
 * key asking five comparisons of a long section each meet one per-address budget (429 with Retry-After, an HTML page
 * with the pages' headers) shared with the search page, while a second client's cheap lookups keep answering within
 * the bound; the pages that read nothing stay open. A server of its own (the budget is per process), on a data dir
 * holding only what the test reads: Title 1 of the US Code (the cheap lookups) and the D.C. sample (the comparisons).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_READS_PER_MINUTE } from '#accounts/edge-limit.ts';
import { issueKey } from '#accounts/issue-key.ts';
import { PAGE_HEADERS } from '#http/pages/html.ts';
import { runIngest } from '#ingest/jobs.ts';
import { type LocalServer, serveLocal } from '#local/local-runtime.ts';
import { besideLookups, CHEAP_MAX_MS, CHEAP_P50_MS } from '../support/beside-lookups.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
const DC_MANIFEST = fileURLToPath(new URL('../../data/sample/dc-code/manifest.csv', import.meta.url));
const CLIENTS = 16;
/** Often enough to see any stall, seldom enough to stay under the key's 120 a minute for the attack's few seconds. */
const LOOKUP_EVERY_MS = 150;
const PAGES_EACH = 5;
/** Comparisons of D.C. Code § 28-3814 (27,000 and 36,000 characters, much rewritten between them) across its history. */
const COMPARISONS = [
  ['2021-10-20', '2024-05-01'],
  ['2021-10-20', '2024-10-11'],
  ['2021-11-05', '2024-05-01'],
  ['2022-01-08', '2024-05-01'],
  ['2021-10-20', '2023-06-01'],
] as const;

let server: LocalServer;
let dataDir: string;
let key: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asof-hostile-pages-'));
  server = await serveLocal({
    dataDir,
    port: 0,
    sample: false,
    schedules: false,
    logger: new Logger({ serviceName: 'asof-test', logLevel: 'ERROR' }),
  });
  await runIngest(server.stores, { kind: 'uslm', files: [USLM] });
  await runIngest(server.stores, { kind: 'dc-code', manifest: DC_MANIFEST });
  // The cheap lookups' key: the highest per-minute ceiling (the edge limit), one lookup every LOOKUP_EVERY_MS.
  key = (
    await issueKey(
      server.stores.accounts,
      { name: 'beside', limits: { perMinute: 120, daily: 1_000_000, monthly: 10_000_000 } },
      new Date(),
    )
  ).key;
});
afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const site = (path: string) => `${server.services.site.siteUrl}${path}`;

describe('sixteen clients with no key, five comparisons of a long section each', () => {
  it('meet one per-address budget (429 with Retry-After, an HTML page), shared with search; cheap lookups keep answering', async () => {
    // Prepare: the budget is counted per UTC minute; the whole attack runs inside one.
    const seconds = new Date().getUTCSeconds();
    if (seconds > 40) await sleep((61 - seconds) * 1_000);
    const paths = Array.from({ length: CLIENTS }, (_, c) =>
      Array.from({ length: PAGES_EACH }, (_, i) => {
        const [from, to] = COMPARISONS[(c + i) % COMPARISONS.length]!;
        return `/law/dc/statutes/28-3814?from=${from}&to=${to}`;
      }),
    );
    const client = async (mine: string[]) => {
      const answers = [];
      for (const path of mine) {
        const res = await fetch(site(path));
        answers.push({ status: res.status, headers: res.headers, body: await res.text() });
      }
      return answers;
    };

    // Act
    const run = await besideLookups({ url: server.url, key }, () => Promise.all(paths.map(client)), { everyMs: LOOKUP_EVERY_MS });

    // Assess: the cheap lookups were not held.
    const answers = run.attack.flat();
    console.info(`cheap lookups beside ${answers.length} comparisons: p50 ${run.p50.toFixed(0)} ms, max ${run.max.toFixed(0)} ms`);
    expect(run.statuses.every((s) => s === 200)).toBe(true);
    expect(run.p50).toBeLessThan(CHEAP_P50_MS);
    expect(run.max).toBeLessThan(CHEAP_MAX_MS);
    // Within the budget the comparison is shown; past it, refused as a page with a time to come back.
    const shown = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(shown.length + refused.length).toBe(CLIENTS * PAGES_EACH);
    expect(shown.length).toBe(SITE_READS_PER_MINUTE);
    expect(shown[0]!.body).toMatch(/<pre class="diff">[\s\S]*<ins>/);
    for (const r of refused) {
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('content-security-policy')).toBe(PAGE_HEADERS['content-security-policy']);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.body).toContain(`At most ${SITE_READS_PER_MINUTE} pages of the law a minute from one address`);
    }

    // One budget for every page that reads the law: a section without a comparison and a search are refused too.
    for (const path of ['/law/dc/statutes/28-3814', '/search?q=interest']) expect((await fetch(site(path))).status).toBe(429);
    // The pages that read nothing per request stay open; so does the API (its own limits, per key).
    expect((await fetch(site('/'))).status).toBe(200);
    expect((await fetch(site('/docs'))).status).toBe(200);
    expect((await fetch(site('/cite?citation=28-3814&jurisdiction=dc'), { redirect: 'manual' })).status).toBe(303);
  });
});
