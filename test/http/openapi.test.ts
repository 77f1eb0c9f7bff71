import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_VERSION } from '#http/handlers/spec.ts';
import { buildOpenApi, openApiYaml } from '#http/openapi.ts';
import { pathsOf } from '#http/route.ts';
import { ROUTES } from '#http/routes.ts';
import { call, fixture, get, post, type Reply } from './client.ts';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
};
let doc: Doc;
let ajv: InstanceType<typeof Ajv2020.default>;

beforeAll(async () => {
  const served = await get('/openapi.json', {}, null);
  expect(served.status).toBe(200);
  doc = served.body;
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'asof', components: doc.components });
});

/** Check a real response against the document's schema for that path, method and status. */
function conforms(path: string, method: 'get' | 'post', reply: Reply): void {
  const response = doc.paths[path]?.[method]?.responses[String(reply.status)];
  expect(response, `${method.toUpperCase()} ${path} documents ${reply.status}`).toBeDefined();
  const schema = response!.content?.['application/json']?.schema;
  expect(schema).toBeDefined();
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"asof#/components/'));
  const validate = ajv.compile(rewritten);
  expect(validate(reply.body), JSON.stringify(validate.errors)).toBe(true);
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('is served as YAML at the same path and as committed in openapi/ (YAML and JSON)', async () => {
    const yaml = await get('/openapi.yaml', {}, null);
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    const fromYaml = parse(yaml.text) as { paths: object };
    expect(fromYaml.paths).toEqual(doc.paths);
    const generated = buildOpenApi(ROUTES, { serverUrl: 'http://127.0.0.1:8787/v1', version: API_VERSION });
    const committed = await readFile(new URL('../../openapi/openapi.yaml', import.meta.url), 'utf8');
    expect(committed, 'run `npm run openapi` and commit the result').toBe(openApiYaml(generated));
    // The JSON is what the TypeScript client's types are generated from (clients/typescript).
    const committedJson = await readFile(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
    expect(committedJson, 'run `npm run openapi` and commit the result').toBe(`${JSON.stringify(generated, null, 2)}\n`);
  });

  it('documents every route of the table on every path, and nothing else', () => {
    const expected = ROUTES.filter((r) => !r.hidden).flatMap((r) => pathsOf(r).flatMap((p) => r.methods.map((m) => `${m} ${p}`)));
    const documented = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(expected.sort());
  });
});

describe('real responses match the document', () => {
  it.each([
    ['/law/lookup', { jurisdiction: 'us', citation: '1-1', asOf: '2019-03-01' }],
    ['/law/lookup', { jurisdiction: 'dc', citation: '22-404.05', asOf: '2024-07-01' }],
    ['/law/lookup', { jurisdiction: 'us' }],
    ['/law/lookup', { jurisdiction: 'zz', citation: '1' }],
    ['/statutes/text', { jurisdiction: 'us', citation: 'frap-32', asOf: '2025-01-01' }],
    ['/law/search', { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01' }],
    ['/law/search', { q: 'x', limit: '0' }],
    ['/law/coverage', {}],
    ['/law/format', { jurisdiction: 'us', court: 'ca9' }],
    ['/law/format', { jurisdiction: 'nd', level: 'nowhere' }],
    ['/law/format', { jurisdiction: 'us', court: 'scotus' }],
    ['/law/format', { jurisdiction: 'us', court: 'ca9', asOf: '2010-06-01' }],
    ['/law/format', { jurisdiction: 'us', asOf: '2019-06-01' }],
    ['/law/format', { jurisdiction: 'us', asOf: '2019-02-30' }],
    ['/law/lookup', { jurisdiction: 'us', citation: 'Fed. R. App. P. 32(a)(7)', asOf: '2010-06-01' }],
    ['/law/text', { jurisdiction: 'us', citation: 'Fed. R. Civ. P. 12(b)(9)', asOf: '2010-06-01' }],
    ['/law/lookup', { jurisdiction: 'us', citation: 'Fed. R. App. P. 32', asOf: '2019-06-01' }],
    ['/law/versions', { jurisdiction: 'us', citation: 'frap-32' }],
    ['/statutes/versions', { jurisdiction: 'dc', citation: '22-404.05' }],
    ['/law/versions', { jurisdiction: 'dc', citation: '22-404.99' }],
    ['/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-18', to: '2024-04-01' }],
    ['/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-03-27', to: '2024-04-01' }],
    ['/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-04-01', to: '2024-07-01' }],
    ['/law/diff', { jurisdiction: 'dc', citation: '22-404.05', from: '2024-04-31', to: '2024-07-01' }],
    ['/law/diff', { jurisdiction: 'dc', citation: '22-404.05' }],
    ['/law/quality', { history: 'true' }],
    ['/health', {}],
    ['/health/corpus', {}],
  ])('GET %s %j', async (path, query) => {
    conforms(path, 'get', await get(path, query));
  });

  it('for POST, 401 and 403 too', async () => {
    conforms('/law/search', 'post', await post('/law/search', { q: 'brief', jurisdiction: 'nd', asOf: '2026-04-01' }));
    conforms('/law/lookup', 'get', await get('/law/lookup', { jurisdiction: 'us', citation: '1-1' }, null));
    conforms('/law/lookup', 'get', await get('/law/lookup', { jurisdiction: 'us', citation: '1-1' }, fixture().keys.noScope));
    conforms('/law/coverage', 'post', await call('POST', '/law/coverage', { body: { corpus: 'rules' }, key: null }));
  });

  it('for the case-law endpoints, on the bundled CourtListener records', async () => {
    const lookup = await post('/law/citations/lookup', {
      text: 'Chester v. State, 267 Ga. 9, 471 S.E.2d 836 (1996); 410 U.S. 113; 12 Foo. 3',
      fallback: 'courtlistener',
    });
    expect(lookup.body.results.map((r: { status: number }) => r.status)).toEqual([200, 200, 404]);
    conforms('/law/citations/lookup', 'post', lookup);
    conforms(
      '/law/citations/lookup',
      'post',
      await post('/law/citations/lookup', { citations: ['12 Foo. Rptr. 3', { volume: '97', reporter: 'F.3d', page: '553' }] }),
    );
    conforms('/law/citations/lookup', 'post', await post('/law/citations/lookup', { text: 'x'.repeat(64_001) }));
    conforms('/statutes/citations/lookup', 'post', await post('/statutes/citations/lookup', { fallback: 'none' }));
    const marsh = await get('/law/cases/111014');
    expect(marsh.status).toBe(200);
    conforms('/law/cases/{clusterId}', 'get', marsh);
    conforms('/law/cases/{clusterId}', 'get', await get('/law/cases/0'));
    conforms('/law/cases/{clusterId}', 'get', await get('/law/cases/4'));
    const citing = await get('/law/cases/111014/cited-by', { limit: '3' });
    expect(citing.body.results).toHaveLength(3);
    conforms('/law/cases/{clusterId}/cited-by', 'get', citing);
  });
});
