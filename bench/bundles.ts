import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { ROUTES } from '#http/routes.ts';
import { ENV, TABLE_ENV } from '#lambda/env.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const INIT_RUNS = 5;

export interface BundleFigure {
  routeId: string;
  bytes: number;
  gzipBytes: number;
  /** Median over INIT_RUNS fresh Node processes: `await import(bundle)` (module init: clients and adapters wired). */
  initMs: number;
}

/** The bundle as lib/route-function.ts asks CDK for it (ESM, node22, minified, the AWS SDK inside). */
async function bundle(routeId: string, outdir: string): Promise<string> {
  const outfile = join(outdir, `${routeId}.mjs`);
  await build({
    entryPoints: [join(REPO, 'functions/lambda/routes', `${routeId}.ts`)],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** What a deployed function's environment holds (every store bound, so that each function builds all its adapters). */
const DEPLOYED_ENV = {
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  POWERTOOLS_DEV: 'true',
  ...Object.fromEntries(Object.entries(TABLE_ENV).map(([kind, name]) => [name, `asof-bench-${kind}`])),
  [ENV.siteUrl]: 'https://asof.test',
  [ENV.baseUrl]: 'https://asof.test/v1',
  [ENV.searchUrl]: 'https://search.asof.test',
  [ENV.caseLawHost]: 'proxy.asof.test',
  [ENV.courtListenerSecret]: 'asof-bench/courtlistener-token',
};

function initMs(file: string): number {
  const times: number[] = [];
  for (let i = 0; i < INIT_RUNS; i++) {
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`], {
      env: DEPLOYED_ENV,
      encoding: 'utf8',
    });
    if (out.status !== 0) throw new Error(`importing ${file} failed: ${out.stderr}`);
    times.push(Number(out.stdout.trim().split('\n').at(-1)));
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** Each endpoint function's bundle size and module-init time (issue 6: ≤ 1 MB, ≤ 150 ms). */
export async function bundleFigures(log: (line: string) => void): Promise<BundleFigure[]> {
  const outdir = await mkdtemp(join(tmpdir(), 'asof-bundles-'));
  try {
    const figures: BundleFigure[] = [];
    for (const route of ROUTES) {
      const file = await bundle(route.id, outdir);
      const bytes = (await stat(file)).size;
      const figure = { routeId: route.id, bytes, gzipBytes: gzipSync(readFileSync(file)).length, initMs: initMs(file) };
      log(`  ${route.id}: ${(bytes / 1024).toFixed(0)} KiB, init ${figure.initMs.toFixed(0)} ms`);
      figures.push(figure);
    }
    return figures;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
