/**
 * `asof fetch dc-code`: the D.C. Council's repository → its publications (the default branch's first-parent line,
 * see publications.ts) → the publications not yet held, oldest first, ingested a few at a time. What was ingested is recorded in the
 * ops store, a marker per publication commit written after its ingest completed: a second run reads the line again
 * and ingests only the publications without a marker; a run cut short is resumed by running it again (the engine
 * completes a publication whose ingest was interrupted). A repository that cannot be read stops the run before
 * anything is written.
 */
import * as z from 'zod';
import type { OpsStore } from '#ops/ports.ts';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import { listPublications, type Publication, publicationChanges } from './publications.ts';
import { DC_COUNCIL_REMOTE } from './remote.ts';
import { openDcRepository } from './repository.ts';

type Log = (line: string) => void;

const requestSchema = z.strictObject({
  /** A git URL, a local clone's folder or a bundle file (default: the Council's repository). */
  repo: z.string().min(1).optional(),
  /** A publication's commit (its id or a prefix of at least 7) or a date: that publication and every later one. */
  since: z.string().min(1).optional(),
  /** The data dir's sources cache for this source (absolute): clones and imported bundles. */
  cacheDir: z.string().min(1),
});

export type FetchDcCodeRequest = z.input<typeof requestSchema>;

export interface FetchDcCodeDeps {
  /** An ingest of law under the store's ingest lease, without the steps after it (Jobs.ingest, afterwards: false). */
  ingest(request: IngestRequest, log: Log): Promise<IngestReport[]>;
  /** The steps after an ingest (format records, coverage, audit): once, after the last publication, if anything changed. */
  afterIngest(log: Log): Promise<unknown>;
  markers: Pick<OpsStore, 'getMarker' | 'putMarker'>;
  now: () => Date;
}

export interface FetchDcCodeResult {
  repo: string;
  head: string;
  /** Publications on the line from --since on. */
  publications: number;
  ingested: number;
  held: number;
  /** Ingested publications' section versions written (puts) and sections whose interval ended. */
  versionsWritten: number;
  sectionsEnded: number;
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

export class FetchDcCodeError extends Error {
  override readonly name = 'FetchDcCodeError';
}

export async function fetchDcCode(raw: FetchDcCodeRequest, deps: FetchDcCodeDeps, log: Log = () => undefined): Promise<FetchDcCodeResult> {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) throw new FetchDcCodeError(parsed.error.issues.map((i) => i.message).join('; '));
  const req = parsed.data;
  const repo = await openDcRepository(req.repo ?? DC_COUNCIL_REMOTE, req.cacheDir, log);
  const line = await listPublications(repo, repo.head);
  const publications = req.since ? from(line, req.since) : line;
  log(
    `${repo.origin}: ${line.length} publications on the default branch's line (${line[0]?.date ?? '-'} → ${line.at(-1)?.date ?? '-'}, ` +
      `head ${repo.head.slice(0, 12)})${req.since ? `; ${publications.length} from ${req.since} on` : ''}`,
  );

  const result: FetchDcCodeResult = {
    repo: repo.origin,
    head: repo.head,
    publications: publications.length,
    ingested: 0,
    held: 0,
    versionsWritten: 0,
    sectionsEnded: 0,
  };
  let changed = false;
  const started = Date.now();
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
        if (r.changedKeys + r.absentKeys > 0) changed = true;
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
      `publication ${publication.date} (${i + 1} of ${publications.length}, ${publication.commit.slice(0, 12)}): ` +
        (changes ? `${changes} section file${changes === 1 ? '' : 's'} changed` : 'no section changed'),
    );
    if (batch.length && (batch.length >= BATCH_PUBLICATIONS || batchFiles(batch) + changes > BATCH_FILES)) await flush();
    batch.push({ publication, changes });
  }
  await flush();
  if (changed) await deps.afterIngest(log);
  const seconds = (Date.now() - started) / 1000;
  log(
    `fetch dc-code: ${result.ingested} publication(s) ingested, ${result.held} already held; ` +
      `${result.versionsWritten} versions written, ${result.sectionsEnded} sections ended, in ${seconds.toFixed(1)} s`,
  );
  return result;
}

interface Pending {
  publication: Publication;
  changes: number;
}

/**
 * Publications ingested by one ingest (one lease, one index refresh): the Council publishes a few dozen changed
 * files at a time, and the steps around each ingest cost more than its writes. A publication of more than BATCH_FILES
 * files (the first: the whole Code) goes alone.
 */
const BATCH_PUBLICATIONS = 20;
const BATCH_FILES = 2_000;
const batchFiles = (batch: readonly Pending[]) => batch.reduce((n, p) => n + p.changes, 0);

const recordOf = (p: Publication, changes: number, edition: string | null, now: Date): IngestedPublication => ({
  subject: p.subject,
  date: p.date,
  changes,
  edition,
  ingestedAt: now.toISOString(),
});

/** The publications from `since` on: a commit (id or prefix of ≥ 7 hex digits) on the line, or a date. */
function from(line: readonly Publication[], since: string): Publication[] {
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) return line.filter((p) => p.date >= since);
  if (!/^[0-9a-f]{7,40}$/i.test(since))
    throw new FetchDcCodeError(`--since takes a publication's commit or a date YYYY-MM-DD (got '${since}')`);
  const at = line.findIndex((p) => p.commit.startsWith(since.toLowerCase()));
  if (at < 0) throw new FetchDcCodeError(`--since ${since}: no publication on the default branch's line has that commit`);
  return line.slice(at);
}
