/**
 * The import graph of functions/, read from the sources: the layering DESIGN.md and docs/DECISIONS.md describe, held
 * by a test rather than by review. Static imports, re-exports and dynamic `import()` count alike; so do type-only
 * imports (a type cycle is still a cycle for a reader).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FUNCTIONS = join(ROOT, 'functions');

/** The domain: pure capability folders (and shared/), talking to the world through their ports. */
const DOMAIN = ['law', 'caselaw', 'formats', 'accounts', 'ops', 'ingest', 'shared'];
/** What the domain may not reach: adapters, the HTTP layer, the composition root and the deployments. */
const OUTER = ['stores', 'http', 'app', 'local', 'lambda'];
/** Packages the domain may not import: AWS SDKs, database and search drivers, web servers, Powertools. */
const INFRASTRUCTURE_PACKAGE =
  /^(@aws-sdk\/|@aws-lambda-powertools\/|@opensearch-project\/|@electric-sql\/|@middy\/|aws-xray-sdk|pg$|dynalite$|node:http|node:https|node:net|node:dgram)/;

interface Edge {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** `functions/<folder>/…` relative paths for project modules; package names as written for the rest. */
function resolveSpecifier(file: string, specifier: string): string {
  if (specifier.startsWith('#')) {
    const [alias, ...rest] = specifier.slice(1).split('/');
    return normalize(join('functions', alias!, ...rest));
  }
  if (specifier.startsWith('.')) return relative(ROOT, normalize(join(dirname(file), specifier)));
  return specifier;
}

const edges: Edge[] = sourceFiles(FUNCTIONS).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => ({ from: relative(ROOT, file), to: resolveSpecifier(file, (m[1] ?? m[2])!) }));
});
const folderOf = (path: string): string | null => (path.startsWith('functions/') ? path.split('/')[1]! : null);
const describeEdge = (e: Edge) => `${e.from} → ${e.to}`;

/** Strongly connected components of more than one module (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of functions/', () => {
  it('reads the sources it judges', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from === 'functions/http/handler.ts' && e.to === 'functions/app/services.ts')).toBe(true);
  });

  it('has no cycle between modules', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) if (folderOf(e.to)) graph.set(e.from, (graph.get(e.from) ?? new Set()).add(e.to));
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = [folderOf(e.from)!, folderOf(e.to)];
      if (b && a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the domain pure: no adapter, HTTP, composition root, deployment or infrastructure package in it', () => {
    const offending = edges.filter((e) => {
      if (!DOMAIN.includes(folderOf(e.from)!)) return false;
      const target = folderOf(e.to);
      return target ? OUTER.includes(target) : INFRASTRUCTURE_PACKAGE.test(e.to);
    });
    expect(offending.map(describeEdge)).toEqual([]);
  });

  it('lets nothing deployed or served over HTTP reach into the local server and CLI', () => {
    const offending = edges.filter((e) => ['http', 'lambda', 'app', 'stores'].includes(folderOf(e.from)!) && folderOf(e.to) === 'local');
    expect(offending.map(describeEdge)).toEqual([]);
  });

  it('keeps the composition root above the HTTP layer: app/ imports no http/, lambda/ or local/', () => {
    const offending = edges.filter((e) => folderOf(e.from) === 'app' && ['http', 'lambda', 'local'].includes(folderOf(e.to)!));
    expect(offending.map(describeEdge)).toEqual([]);
  });
});
