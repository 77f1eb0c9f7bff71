/**
 * What each endpoint function's bundle holds, bundled as lib/asof-function.ts asks CDK to: what a function does not
 * need stays out of it (the response schemas outside the OpenAPI functions, a store's client outside the routes that
 * use the store), and every bundle stays under the 1 MB. The benchmark measures the init times these make.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAGES } from '#http/pages/site-pages.ts';
import type { Route } from '#http/route.ts';
import { ROUTES } from '#http/routes.ts';
import { deployedEnv, LAMBDA_BUNDLING } from '../../bench/bundles.ts';
import { FUNCTION_BUNDLE } from '../../lib/asof-function.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const bundles = new Map<string, { bytes: number; inputs: string[] }>();

async function bundle(name: string, entry: string): Promise<{ bytes: number; inputs: string[] }> {
  const out = await build({
    ...LAMBDA_BUNDLING,
    absWorkingDir: REPO,
    entryPoints: [`functions/lambda/${entry}`],
    outfile: `/bundles/${name}/index.js`,
    write: false,
    metafile: true,
  });
  const code = out.outputFiles.find((f) => f.path.endsWith('index.js'))!;
  // What made it into the output: a module imported for its types only is read, and dropped.
  const [, output] = Object.entries(out.metafile.outputs).find(([path]) => path.endsWith('index.js'))!;
  const inputs = Object.entries(output.inputs)
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([path]) => path);
  return { bytes: code.contents.byteLength, inputs };
}

const pages = new Map<string, { bytes: number; inputs: string[] }>();

beforeAll(async () => {
  await Promise.all([
    ...ROUTES.map(async (route) => bundles.set(route.id, await bundle(route.id, `routes/${route.id}.ts`))),
    ...PAGES.map(async (page) => pages.set(page.id, await bundle(`page-${page.id}`, `pages/${page.id}.ts`))),
  ]);
}, 120_000);

/** The routes whose bundle holds a module matching `pattern`. */
const holding = (pattern: RegExp) =>
  ROUTES.filter((r) => bundles.get(r.id)!.inputs.some((i) => pattern.test(i)))
    .map((r) => r.id)
    .sort();
const routesWhere = (test: (r: Route) => boolean) =>
  ROUTES.filter(test)
    .map((r) => r.id)
    .sort();

