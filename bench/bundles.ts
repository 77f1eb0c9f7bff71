import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { PAGES } from '#http/pages/site-pages.ts';
import { ROUTES } from '#http/routes.ts';
import { ENV, TABLE_ENV } from '#lambda/env.ts';
import { FUNCTION_BUNDLE } from '../lib/asof-function.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Fresh processes per bundle; the runs go round the bundles in turn, so that a burst of load on the machine is spread over all of them. */
const INIT_RUNS = 15;

export interface BundleFigure {
  /** A route id, a baseline's or a variant's name. */
  name: string;
  medianMs: number;
  minMs: number;
  /** Median CPU time (user + system, all threads) of the import: less sensitive than wall time to other work on a shared machine. */
  cpuMedianMs: number;
  bytes: number;
  gzipBytes: number;
  /** The source map beside the bundle (Node reads it at load with --enable-source-maps). */
  mapBytes: number;
}

export interface BundleResults {
  /** `node --version` of the binary that imported the bundles, and where it came from. */
  node: string;
  nodeSource: 'ASOF_BENCH_NODE' | 'the bench process';
  runs: number;
  /** The function's NODE_OPTIONS, as lib/asof-function.ts deploys it. */
  nodeOptions: string;
  /** What every function must load at least, bundled the same way: an empty module, the DynamoDB client, then Powertools with it. */
  baselines: BundleFigure[];
  functions: BundleFigure[];
  /** One function (`leversOf`) bundled or started otherwise than lib/asof-function.ts does today: what the deployment settings cost. */
  leversOf: string;
  levers: BundleFigure[];
}

/** lib/asof-function.ts: `environment` and `bundling` of every function (CDK runs esbuild with these). */
const DEPLOYED_NODE_OPTIONS = FUNCTION_BUNDLE.nodeOptions;
export const LAMBDA_BUNDLING: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: FUNCTION_BUNDLE.format,
  define: FUNCTION_BUNDLE.define,
  target: FUNCTION_BUNDLE.target,
  minify: FUNCTION_BUNDLE.minify,
  sourcemap: FUNCTION_BUNDLE.sourceMap,
  sourcesContent: FUNCTION_BUNDLE.sourcesContent,
  mainFields: [...FUNCTION_BUNDLE.mainFields],
  banner: { js: FUNCTION_BUNDLE.banner },
  logLevel: 'error',
};

/**
 * The baselines' entries: the DynamoDB document client every function builds (functions/stores/dynamodb/client.ts),
 * then that with the logger, metrics and tracer behind middy that the issue asks of every function.
 */
const BASELINES: { name: string; contents: string }[] = [
  { name: 'empty module', contents: 'export const handler = async () => ({});' },
  {
    name: 'DynamoDB client only',
    contents:
      "import { createDocumentClient } from '#stores/dynamodb/client.ts';\nconst doc = createDocumentClient({ region: process.env.AWS_REGION });\nexport const handler = async () => doc.config.region;",
  },
  {
    name: 'DynamoDB client + Powertools',
    contents: [
      "import { Logger } from '@aws-lambda-powertools/logger';",
      "import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';",
      "import { Metrics } from '@aws-lambda-powertools/metrics';",
      "import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';",
      "import { Tracer } from '@aws-lambda-powertools/tracer';",
      "import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';",
      "import middy from '@middy/core';",
      "import { createDocumentClient } from '#stores/dynamodb/client.ts';",
      'const doc = createDocumentClient({ region: process.env.AWS_REGION });',
      "const logger = new Logger({ serviceName: 'asof' });",
      "const metrics = new Metrics({ namespace: 'asof', serviceName: 'asof' });",
      "const tracer = new Tracer({ serviceName: 'asof' });",
      'export const handler = middy(async () => doc.config.region).use(captureLambdaHandler(tracer)).use(logMetrics(metrics)).use(injectLambdaContext(logger));',
    ].join('\n'),
  },
];

/**
 * The environment of a deployed function: what the Lambda runtime sets (reserved variables, X-Ray daemon) and what
 * lib/ configures (the service name; every store bound, so that each function builds what its route uses; NODE_OPTIONS
 * is added per bundle). AWS_EXECUTION_ENV and LAMBDA_TASK_ROOT matter: with them the Powertools Tracer is enabled and
 * patches http/https, and the X-Ray SDK starts in Lambda mode, as in AWS. No AWS call is made at load.
 */
