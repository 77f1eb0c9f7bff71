import { readFile } from 'node:fs/promises';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { generateTypes, readDocument, TYPES_URL } from '../../scripts/generate-types.ts';
import type { ErrorCode, LookupResponse, paths } from '../../src/index.ts';

describe('the generated types (src/generated/openapi.ts)', () => {
  it('are what openapi-typescript makes of the committed OpenAPI document', async () => {
    const committed = await readFile(TYPES_URL, 'utf8');
    const generated = await generateTypes(await readDocument());
    expect(committed === generated, 'src/generated/openapi.ts is stale: run `npm run openapi` and commit the result').toBe(true);
  });

  it('change when the document does, so the check above can fail', async () => {
    const document = await readDocument();
    const { '/law/search': _dropped, ...paths } = document.paths ?? {};
    const generated = await generateTypes({ ...document, paths });
    expect(generated).not.toBe(await generateTypes(document));
    expect(generated).not.toMatch(/"\/law\/search": \{/);
  });

  it('carry every path of the document, and the spec error codes as a union, not a string', async () => {
    const document = await readDocument();
    const committed = await readFile(TYPES_URL, 'utf8');
    for (const path of Object.keys(document.paths ?? {})) expect(committed).toContain(`    ${JSON.stringify(path)}: {`);
    expectTypeOf<'no_edition_on_file'>().toExtend<ErrorCode>();
    expectTypeOf<'bad_as_of'>().toExtend<ErrorCode>();
    expectTypeOf<'no_route'>().toExtend<ErrorCode>();
    expectTypeOf<string>().not.toExtend<ErrorCode>();
    expectTypeOf<paths['/law/lookup']['get']['responses'][200]['content']['application/json']>().toEqualTypeOf<LookupResponse>();
  });
});
