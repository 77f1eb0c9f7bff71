/**
 * OLRC's release points, read from its two download pages (shapes as read on 2026-11-24, see docs/INGEST.md):
 *
 * - `download/priorreleasepoints.htm`: the prior release points, newest first, each a link
 *   `<a class="releasepoint" href="releasepoints/us/pl/119/72not60/usc-rp@119-72not60.htm">Public Law 119-72
 *   (01/20/2026), except 119-60, affecting titles 38, 42.</a>`. The current release point sits at the top inside an
 *   HTML comment until its successor is published, so it is read from the other page.
 * - `download/download.shtml`: the current release point: `<h3 class="releasepointinformation">Public Law 119-73
 *   (01/23/2026) , except 119-60</h3>`, then a row per title whose links name the zips
 *   (`releasepoints/us/pl/119/73not60/xml_usc01@119-73not60.zip`), rows changed since the previous release point
 *   marked `usctitlechanged` (id `us/usc/t26`).
 *
 * Pure: no I/O, so the scheduled job in AWS reads the same pages the same way.
 */
import { Parser } from 'htmlparser2';
import { TitleCodeError, titleCode } from './titles.ts';

export interface ReleasePoint {
  /** As OLRC writes it: `118-158`, `114-329not328` (current through 114-329 except 114-328). */
  id: string;
  congress: number;
  /** The public-law part of the id: `158`, `329not328`. */
  law: string;
  /** The date of the public law the release point is current through (the list's "(MM/DD/YYYY)"), YYYY-MM-DD. */
  lawDate?: string;
  /** Title codes the release point changed, when the publisher says ("affecting titles 38, 42"); absent: unknown. */
  affectedTitles?: string[];
  /** The release point's own page, when listed. */
  page?: string;
}

/** The current release point, with the zip of every title its page links. */
export interface CurrentReleasePoint extends ReleasePoint {
  /** Title code → the zip's address as the page links it. */
  titleZips: Record<string, string>;
}

export class ReleasePointError extends Error {}

const ID = /^(\d{2,3})-(\d+[0-9a-z]*)$/;

/** `118-158` → congress 118, law `158`; refuses anything else. */
export function parseReleasePointId(id: string): Pick<ReleasePoint, 'id' | 'congress' | 'law'> {
  const m = ID.exec(id.trim());
  if (!m) throw new ReleasePointError(`'${id}' is not a release point (written as OLRC writes them: 118-158, 114-329not328)`);
  return { id: id.trim(), congress: Number(m[1]), law: m[2]! };
}

const LAW_DATE = /\((\d{2})\/(\d{2})\/(\d{4})\)/;
const lawDateOf = (text: string): string | undefined => {
  const m = LAW_DATE.exec(text);
  return m ? `${m[3]}-${m[1]}-${m[2]}` : undefined;
};

/** A title code, or null for a name this reader does not know as a title (a title added one day is skipped, not fatal). */
function knownTitle(name: string): string | null {
  try {
    return titleCode(name);
  } catch (err) {
    if (err instanceof TitleCodeError) return null;
    throw err;
  }
}

