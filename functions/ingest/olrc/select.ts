/** What `asof fetch uscode` fetches: release points and titles, from the options and the publisher's pages. Pure. */
import {
  type CurrentReleasePoint,
  parseReleasePointId,
  type ReleasePoint,
  ReleasePointError,
  releasePointHistory,
} from './release-points.ts';
import { titleZipUrl } from './urls.ts';

/** Which release points: one named, the newest, or every one from a named one on (that one included). */
export type ReleasePointChoice = { releasePoint: string } | { latest: true } | { since: string };

export interface WorkOptions {
  which: ReleasePointChoice;
  /** Title codes (titleCode); absent: every title the publisher's download page lists. */
  titles?: readonly string[];
  /** The publisher's address (normalizeSource). */
  source: string;
}

/** What the publisher's pages said (see needsPages). */
export interface ReleasePointPages {
  current: CurrentReleasePoint;
  /** The prior release points, as listed (newest first); needed for `since` and for a named prior release point. */
  prior?: readonly ReleasePoint[];
}

/** One title's zip at one release point. */
export interface WorkItem {
  releasePoint: ReleasePoint;
  /** Title code (`01`, `05a`). */
  title: string;
  url: string;
  /** Named by the user (--titles): a title the release point does not have is then an error, not a note. */
  named: boolean;
}

/** With a named release point and named titles, no page is read: only those zips are requested. */
export const needsPages = (options: Pick<WorkOptions, 'which' | 'titles'>): boolean =>
  !('releasePoint' in options.which && options.titles?.length);

/** Whether the prior list is needed too, once the current release point is known. */
export const needsPriorList = (which: ReleasePointChoice, current: ReleasePoint): boolean =>
  'since' in which || ('releasePoint' in which && which.releasePoint !== current.id);

/**
 * The zips to fetch, release point by release point, oldest first. `since`: every title (or the named ones) at the
 * first release point, then at each later one only the titles it changed when the list says which (an unchanged
 * title's text is already held from the earlier one); every title when it does not say.
 */
export function selectWork(pages: ReleasePointPages | null, options: WorkOptions): WorkItem[] {
  const named = !!options.titles?.length;
  const { which, source } = options;
  if (!pages) {
    if (!('releasePoint' in which) || !named) throw new Error('selectWork: the publisher’s pages are needed for this choice');
    const rp = parseReleasePointId(which.releasePoint);
    return options.titles!.map((title) => ({ releasePoint: rp, title, url: titleZipUrl(source, rp, title), named }));
  }
  const { current } = pages;
  const every = options.titles?.length ? [...options.titles] : Object.keys(current.titleZips).sort();
  const item = (releasePoint: ReleasePoint, title: string): WorkItem => ({
    releasePoint,
    title,
    url: (releasePoint.id === current.id && current.titleZips[title]) || titleZipUrl(source, releasePoint, title),
    named,
  });
  const history = releasePointHistory(pages.prior ?? [], current);
  const find = (id: string): number => {
    const wanted = parseReleasePointId(id).id;
    const at = history.findIndex((rp) => rp.id === wanted);
    if (at < 0) {
      const newest = history.slice(-3).map((rp) => rp.id);
      throw new ReleasePointError(
        `release point ${wanted} is not in the publisher's list (${history.length} listed, from ${history[0]?.id} to ${newest.join(', ')})`,
      );
    }
    return at;
  };

  if ('latest' in which) return every.map((t) => item(current, t));
  if ('releasePoint' in which) return every.map((t) => item(history[find(which.releasePoint)]!, t));
  const [first, ...later] = history.slice(find(which.since));
  return [
    ...every.map((t) => item(first!, t)),
    ...later.flatMap((rp) => (rp.affectedTitles ? every.filter((t) => rp.affectedTitles!.includes(t)) : every).map((t) => item(rp, t))),
  ];
}
