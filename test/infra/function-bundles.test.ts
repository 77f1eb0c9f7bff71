/**
 * What each endpoint function's bundle holds, bundled as lib/asof-function.ts asks CDK to: what a function does not
 * need stays out of it (the response schemas outside the OpenAPI functions, a store's client outside the routes that
 * use the store), and every bundle stays under the 1 MB. The benchmark measures the init times these make.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#http/routes.ts';
import type { Route } from '#http/route.ts';
import { LAMBDA_BUNDLING } from '../../bench/bundles.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const bundles = new Map<string, { bytes: number; inputs: string[] }>();

beforeAll(async () => {
  await Promise.all(
    ROUTES.map(async (route) => {
      const out = await build({
        ...LAMBDA_BUNDLING,
        absWorkingDir: REPO,
        entryPoints: [`functions/lambda/routes/${route.id}.ts`],
        outfile: `/bundles/${route.id}/index.mjs`,
        write: false,
        metafile: true,
      });
      const code = out.outputFiles.find((f) => f.path.endsWith('.mjs'))!;
      // What made it into the output: a module imported for its types only is read, and dropped.
      const [, output] = Object.entries(out.metafile.outputs).find(([path]) => path.endsWith('.mjs'))!;
      const inputs = Object.entries(output.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([path]) => path);
      bundles.set(route.id, { bytes: code.contents.byteLength, inputs });
    }),
  );
}, 120_000);

/** The routes whose bundle holds a module matching `pattern`. */
const holding = (pattern: RegExp) => ROUTES.filter((r) => bundles.get(r.id)!.inputs.some((i) => pattern.test(i))).map((r) => r.id).sort();
const routesWhere = (test: (r: Route) => boolean) => ROUTES.filter(test).map((r) => r.id).sort();

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

  it('stays under 1 MB', () => {
    const over = [...bundles].filter(([, b]) => b.bytes > 1024 * 1024).map(([id, b]) => `${id}: ${b.bytes} bytes`);

    expect(over).toEqual([]);
  });
});
