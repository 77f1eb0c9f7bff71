import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { RENDERER_FILES } from '../functions/http/pages/docs-files.ts';

/** Where the docs page's function finds its files (a layer's contents are under /opt). */
export const DOCS_DIR = '/opt/docs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The docs page's files as a layer at /opt/docs: the renderer's files from swagger-ui-dist as npm installed it (with
 * its licence), and the README whose quick start the page shows. Gathered at synth, as a function's bundle is.
 */
export function docsAssetsLayer(scope: Construct, id: string): LayerVersion {
  const root = mkdtempSync(join(tmpdir(), 'asof-docs-'));
  gatherDocsFiles(join(root, 'docs'));
  return new LayerVersion(scope, id, {
    code: Code.fromAsset(root),
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    description: 'The docs page: swagger-ui-dist (Apache-2.0) and the README',
  });
}

/** Copies into `dir` what the docs pages read (DocsFile) and the renderer's licence and notice. */
export function gatherDocsFiles(dir: string): void {
  const renderer = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  mkdirSync(dir, { recursive: true });
  for (const file of [...RENDERER_FILES, 'LICENSE', 'NOTICE']) copyFileSync(join(renderer, file), join(dir, file));
  copyFileSync(join(ROOT, 'README.md'), join(dir, 'README.md'));
}
