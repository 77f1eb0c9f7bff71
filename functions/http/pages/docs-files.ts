import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a function finds the docs page's files (the layer lib/docs-assets.ts builds, at /opt/docs); unset, they are
 * read where the repository has them: the renderer from its npm package, the README from the root.
 */
export const DOCS_DIR_ENV = 'ASOF_DOCS_DIR';

/** The files of swagger-ui-dist the docs page loads, and the README whose quick start it shows. */
export const RENDERER_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export type DocsFile = (typeof RENDERER_FILES)[number] | 'README.md';

function pathOf(name: DocsFile): string {
  const dir = process.env[DOCS_DIR_ENV];
  if (dir) return `${dir}/${name}`;
  if (name === 'README.md') return fileURLToPath(new URL('../../../README.md', import.meta.url));
  return createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`);
}

const cache = new Map<DocsFile, Promise<string>>();

/** A docs file's text, read once per process. */
export function docsFile(name: DocsFile): Promise<string> {
  let text = cache.get(name);
  if (!text) {
    text = readFile(pathOf(name), 'utf8');
    text.catch(() => cache.delete(name));
    cache.set(name, text);
  }
  return text;
}