describe('a function bundles what it runs', () => {
  it('builds every route entry', () => {
    expect([...bundles.keys()].sort()).toEqual(routesWhere(() => true));
  });

  it('holds the response schemas and zod-openapi only in the functions that serve the OpenAPI document', () => {
    const openapi = routesWhere((r) => r.tag === 'spec');

    expect(openapi).toEqual(['openapi-json', 'openapi-yaml']);
    expect(holding(/functions\/http\/schemas-responses/)).toEqual(openapi);
    expect(holding(/node_modules\/zod-openapi\//)).toEqual(openapi);
  });

  it("holds a store's client only where the route declares the store", () => {
    expect(holding(/node_modules\/@opensearch-project\/opensearch\//)).toEqual(routesWhere((r) => r.stores.includes('search')));
    expect(holding(/node_modules\/pg\//)).toEqual(routesWhere((r) => r.stores.includes('caselaw')));
    expect(holding(/node_modules\/@aws-sdk\/client-secrets-manager\//)).toEqual(routesWhere((r) => r.stores.includes('fallback')));
  });

  it('stays under 1 MB (the MCP function apart: below)', () => {
    const over = [...bundles].filter(([id, b]) => id !== 'mcp' && b.bytes > 1024 * 1024).map(([id, b]) => `${id}: ${b.bytes} bytes`);

    expect(over).toEqual([]);
  });

  it('holds the MCP SDK in the MCP function only, which runs every tool’s route and so holds their stores’ clients: under 1.5 MB', () => {
    // The SDK's Server imports ajv (its JSON Schema validator) statically; with the OpenSearch, pg and Secrets Manager
    // clients of the tools' routes, the function measured 1.37 MB (2026-11-24). The OpenAPI functions read the route
    // table but never load the SDK (the serving process brings it, Services.mcp).
    expect(holding(/node_modules\/@modelcontextprotocol\/sdk\//)).toEqual(['mcp']);
    expect(bundles.get('mcp')!.bytes).toBeLessThan(1.5 * 1024 * 1024);
  });
});

/**
 * What a page function may hold beyond the DynamoDB client and its page: the pages that read the law the edge
 * limiter's counter (their per-address budget, pages/page-budget.ts), the search page its store's client too, the
 * docs files' page the route table and its schemas, from which it builds the OpenAPI document as the API's openapi
 * function does.
 */
const EDGE_LIMIT = /functions\/accounts\/edge-limit\.ts/;
const PAGE_ALLOWED: Record<string, RegExp> = {
  search: new RegExp(`node_modules/@opensearch-project/|${EDGE_LIMIT.source}`),
  permalink: EDGE_LIMIT,
  'docs-asset': /node_modules\/(zod|zod-openapi)\/|functions\/accounts\/|functions\/http\/middlewares\//,
};

describe('a site page function bundles what a page runs', () => {
  it("holds the DynamoDB client and the page, and no route machinery: no zod, no other store's client, no meter", () => {
    expect([...pages.keys()].sort()).toEqual(PAGES.map((p) => p.id).sort());
    for (const [id, b] of pages) {
      expect(
        b.inputs.some((i) => i.includes('node_modules/@aws-sdk/client-dynamodb/')),
        id,
      ).toBe(true);
      expect(
        b.inputs.some((i) => i.includes(`functions/http/pages/${id}.ts`)),
        id,
      ).toBe(true);
      const unwanted = b.inputs.filter(
        (i) =>
          /node_modules\/(zod|zod-openapi|pg|@opensearch-project|@aws-sdk\/client-secrets-manager)\/|functions\/accounts\/|functions\/http\/middlewares\//.test(
            i,
          ) && !PAGE_ALLOWED[id]?.test(i),
      );
      expect(unwanted, id).toEqual([]);
      expect(b.bytes, id).toBeLessThan(1024 * 1024);
    }
  });
});

describe('the US Code fetch’s functions bundle what their steps run', () => {
  const jobs = new Map<string, { bytes: number; inputs: string[] }>();
  beforeAll(async () => {
    for (const job of ['ingest', 'uscode-fetch', 'uscode-ingest']) jobs.set(job, await bundle(`job-${job}`, `jobs/${job}.ts`));
  }, 120_000);
  const holds = (job: string, pattern: RegExp) => jobs.get(job)!.inputs.some((i) => pattern.test(i));

  it('the publisher’s step: the page reader, the zip check, S3 and DynamoDB, but no search client, no pg, no USLM parser; under 1 MB', () => {
    for (const wanted of [
      /node_modules\/htmlparser2\//,
      /node_modules\/yauzl\//,
      /node_modules\/@aws-sdk\/client-s3\//,
      /client-dynamodb\//,
    ])
      expect(holds('uscode-fetch', wanted), String(wanted)).toBe(true);
    for (const unwanted of [
      /node_modules\/@opensearch-project\//,
      /node_modules\/pg\//,
      /node_modules\/saxes\//,
      /functions\/ingest\/uslm\.ts/,
    ])
      expect(holds('uscode-fetch', unwanted), String(unwanted)).toBe(false);
    expect(jobs.get('uscode-fetch')!.bytes).toBeLessThan(1024 * 1024);
  });

  it('the stores’ step: the USLM parser and the search client, no pg, and no bigger than the ingest job it does part of', () => {
    expect(holds('uscode-ingest', /functions\/ingest\/uslm\.ts/)).toBe(true);
    expect(holds('uscode-ingest', /node_modules\/@opensearch-project\//)).toBe(true);
    expect(holds('uscode-ingest', /node_modules\/pg\//)).toBe(false);
    // The publisher is read in the fetch step only. (htmlparser2 itself is here since the state codes' reader, one of the
    // ingest job's connectors, uses it.)
    expect(holds('uscode-ingest', /functions\/ingest\/olrc\/(?:fetch-uscode|download|select)\.ts/)).toBe(false);
    expect(jobs.get('uscode-ingest')!.bytes).toBeLessThanOrEqual(jobs.get('ingest')!.bytes);
  });
});

describe('the D.C. Code sync’s functions bundle what their steps run', () => {
  const jobs = new Map<string, { bytes: number; inputs: string[] }>();
  beforeAll(async () => {
    for (const job of ['dc-code-sync', 'dc-code-ingest']) jobs.set(job, await bundle(`job-${job}`, `jobs/${job}.ts`));
  }, 120_000);
  const holds = (job: string, pattern: RegExp) => jobs.get(job)!.inputs.some((i) => pattern.test(i));

  it('the remote’s step: isomorphic-git and its HTTP client, S3 and DynamoDB, but no search client, no pg, no section parser', () => {
    for (const wanted of [/node_modules\/isomorphic-git\/(?:index|http\/node)/, /node_modules\/@aws-sdk\/client-s3\//, /client-dynamodb\//])
      expect(holds('dc-code-sync', wanted), String(wanted)).toBe(true);
    for (const unwanted of [/node_modules\/@opensearch-project\//, /node_modules\/pg\//, /functions\/ingest\/dc-code\.ts/])
      expect(holds('dc-code-sync', unwanted), String(unwanted)).toBe(false);
  });

  it('the stores’ step: isomorphic-git, the D.C. section parser and the search client, but no git HTTP client and no pg', () => {
    for (const wanted of [/node_modules\/isomorphic-git\/index/, /functions\/ingest\/dc-code\.ts/, /node_modules\/@opensearch-project\//])
      expect(holds('dc-code-ingest', wanted), String(wanted)).toBe(true);
    expect(holds('dc-code-ingest', /node_modules\/pg\//)).toBe(false);
    // The remote is read in the sync step only.
    expect(holds('dc-code-ingest', /node_modules\/isomorphic-git\/http\//)).toBe(false);
  });
});

describe('the state-code syncs’ functions bundle what their steps run', () => {
  const jobs = new Map<string, { bytes: number; inputs: string[] }>();
  beforeAll(async () => {
    for (const job of ['state-code-fetch', 'state-code-ingest']) jobs.set(job, await bundle(`job-${job}`, `jobs/${job}.ts`));
  }, 120_000);
  const holds = (job: string, pattern: RegExp) => jobs.get(job)!.inputs.some((i) => pattern.test(i));

  it('the publisher’s step: the file fetch, S3 and DynamoDB, but no search client, no pg, no ingest engine; under 1 MB', () => {
    for (const wanted of [/functions\/ingest\/state-codes\/fetch\.ts/, /node_modules\/@aws-sdk\/client-s3\//, /client-dynamodb\//])
      expect(holds('state-code-fetch', wanted), String(wanted)).toBe(true);
    // (The title reader comes along: the file fetch shares its module with `asof fetch state-code`, which ingests.)
    for (const unwanted of [/node_modules\/@opensearch-project\//, /node_modules\/pg\//, /functions\/ingest\/engine\.ts/])
      expect(holds('state-code-fetch', unwanted), String(unwanted)).toBe(false);
    expect(jobs.get('state-code-fetch')!.bytes).toBeLessThan(1024 * 1024);
  });

  it('the stores’ step: the title reader and the search client, but no pg', () => {
    for (const wanted of [/functions\/ingest\/state-codes\/title-html\.ts/, /node_modules\/@opensearch-project\//])
      expect(holds('state-code-ingest', wanted), String(wanted)).toBe(true);
    expect(holds('state-code-ingest', /node_modules\/pg\//)).toBe(false);
  });
});

describe('a bundle as the Lambda runtime loads it', () => {
  it('exports its handler when required from a folder of its own, as /var/task holds it (CommonJS, no package.json)', {
    timeout: 60_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asof-bundle-'));
    try {
      expect(FUNCTION_BUNDLE.format).toBe('cjs');
      for (const [name, entry] of [
        ['health', 'routes/health.ts'],
        ['caselaw-citations', 'routes/caselaw-citations.ts'],
        ['page-permalink', 'pages/permalink.ts'],
        ['job-uscode-fetch', 'jobs/uscode-fetch.ts'],
        ['job-dc-code-sync', 'jobs/dc-code-sync.ts'],
        ['job-dc-code-ingest', 'jobs/dc-code-ingest.ts'],
      ] as const) {
        const taskRoot = join(dir, name);
        await build({
          ...LAMBDA_BUNDLING,
          absWorkingDir: REPO,
          entryPoints: [`functions/lambda/${entry}`],
          outfile: join(taskRoot, 'index.js'),
        });
        const script =
          "const m = require(require('node:path').join(process.env.LAMBDA_TASK_ROOT, 'index.js')); console.log(typeof m.handler);";
        const env = {
          ...deployedEnv(name, taskRoot),
          NODE_OPTIONS: FUNCTION_BUNDLE.nodeOptions,
          REPORTERS_DB_DIR: join(REPO, 'layers/reporters-db'),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        };
        const out = spawnSync(process.execPath, ['-e', script], { cwd: taskRoot, env, encoding: 'utf8' });

        expect(out.stderr, name).toBe('');
        expect(out.stdout.trim(), name).toBe('function');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
