/**
 * A data dir made before the SQLite search index existed (its search on PGlite only) still starts: the index is
 * built from the version store, with progress on the log, and answers what the old one answered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runIngest } from '#ingest/jobs.ts';
import type { SearchQuery } from '#law/ports.ts';
import { openEmbeddedStores } from '#local/embedded-stores.ts';

const USLM = fileURLToPath(new URL('../../data/sample/uslm/usc01@117-80.xml', import.meta.url));
const query: SearchQuery = { q: 'vessel watercraft', jurisdictions: ['us'], corpus: null, asOf: '2024-01-01', limit: 10 };

let dataDir: string;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('builds the search index of a data dir that has none (made before issue 17, or removed), once, and finds the same sections', async () => {
  // Prepare: a data dir whose versions are stored and whose search index is gone
  dataDir = await mkdtemp(join(tmpdir(), 'asof-search-build-'));
  const old = await openEmbeddedStores(dataDir, { cache: false });
  await runIngest({ ...old, now: () => new Date() }, { kind: 'uslm', files: [USLM] });
  const before = await old.search.search(query);
  const versions = await old.search.count();
  await old.close();
  await rm(join(dataDir, 'search'), { recursive: true, force: true });

  // Act
  const lines: string[] = [];
  const upgraded = await openEmbeddedStores(dataDir, { cache: false, log: (line) => lines.push(line) });
  let after: Awaited<ReturnType<typeof upgraded.search.search>>;
  let count: number;
  try {
    after = await upgraded.search.search(query);
    count = await upgraded.search.count();
  } finally {
    await upgraded.close();
  }
  const again: string[] = [];
  const reopened = await openEmbeddedStores(dataDir, { cache: false, log: (line) => again.push(line) });
  await reopened.close();

  // Assess
  expect(count).toBe(versions);
  expect(after.map((h) => h.citation.key)).toEqual(before.map((h) => h.citation.key));
  expect(after.length).toBeGreaterThan(0);
  expect(lines.at(-1)).toMatch(new RegExp(`search index built: ${versions} versions`));
  expect(again).toEqual([]);
});
