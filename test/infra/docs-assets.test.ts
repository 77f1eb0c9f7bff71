import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RENDERER_FILES } from '#http/pages/docs-files.ts';
import { gatherDocsFiles } from '../../lib/docs-assets.ts';

describe('the docs layer', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('holds the renderer’s files as npm installed them, its licence, and the README: nothing else', async () => {
    const root = await mkdtemp(join(tmpdir(), 'docs-layer-'));
    dirs.push(root);
    const dir = join(root, 'docs');

    gatherDocsFiles(dir);

    expect((await readdir(dir)).sort()).toEqual([...RENDERER_FILES, 'LICENSE', 'NOTICE', 'README.md'].sort());
    const resolve = createRequire(import.meta.url).resolve;
    for (const file of RENDERER_FILES) {
      expect(await readFile(join(dir, file), 'utf8'), file).toBe(await readFile(resolve(`swagger-ui-dist/${file}`), 'utf8'));
    }
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(await readFile('README.md', 'utf8'));
  });
});