/** "… affecting titles 38, 42." → ['38', '42']; undefined when absent or when a name is not a title this reader knows. */
function affectedTitlesOf(text: string): string[] | undefined {
  const m = /affecting titles?\s+(.+?)\.?\s*$/i.exec(text);
  if (!m) return undefined;
  const names = m[1]!
    .split(/,|\band\b/)
    .map((s) => s.trim().replace(/\s*appendix$/i, 'a'))
    .filter(Boolean);
  const codes = names.map(knownTitle);
  // A name that is not a title: which titles changed is unknown, and the caller takes every title.
  return codes.every((c) => c !== null) ? [...new Set(codes as string[])] : undefined;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const resolve = (href: string, base: string | undefined) => (base ? new URL(href, base).href : href);

/** Runs the parser over a whole page; `onAnchor` gets each link's href and text, comments are skipped. */
function readPage(
  html: string,
  handlers: { onAnchor?: (href: string, text: string) => void; onElement?: (name: string, attrs: Record<string, string>) => void },
  textOf?: { matches: (name: string, attrs: Record<string, string>) => boolean; done: (text: string) => void },
): void {
  let anchor: { href: string; text: string } | null = null;
  let capture: { name: string; depth: number; text: string } | null = null;
  let depth = 0;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        depth++;
        handlers.onElement?.(name, attrs);
        if (name === 'a' && attrs.href) anchor = { href: attrs.href, text: '' };
        if (!capture && textOf?.matches(name, attrs)) capture = { name, depth, text: '' };
      },
      ontext(text) {
        if (anchor) anchor.text += text;
        if (capture) capture.text += text;
      },
      onclosetag(name) {
        if (name === 'a' && anchor) {
          handlers.onAnchor?.(anchor.href, squash(anchor.text));
          anchor = null;
        }
        if (capture && capture.name === name && capture.depth === depth) {
          textOf?.done(squash(capture.text));
          capture = null;
        }
        depth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
}

const RP_PAGE = /releasepoints\/us\/pl\/(\d+)\/([0-9a-z]+)\/usc-rp@(\d+-[0-9a-z]+)\.htm$/i;

/**
 * The prior release points of `download/priorreleasepoints.htm`, in the page's order (newest first). `pageUrl`
 * resolves their pages' addresses. A page that lists none is refused: it is not the list (an error page, a changed site).
 */
export function parseReleasePointList(html: string, pageUrl?: string): ReleasePoint[] {
  const found = new Map<string, ReleasePoint>();
  readPage(html, {
    onAnchor(href, text) {
      const m = RP_PAGE.exec(href);
      if (!m || `${m[1]}-${m[2]}` !== m[3]) return;
      const id = parseReleasePointId(m[3]!);
      if (found.has(id.id)) return;
      const lawDate = lawDateOf(text);
      const affectedTitles = affectedTitlesOf(text);
      found.set(id.id, { ...id, ...(lawDate && { lawDate }), ...(affectedTitles && { affectedTitles }), page: resolve(href, pageUrl) });
    },
  });
  if (!found.size)
    throw new ReleasePointError('the release-point list page names no release point (links to releasepoints/us/pl/…/usc-rp@….htm)');
  return [...found.values()];
}

const TITLE_ZIP = /(?:^|\/)xml_usc([0-9]{2}[a-z]?)@(\d+-[0-9a-z]+)\.zip$/i;

/**
 * The current release point of `download/download.shtml`: its id (every title zip the page links must name the
 * same one), the date of its public law, the titles it changed, and each title's zip.
 */
export function parseCurrentReleasePoint(html: string, pageUrl?: string): CurrentReleasePoint {
  const ids = new Set<string>();
  const titleZips: Record<string, string> = {};
  const changed = new Set<string>();
  let heading = '';
  readPage(
    html,
    {
      onAnchor(href) {
        const m = TITLE_ZIP.exec(href);
        const code = m && knownTitle(m[1]!);
        if (!m || !code) return;
        ids.add(m[2]!);
        titleZips[code] ??= resolve(href, pageUrl);
      },
      onElement(_name, attrs) {
        const classes = (attrs.class ?? '').split(/\s+/);
        const appendix = classes.includes('usctitleappendixchanged');
        if (!appendix && !classes.includes('usctitlechanged')) return;
        const m = /\/t(\d+)(a?)$/i.exec(attrs.id ?? '');
        const code = m && knownTitle(`${m[1]}${appendix ? 'a' : m[2]}`);
        if (code) changed.add(code);
      },
    },
    {
      matches: (name, attrs) => name === 'h3' && (attrs.class ?? '').split(/\s+/).includes('releasepointinformation'),
      done: (text) => {
        heading ||= text;
      },
    },
  );
  if (ids.size !== 1) {
    throw new ReleasePointError(
      ids.size
        ? `the download page links zips of several release points (${[...ids].join(', ')}): cannot tell which is current`
        : 'the download page links no title zip (xml_usc<TT>@<release point>.zip): it is not the download page',
    );
  }
  const lawDate = lawDateOf(heading);
  return {
    ...parseReleasePointId([...ids][0]!),
    ...(lawDate && { lawDate }),
    ...(changed.size > 0 && { affectedTitles: [...changed].sort() }),
    titleZips,
  };
}

/** Every release point oldest first: the list's (reversed), then the current one unless the list already names it. */
export function releasePointHistory(prior: readonly ReleasePoint[], current: ReleasePoint | null): ReleasePoint[] {
  const oldestFirst = [...prior].reverse();
  if (current && !prior.some((rp) => rp.id === current.id)) oldestFirst.push(current);
  return oldestFirst;
}