export function deployedEnv(name: string, taskRoot: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    _HANDLER: 'index.handler',
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: '/var/runtime',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: `asof-bench-${name}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'ASIABENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench',
    AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000',
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    POWERTOOLS_SERVICE_NAME: 'asof',
    ...Object.fromEntries(Object.entries(TABLE_ENV).map(([kind, table]) => [table, `asof-bench-${kind}`])),
    [ENV.siteUrl]: 'https://asof.test',
    [ENV.baseUrl]: 'https://asof.test/v1',
    [ENV.searchUrl]: 'https://search.asof.test',
    [ENV.caseLawHost]: 'proxy.asof.test',
    [ENV.courtListenerSecret]: 'asof-bench/courtlistener-token',
    [ENV.sourcesBucket]: 'asof-bench-sources',
    [ENV.caseLawAdminSecret]: 'asof-bench/caselaw-admin',
    [ENV.searchReadRoles]: '["arn:aws:iam::123456789012:role/asof-bench-reader"]',
    [ENV.searchWriteRoles]: '["arn:aws:iam::123456789012:role/asof-bench-writer"]',
  };
}

/** Every function the stacks deploy: one per route, the bearer authorizer, the site's pages, the scheduled jobs and the deploy-time setup job. */
const FUNCTIONS: { name: string; entry: string }[] = [
  ...ROUTES.map((r) => ({ name: r.id, entry: `routes/${r.id}.ts` })),
  { name: 'authorizer', entry: 'authorizer.ts' },
  ...PAGES.map((p) => ({ name: `page-${p.id}`, entry: `pages/${p.id}.ts` })),
  ...['probe', 'coverage', 'audit', 'ingest', 'setup', 'uscode-fetch', 'uscode-ingest'].map((job) => ({
    name: `job-${job}`,
    entry: `jobs/${job}.ts`,
  })),
];

/** The function whose deployment settings are varied (the most called endpoint). */
const LEVERS_OF = 'law-lookup';

interface Lever {
  name: string;
  bundling?: BuildOptions;
  nodeOptions?: string;
  /** How the runtime loads the handler: `import()` for an ES module, `require` for a CommonJS one. */
  load?: 'import' | 'require';
}

const LEVERS: Lever[] = [
  { name: 'as deployed' },
  { name: 'source map with sourcesContent', bundling: { sourcesContent: true } },
  { name: 'no --enable-source-maps', nodeOptions: '' },
  // The format deployed before (bench 1d of earlier runs): an ES module, `require` given by a banner.
  {
    name: 'ES module bundle, imported',
    bundling: {
      format: 'esm',
      define: {},
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    },
    load: 'import',
  },
];

interface Built {
  name: string;
  dir: string;
  file: string;
  load: 'import' | 'require';
  nodeOptions: string;
}

/** One function's asset as CDK writes it: `index.js` and `index.js.map` (`index.mjs` for an ES module) in a folder of its own. */
async function bundle(
  name: string,
  outdir: string,
  entry: { file: string } | { contents: string },
  lever: Lever = { name },
): Promise<Built> {
  const dir = join(outdir, name.replace(/[^\w-]+/g, '-'));
  await mkdir(dir, { recursive: true });
  const load = lever.load ?? (FUNCTION_BUNDLE.format === 'cjs' ? 'require' : 'import');
  const file = join(dir, load === 'require' ? 'index.js' : 'index.mjs');
  const input =
    'file' in entry
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.contents, resolveDir: REPO, sourcefile: `${name}.ts`, loader: 'ts' as const } };
  await build({ ...LAMBDA_BUNDLING, ...lever.bundling, ...input, outfile: file });
  return { name, dir, file, load, nodeOptions: lever.nodeOptions ?? DEPLOYED_NODE_OPTIONS };
}

const MARK = 'ASOF_INIT_MS=';

/** One fresh Node process: the wall and CPU time loading the bundle takes, as the runtime loads a handler. */
function importOnce(node: string, built: Built): { wallMs: number; cpuMs: number } {
  const file = JSON.stringify(built.file);
  const load =
    built.load === 'require'
      ? `(await import('node:module')).createRequire(${file})(${file})`
      : `await import(${JSON.stringify(pathToFileURL(built.file).href)})`;
  const script =
    `const c = process.cpuUsage(); const t = performance.now(); ${load}; ` +
    `const wall = performance.now() - t; const { user, system } = process.cpuUsage(c); console.log('${MARK}' + wall + ' ' + (user + system) / 1000);`;
  const env = { ...deployedEnv(built.name, built.dir), NODE_OPTIONS: built.nodeOptions };
  const out = spawnSync(node, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  const m = new RegExp(`^${MARK}([\\d.]+) ([\\d.]+)$`, 'm').exec(out.stdout);
  if (out.status !== 0 || !m) throw new Error(`importing ${built.file} failed (exit ${out.status}): ${out.stderr.slice(0, 2000)}`);
  return { wallMs: Number(m[1]), cpuMs: Number(m[2]) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The Node binary to measure with: ASOF_BENCH_NODE (e.g. a Node 22 binary, as Lambda runs) or the bench's own. */
function benchNode(): { path: string; version: string; source: BundleResults['nodeSource'] } {
  const path = process.env.ASOF_BENCH_NODE || process.execPath;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) throw new Error(`ASOF_BENCH_NODE=${path} is not a Node binary`);
  return { path, version, source: process.env.ASOF_BENCH_NODE ? 'ASOF_BENCH_NODE' : 'the bench process' };
}

/** Each endpoint function's bundle size and module-init time (issue 6: ≤ 1 MB, ≤ 150 ms), beside the floor every function stands on. */
export async function bundleFigures(log: (line: string) => void, runs = INIT_RUNS): Promise<BundleResults> {
  const node = benchNode();
  log(`  importing with node ${node.version} (${node.source}), NODE_OPTIONS=${DEPLOYED_NODE_OPTIONS}, ${runs} fresh processes per bundle`);
  const outdir = await mkdtemp(join(tmpdir(), 'asof-bundles-'));
  try {
    const baselines = await Promise.all(BASELINES.map((b) => bundle(b.name, outdir, { contents: b.contents })));
    const entryOf = (id: string) => ({ file: join(REPO, 'functions/lambda/routes', `${id}.ts`) });
    const functions = await Promise.all(FUNCTIONS.map((f) => bundle(f.name, outdir, { file: join(REPO, 'functions/lambda', f.entry) })));
    const levers = await Promise.all(LEVERS.map((l) => bundle(`${LEVERS_OF}, ${l.name}`, outdir, entryOf(LEVERS_OF), l)));
    const all = [...baselines, ...functions, ...levers];
    const times = new Map<Built, { wallMs: number; cpuMs: number }[]>(all.map((b) => [b, []]));
    for (let round = 0; round < runs; round++) for (const b of all) times.get(b)!.push(importOnce(node.path, b));
    const figures: BundleFigure[] = [];
    for (const b of all) {
      const code = await readFile(b.file);
      const wall = times.get(b)!.map((t) => t.wallMs);
      const cpu = times.get(b)!.map((t) => t.cpuMs);
      const name = levers.includes(b) ? b.name.slice(LEVERS_OF.length + 2) : b.name;
      const f = {
        name,
        bytes: code.length,
        gzipBytes: gzipSync(code).length,
        mapBytes: (await stat(`${b.file}.map`)).size,
        medianMs: median(wall),
        minMs: Math.min(...wall),
        cpuMedianMs: median(cpu),
      };
      log(
        `  ${b.name}: ${(f.bytes / 1024).toFixed(0)} KiB, init median ${f.medianMs.toFixed(0)} ms, min ${f.minMs.toFixed(0)} ms, CPU ${f.cpuMedianMs.toFixed(0)} ms`,
      );
      figures.push(f);
    }
    return {
      node: node.version,
      nodeSource: node.source,
      runs,
      nodeOptions: DEPLOYED_NODE_OPTIONS,
      baselines: figures.slice(0, baselines.length),
      functions: figures.slice(baselines.length, baselines.length + functions.length),
      leversOf: LEVERS_OF,
      levers: figures.slice(baselines.length + functions.length),
    };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
