/**
 * OLRC's download addresses (read on 2026-11-24, see docs/INGEST.md): a release point's title zip is
 * `{source}/download/releasepoints/us/pl/<congress>/<law>/xml_usc<TT>@<congress>-<law>.zip`, e.g.
 * `…/pl/114/329not328/xml_usc05a@114-329not328.zip`. Pure.
 */
import type { ReleasePoint } from './release-points.ts';

/** The publisher: what `--source` defaults to. */
export const OLRC_SOURCE = 'https://uscode.house.gov';

export class SourceError extends Error {}

/** `--source`: an http(s) address without query or fragment; its trailing slashes dropped. */
export function normalizeSource(source: string): string {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new SourceError(`--source must be an http(s) address such as ${OLRC_SOURCE} (got '${source}')`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new SourceError(`--source must be a plain http(s) address such as ${OLRC_SOURCE} (got '${source}')`);
  }
  return url.href.replace(/\/+$/, '');
}

export const releasePointListUrl = (source: string): string => `${source}/download/priorreleasepoints.htm`;
export const currentReleasePointUrl = (source: string): string => `${source}/download/download.shtml`;

/** The zip's path below the source (and below the local sources cache, which mirrors it). */
export const titleZipPath = (rp: Pick<ReleasePoint, 'id' | 'congress' | 'law'>, title: string): string =>
  `download/releasepoints/us/pl/${rp.congress}/${rp.law}/xml_usc${title}@${rp.id}.zip`;

/** A title's zip at a release point; `title` is a code from titleCode (`01`, `05a`). */
export const titleZipUrl = (source: string, rp: Pick<ReleasePoint, 'id' | 'congress' | 'law'>, title: string): string =>
  `${source}/${titleZipPath(rp, title)}`;
