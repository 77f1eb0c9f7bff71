/**
 * The D.C. sync's batch plan (functions/ingest/dc-git/publication-batches.ts) on the real slice of the Council's
 * repository: the publications without a marker, in the line's order, cut by changed files and by count, a
 * publication larger than a batch alone, each batch naming the publication before it, the rest beyond the run's
 * limit deferred.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicationMarker } from '#ingest/dc-git/ingest-publications.ts';
import { planPublicationBatches } from '#ingest/dc-git/publication-batches.ts';
import { listPublications, type Publication, publicationChanges } from '#ingest/dc-git/publications.ts';
import { type DcRepository, openDcRepository } from '#ingest/dc-git/repository.ts';

const SLICE = resolve(dirname(fileURLToPath(import.meta.url)), '../../data/dc-code-history/slice.bundle');
let cacheDir: string;
let repo: DcRepository;
let line: Publication[];
let files: number[];

/** The ops store's markers, as the plan reads them: those of `marked` commits present. */
const markersOf = (marked: Iterable<string>) => {
  const set = new Set([...marked].map(publicationMarker));
  return { getMarker: async (name: string) => (set.has(name) ? '{}' : null) };
};

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'asof-dc-batches-'));
  repo = await openDcRepository(SLICE, cacheDir);
  line = await listPublications(repo, repo.head);
  files = await Promise.all(line.map(async (p) => (await publicationChanges(repo, p)).length));
}, 60_000);

afterAll(() => rm(cacheDir, { recursive: true, force: true }));

describe('planPublicationBatches', () => {
  it('cuts the line by changed files: a publication larger than a batch goes alone, and each batch names the one before it', async () => {
    // The slice's first publication changes 9 files; a batch of at most 4 files takes it alone.
    const plan = await planPublicationBatches(repo, line, markersOf([]), { files: 4, publications: 1_000, limit: 1_000 });
    expect(plan).toMatchObject({ publications: 213, held: 0, pending: 213, deferred: 0 });
    expect(plan.batches[0]).toEqual({ commits: [line[0]!.commit], files: 9, first: 1, after: null });
    expect(plan.batches.flatMap((b) => b.commits)).toEqual(line.map((p) => p.commit));
    for (const b of plan.batches) {
      expect(b.files).toBe(files.slice(b.first - 1, b.first - 1 + b.commits.length).reduce((n, f) => n + f, 0));
      if (b.commits.length > 1) expect(b.files).toBeLessThanOrEqual(4);
      expect(b.after).toBe(line[b.first - 2]?.commit ?? null);
    }
  });

  it('cuts by count, plans only what has no marker, and defers what is beyond the run’s limit', async () => {
    const held = line.slice(0, 100).map((p) => p.commit);
    const plan = await planPublicationBatches(repo, line, markersOf(held), { files: 100_000, publications: 30, limit: 70 });
    expect(plan).toMatchObject({ held: 100, pending: 113, deferred: 43 });
    expect(plan.batches.map((b) => [b.first, b.commits.length])).toEqual([
      [101, 30],
      [131, 30],
      [161, 10],
    ]);
    expect(plan.batches[0]!.after).toBe(line[99]!.commit);
  });

  it('plans nothing when every publication is marked', async () => {
    const plan = await planPublicationBatches(repo, line, markersOf(line.map((p) => p.commit)), {
      files: 6_000,
      publications: 60,
      limit: 1_000,
    });
    expect(plan).toEqual({ publications: 213, held: 213, pending: 0, deferred: 0, batches: [] });
  });
});
