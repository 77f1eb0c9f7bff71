/**
 * The JavaScript modules of functions/ and bin/ (worker threads, which run without the TypeScript loader, and the
 * launchers) are type-checked like the TypeScript: each is a root file of tsconfig.json, where checkJs holds, and says
 * `// @ts-check` for editors that read it alone. Their types come from their JSDoc; a hand-written `.d.mts` beside
 * one would hide the checked declarations from the modules that import it (docs/DECISIONS.md, "Typed worker modules").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split('/').includes('node_modules'))
    .sort();
}

const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
const rootFiles = new Set(parsed.fileNames.map((f) => relative(ROOT, f)));
/** Files tsconfig.json leaves out on purpose, by name (not by pattern). */
const excluded = new Set<string>((config.config.exclude as string[]).filter((e) => !e.includes('*')));
const JS_MODULE = /\.(mjs|cjs|js)$/;
const modules = [...filesUnder('functions', JS_MODULE), ...filesUnder('bin', JS_MODULE)].filter((f) => !excluded.has(f));

describe('the JavaScript modules are type-checked', () => {
  it('finds the worker modules and the launchers', () => {
    expect(modules).toContain('functions/stores/sqlite/sqlite-thread.mjs');
    expect(modules).toContain('functions/stores/postgres/pglite-thread.mjs');
    expect(modules).toContain('bin/asof.js');
  });

  it('checks JavaScript, under the strict options', () => {
    expect(parsed.errors).toEqual([]);
    expect(parsed.options).toMatchObject({ allowJs: true, checkJs: true, strict: true, noUncheckedIndexedAccess: true });
  });

  it.each(modules)('%s is a root file of tsconfig.json and says // @ts-check', (file) => {
    expect(rootFiles.has(file), `${file} is not in tsconfig.json's include or files`).toBe(true);
    expect(readFileSync(join(ROOT, file), 'utf8')).toMatch(/^\/\/ @ts-check$/m);
  });

  it('keeps no hand-written declarations beside a checked module', () => {
    const declarations = filesUnder('functions', /\.d\.(mts|cts|ts)$/);
    const shadowing = declarations.filter((d) => modules.includes(d.replace(/\.d\.(m|c)?ts$/, (_, k = '') => `.${k}js`)));
    expect(shadowing).toEqual([]);
  });
});
