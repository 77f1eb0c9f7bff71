import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
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
  return new LayerVersion(scope, id, {
    code: Code.fromAsset(docsLayerDir()),
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    description: 'The docs page: swagger-ui-dist (Apache-2.0) and the README',
  });
}

/**
 * The layer's folder (holding docs/), named by a digest of what goes in it, so that every synth of the same files
 * reuses one folder rather than leaving one behind each time; built in a folder of its own and renamed into place, so
 * that two synths at once never read a half-written one.
 */
function docsLayerDir(): string {
  const digest = createHash('sha256');
  for (const file of docsSources()) digest.update(file).update(readFileSync(file));
  const target = join(tmpdir(), `asof-docs-layer-${digest.digest('hex').slice(0, 16)}`);
  if (existsSync(target)) return target;
  const building = mkdtempSync(join(tmpdir(), 'asof-docs-building-'));
  gatherDocsFiles(join(building, 'docs'));
  try {
    renameSync(building, target);
  } catch {
    // Another synth put the same files in place first.
    rmSync(building, { recursive: true, force: true });
  }
  return target;
}

/** The files the layer copies: the renderer's (with its licence and notice) and the README. */
function docsSources(): string[] {
  const renderer = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return [...[...RENDERER_FILES, 'LICENSE', 'NOTICE'].map((f) => join(renderer, f)), join(ROOT, 'README.md')];
}

/** Copies into `dir` what the docs pages read (DocsFile) and the renderer's licence and notice. */
export function gatherDocsFiles(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const file of docsSources()) copyFileSync(file, join(dir, basename(file)));
}
