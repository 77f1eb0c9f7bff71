/**
 * The publications of the line not yet ingested, cut into batches that each fit one run of a job with a time limit
 * (the scheduled AWS sync runs a batch per Lambda invocation, 15 minutes at most). A batch is sized by the section files
 * its publications changed (an upper bound on the versions it writes; a file whose change touches only annotations
 * writes none): the local ingest runs at about 100 versions/s end to end (bench/RESULTS.md § 1g: 29,073 versions in
 * 301 s), so FILES_PER_BATCH takes about a minute there. A publication larger than that goes alone: the largest there
 * is, the first (the whole Code, 23,154 files), took about 300 s of that run, a third of Lambda's limit.
 */
import type { OpsStore } from '#ops/ports.ts';
import { publicationMarker } from './ingest-publications.ts';
import { type Publication, publicationChanges } from './publications.ts';
import type { DcRepository } from './repository.ts';

export const FILES_PER_BATCH = 6_000;
export const PUBLICATIONS_PER_BATCH = 60;

export interface PublicationBatch {
  /** The batch's publication commits, oldest first. */
  commits: string[];
  /** Section files they changed. */
  files: number;
  /** The place of the batch's first publication on the line (1 = the first publication). */
  first: number;
  /**
   * The publication before the batch's first on the line (null for the first): it must be ingested before this batch
   * is, so a batch whose predecessor failed is not ingested out of order.
   */
  after: string | null;
}

export interface PublicationPlan {
  /** Publications on the line. */
  publications: number;
  held: number;
  pending: number;
  /** Pending publications beyond `limit`, left for a later run. */
  deferred: number;
  batches: PublicationBatch[];
}

export interface BatchLimits {
  files: number;
  publications: number;
  /** Publications planned at most (the rest are deferred). */
  limit: number;
}

export async function planPublicationBatches(
  repo: Pick<DcRepository, 'gitdir' | 'cache'>,
  line: readonly Publication[],
  markers: Pick<OpsStore, 'getMarker'>,
  limits: BatchLimits,
): Promise<PublicationPlan> {
  const pending: number[] = [];
  for (const [i, p] of line.entries()) if (!(await markers.getMarker(publicationMarker(p.commit)))) pending.push(i);
  const planned = pending.slice(0, limits.limit);
  const batches: PublicationBatch[] = [];
  let batch: PublicationBatch | null = null;
  for (const i of planned) {
    const publication = line[i]!;
    const files = (await publicationChanges(repo, publication)).length;
    if (!batch || batch.commits.length >= limits.publications || batch.files + files > limits.files) {
      batch = { commits: [], files: 0, first: i + 1, after: line[i - 1]?.commit ?? null };
      batches.push(batch);
    }
    batch.commits.push(publication.commit);
    batch.files += files;
  }
  return {
    publications: line.length,
    held: line.length - pending.length,
    pending: pending.length,
    deferred: pending.length - planned.length,
    batches,
  };
}
