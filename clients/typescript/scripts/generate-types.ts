/**
 * Writes src/generated/openapi.ts, the client's types, from the committed OpenAPI document (openapi/openapi.json at
 * the repository's root). Run by `npm run openapi` right after it rewrites that document, so one command keeps the
 * document and the client in step; test/unit/generated-types.test.ts fails when they are not.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

export const DOCUMENT_URL = new URL('../../../openapi/openapi.json', import.meta.url);
export const TYPES_URL = new URL('../src/generated/openapi.ts', import.meta.url);

const BANNER = `${COMMENT_HEADER.trimEnd()}\n// Generated from openapi/openapi.json by \`npm run openapi\` (clients/typescript/scripts/generate-types.ts).\n\n`;

/** The TypeScript types of an OpenAPI document, as committed: `paths`, `operations`, `components` and one alias per schema. */
export async function generateTypes(document: OpenAPI3): Promise<string> {
  const ast = await openapiTS(document, { rootTypes: true, rootTypesNoSchemaPrefix: true, silent: true });
  return BANNER + astToString(ast);
}

export async function readDocument(): Promise<OpenAPI3> {
  return JSON.parse(await readFile(DOCUMENT_URL, 'utf8')) as OpenAPI3;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(TYPES_URL, await generateTypes(await readDocument()));
  console.log(`wrote ${fileURLToPath(TYPES_URL)}`);
}
