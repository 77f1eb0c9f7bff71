/**
 * The title jobs of a run that is split over many processes (the scheduled fetch in AWS runs one per title, see
 * docs/DECISIONS.md "Scheduled jobs"): what `asof fetch uscode` would fetch, less the titles the ops store already
 * holds at their release point (the same markers, ingest-title.ts `ingestedMarker`), at most `limit` of them per run.
 *
 * Besides the CLI's choices (one release point, the newest, every one since one), a run that names none **updates**:
 * it brings the store to the publisher's current release point from the one a run last completed (a marker of its
 * own), fetching at each release point in between the titles that release point changed, as `--since` does; the very
 * first update takes every title at the current release point.
 */
import * as z from 'zod';
import type { OpsStore } from '#ops/ports.ts';
import { forEachBounded } from '#shared/bounded.ts';
import { DEFAULT_TIMEOUTS, type FetchLike, fetchPage, type Timeouts } from './http.ts';
import { ingestedMarker } from './ingest-title.ts';
import { parseCurrentReleasePoint, parseReleasePointId, parseReleasePointList } from './release-points.ts';
import { needsPages, needsPriorList, type ReleasePointChoice, type ReleasePointPages, selectWork } from './select.ts';
import { titleCode } from './titles.ts';
import { currentReleasePointUrl, normalizeSource, OLRC_SOURCE, releasePointListUrl } from './urls.ts';

/** The ops-store marker naming the release point through which a run last brought every title (value: CurrentRecord as JSON). */
export const CURRENT_MARKER = 'olrc-usc:current';

export interface CurrentRecord {
  releasePoint: string;
  completedAt: string;
}

export const titleJobsRequestSchema = z
  .strictObject({
    /** The publisher's address (a mirror, a test double); default OLRC's own. */
    source: z.string().min(1).optional(),
    releasePoint: z.string().min(1).optional(),
    latest: z.literal(true).optional(),
    since: z.string().min(1).optional(),
    titles: z.array(z.string().min(1)).min(1).optional(),
  })
  .refine((r) => [r.releasePoint !== undefined, r.latest === true, r.since !== undefined].filter(Boolean).length <= 1, {
    message: 'name at most one of releasePoint, latest and since (none: bring the store to the current release point)',
  });

/** What a run asks for; `{}` updates. */
export type TitleJobsRequest = z.input<typeof titleJobsRequestSchema>;

/** One title's zip at one release point, to fetch and ingest. */
export interface TitleJob {
  /** As OLRC writes it: `118-158`, `114-329not328`. */
  releasePoint: string;
  /** Title code (`01`, `05a`). */
  title: string;
  /** The zip's address at the publisher. */
  url: string;
  /** Named by the request's titles: a zip the publisher does not have is then a failure, not a note. */
  named: boolean;
}

export interface TitleJobsPlan {
  source: string;
  /** The publisher's current release point, when its download page was read. */
  current: string | null;
  /** The store is already current through the publisher's current release point: nothing to do. */
  upToDate: boolean;
  /**
   * The release point the store is current through once every job has succeeded: set for runs over every title up to
   * the current release point (an update, `latest`, `since` without titles) when no job is deferred; null otherwise.
   */
  through: string | null;
  jobs: TitleJob[];
  /** Titles skipped because the store holds them at that release point. */
  held: number;
  /** Titles left for a later run by the limit. */
  deferred: number;
}

export interface TitleJobsDeps {
  fetch: FetchLike;
  markers: Pick<OpsStore, 'getMarker'>;
  timeouts?: Timeouts;
  /** Jobs per run at most (the rest are `deferred`, and the next run takes them). */
  limit: number;
}

/** Marker reads in flight at once. */
const MARKER_READS = 8;

export async function planTitleJobs(raw: TitleJobsRequest, deps: TitleJobsDeps): Promise<TitleJobsPlan> {
  const parsed = titleJobsRequestSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('; '));
  const req = parsed.data;
  const source = normalizeSource(req.source ?? OLRC_SOURCE);
  const titles = req.titles ? [...new Set(req.titles.map(titleCode))] : undefined;
  const timeouts = deps.timeouts ?? DEFAULT_TIMEOUTS;
  const updating = req.releasePoint === undefined && req.since === undefined && req.latest === undefined;
  const synced = updating ? currentOf(await deps.markers.getMarker(CURRENT_MARKER)) : null;

  const which: ReleasePointChoice =
    req.releasePoint !== undefined
      ? { releasePoint: parseReleasePointId(req.releasePoint).id }
      : req.since !== undefined
        ? { since: parseReleasePointId(req.since).id }
        : synced
          ? { since: synced }
          : { latest: true };
  const options = { which, source, ...(titles && { titles }) };

  let pages: ReleasePointPages | null = null;
  if (needsPages(options)) {
    const current = parseCurrentReleasePoint(
      await fetchPage(deps.fetch, currentReleasePointUrl(source), timeouts),
      currentReleasePointUrl(source),
    );
    if (synced === current.id) return { source, current: current.id, upToDate: true, through: current.id, jobs: [], held: 0, deferred: 0 };
    const prior = needsPriorList(which, current)
      ? parseReleasePointList(await fetchPage(deps.fetch, releasePointListUrl(source), timeouts), releasePointListUrl(source))
      : undefined;
    pages = { current, ...(prior && { prior }) };
  }
  // An update starts after the release point the last one completed: its titles are all held or unchanged.
  const work = selectWork(pages, options).filter((item) => !synced || item.releasePoint.id !== synced);

  const wanted: (TitleJob | null)[] = work.map((item) => ({
    releasePoint: item.releasePoint.id,
    title: item.title,
    url: item.url,
    named: item.named,
  }));
  await forEachBounded([...wanted.keys()], MARKER_READS, async (i) => {
    const job = wanted[i]!;
    if (await deps.markers.getMarker(ingestedMarker(job.releasePoint, job.title))) wanted[i] = null;
  });
  const pending = wanted.filter((j): j is TitleJob => j !== null);
  const jobs = pending.slice(0, deps.limit);
  const deferred = pending.length - jobs.length;
  const current = pages?.current.id ?? null;
  const overEveryTitle = !titles && !('releasePoint' in which);
  return {
    source,
    current,
    upToDate: false,
    through: overEveryTitle && deferred === 0 ? current : null,
    jobs,
    held: work.length - pending.length,
    deferred,
  };
}

function currentOf(stored: string | null): string | null {
  if (!stored) return null;
  const record = JSON.parse(stored) as Partial<CurrentRecord>;
  return typeof record.releasePoint === 'string' ? parseReleasePointId(record.releasePoint).id : null;
}

/** The record of a run that brought every title to `releasePoint`. */
export const currentRecord = (releasePoint: string, now: Date): string =>
  JSON.stringify({ releasePoint: parseReleasePointId(releasePoint).id, completedAt: now.toISOString() } satisfies CurrentRecord);
