/**
 * `asof fetch dc-code`: the D.C. Council's repository → its publications (the default branch's first-parent line,
 * see publications.ts) → the publications not yet held, oldest first, ingested a few at a time. What was ingested is recorded in the
 * ops store, a marker per publication commit written after its ingest completed: a second run reads the line again
 * and ingests only the publications without a marker; a run cut short is resumed by running it again (the engine
 * completes a publication whose ingest was interrupted). A repository that cannot be read stops the run before
 * anything is written.
 */
import * as z from 'zod';
import { type IngestPublicationsDeps, ingestPublications } from './ingest-publications.ts';
import { listPublications, type Publication } from './publications.ts';
import { DC_COUNCIL_REMOTE } from './remote.ts';
import { openDcRepository } from './repository.ts';

export { type IngestedPublication, publicationMarker } from './ingest-publications.ts';

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

export interface FetchDcCodeDeps extends IngestPublicationsDeps {
  /** The steps after an ingest (format records, coverage, audit): once, after the last publication, if anything changed. */
  afterIngest(log: Log): Promise<unknown>;
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

  const started = Date.now();
  const { changed, ...counts } = await ingestPublications(repo, publications, deps, log);
  const result: FetchDcCodeResult = { repo: repo.origin, head: repo.head, publications: publications.length, ...counts };
  if (changed) await deps.afterIngest(log);
  const seconds = (Date.now() - started) / 1000;
  log(
    `fetch dc-code: ${result.ingested} publication(s) ingested, ${result.held} already held; ` +
      `${result.versionsWritten} versions written, ${result.sectionsEnded} sections ended, in ${seconds.toFixed(1)} s`,
  );
  return result;
}

/** The publications from `since` on: a commit (id or prefix of ≥ 7 hex digits) on the line, or a date. */
function from(line: readonly Publication[], since: string): Publication[] {
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) return line.filter((p) => p.date >= since);
  if (!/^[0-9a-f]{7,40}$/i.test(since))
    throw new FetchDcCodeError(`--since takes a publication's commit or a date YYYY-MM-DD (got '${since}')`);
  const at = line.findIndex((p) => p.commit.startsWith(since.toLowerCase()));
  if (at < 0) throw new FetchDcCodeError(`--since ${since}: no publication on the default branch's line has that commit`);
  return line.slice(at);
}
