/**
 * Publications of the D.C. Council's repository ingested in order, a few per ingest, each marked in the ops store once
 * the ingest that carried it completed (`dc-code-git:<commit>`). A publication already marked is skipped, so the same
 * call run again (a re-run, a retried Lambda batch) ingests nothing; one cut short is completed by running it again
 * (the engine recognises what it had written unchanged). `asof fetch dc-code` and the scheduled AWS sync's batch step
 * both ingest through here.
 */
import type { OpsStore } from '#ops/ports.ts';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import { type Publication, publicationChanges } from './publications.ts';
import type { DcRepository } from './repository.ts';

type Log = (line: string) => void;

export interface IngestPublicationsDeps {
  /** An ingest of law under the store's ingest lease, without the steps after it (Jobs.ingest, afterwards: false). */
  ingest(request: IngestRequest, log: Log): Promise<IngestReport[]>;
  markers: Pick<OpsStore, 'getMarker' | 'putMarker'>;
  now: () => Date;
}

export interface IngestPublicationsResult {
  ingested: number;
  held: number;
  /** Ingested publications' section versions written (puts) and sections whose interval ended. */
  versionsWritten: number;
  sectionsEnded: number;
  /** Whether any ingest changed a section (the steps after an ingest are then due). */
  changed: boolean;
}

/** The marker of a publication ingested from the repository (its value: IngestedPublication as JSON). */
export const publicationMarker = (commit: string): string => `dc-code-git:${commit}`;

export interface IngestedPublication {
  subject: string;
  date: string;
  /** Section files the publication added, modified or deleted. */
  changes: number;
  edition: string | null;
  ingestedAt: string;
}

/**
 * Publications ingested by one ingest (one lease, one index refresh): the Council publishes a few dozen changed
 * files at a time, and the steps around each ingest cost more than its writes. A publication of more than BATCH_FILES
 * files (the first: the whole Code) goes alone.
 */
const BATCH_PUBLICATIONS = 20;
const BATCH_FILES = 2_000;

interface Pending {
  publication: Publication;
  changes: number;
}

/**
 * Ingests the publications not yet marked, in the order given (oldest first). `position` numbers them in the log
 * (`publication 2024-03-18 (12 of 213, …)`): their place on the whole line, where the caller ingests a part of it.
 */
export async function ingestPublications(
  repo: Pick<DcRepository, 'gitdir' | 'cache' | 'origin'>,
  publications: readonly Publication[],
  deps: IngestPublicationsDeps,
  log: Log,
  position: { first: number; of: number } = { first: 1, of: publications.length },
): Promise<IngestPublicationsResult> {
  const result: IngestPublicationsResult = { ingested: 0, held: 0, versionsWritten: 0, sectionsEnded: 0, changed: false };
  let batch: Pending[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const withChanges = batch.filter((p) => p.changes > 0);
    const editions = new Map<string, string>();
    if (withChanges.length) {
      const reports = await deps.ingest(
        {
          kind: 'dc-code-git',
          gitdir: repo.gitdir,
          commits: withChanges.map((p) => p.publication.commit),
          origin: repo.origin,
          retrievedAt: deps.now().toISOString(),
        },
        (line) => log(`  ${line}`),
      );
      for (const r of reports) {
        result.versionsWritten += r.writes.put;
        result.sectionsEnded += r.absentKeys;
        if (r.changedKeys + r.absentKeys > 0) result.changed = true;
        editions.set(r.edition.date, r.edition.id);
      }
    }
    // Markers only once the whole batch is in: a batch cut short is ingested again (what it completed, unchanged).
    for (const p of batch) {
      const record = recordOf(p.publication, p.changes, editions.get(p.publication.date) ?? null, deps.now());
      await deps.markers.putMarker(publicationMarker(p.publication.commit), JSON.stringify(record));
      result.ingested++;
    }
    batch = [];
  };
  for (const [i, publication] of publications.entries()) {
    if (await deps.markers.getMarker(publicationMarker(publication.commit))) {
      result.held++;
      continue;
    }
    const changes = (await publicationChanges(repo, publication)).length;
    log(
      `publication ${publication.date} (${position.first + i} of ${position.of}, ${publication.commit.slice(0, 12)}): ` +
        (changes ? `${changes} section file${changes === 1 ? '' : 's'} changed` : 'no section changed'),
    );
    if (batch.length && (batch.length >= BATCH_PUBLICATIONS || batchFiles(batch) + changes > BATCH_FILES)) await flush();
    batch.push({ publication, changes });
  }
  await flush();
  return result;
}

const batchFiles = (batch: readonly Pending[]) => batch.reduce((n, p) => n + p.changes, 0);

const recordOf = (p: Publication, changes: number, edition: string | null, now: Date): IngestedPublication => ({
  subject: p.subject,
  date: p.date,
  changes,
  edition,
  ingestedAt: now.toISOString(),
});
