/**
 * The answer key of the citation-accuracy measure: CourtListener's `html_with_citations` (the `HTMLtext` field of
 * the bundled API v3 records) marks every citation it found as
 *   <span class="citation" data-id="…"><a …><span class="volume">455</span> <span class="reporter">U.S.</span>
 *   <span class="page">745</span></a></span>
 * (`citation no-link` when it did not resolve it). Stripping the tags gives the plain text the extractor reads; the
 * marked spans, with their offsets in that text, are the citations it should find.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyedCitation {
  start: number;
  end: number;
  volume: string;
  reporter: string;
  page: string;
  /** CourtListener's opinion id for a linked citation. */
  opinionId?: number;
  /** The link's cluster id and slug, CourtListener's name for the case cited (`/opinion/118359/slack-v-mcdaniel/`). */
  clusterId?: number;
  slug?: string;
}

export interface AnswerKey {
  id: string;
  text: string;
  citations: KeyedCitation[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', sect: '§' };

function decode(entity: string): string {
  if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
  if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
  return ENTITIES[entity] ?? `&${entity};`;
}

/** Plain text and marked citations of one `html_with_citations` document. */
function readAnswerKey(id: string, html: string): AnswerKey {
  let text = '';
  const citations: KeyedCitation[] = [];
  let open: (Partial<KeyedCitation> & { start: number; depth: number }) | undefined;
  let field: 'volume' | 'reporter' | 'page' | undefined;
  let depth = 0;
  const token = /<(\/?)([a-zA-Z]+)([^>]*)>|&(#x?[0-9a-fA-F]+|[a-z]+);|[^<&]+|[<&]/g;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    const [whole, closing, tag, attrs, entity] = m;
    if (tag) {
      const link = open && !closing && tag.toLowerCase() === 'a' ? /href="\/opinion\/(\d+)\/([^/"]*)\/?"/.exec(attrs ?? '') : null;
      if (link && open) Object.assign(open, { clusterId: Number(link[1]), slug: link[2] });
      if (tag.toLowerCase() !== 'span') continue;
      if (closing) {
        depth--;
        if (field && open && depth === open.depth + 1) field = undefined;
        else if (open && depth === open.depth) {
          if (open.volume !== undefined && open.reporter !== undefined && open.page !== undefined) {
            citations.push({
              start: open.start,
              end: text.length,
              volume: open.volume,
              reporter: open.reporter.replace(/\s+/g, ' '),
              page: open.page,
              ...(open.opinionId ? { opinionId: open.opinionId } : {}),
              ...(open.clusterId ? { clusterId: open.clusterId, slug: open.slug ?? '' } : {}),
            });
          }
          open = undefined;
        }
        continue;
      }
      const cls = /class="([^"]*)"/.exec(attrs ?? '')?.[1] ?? '';
      if (/\bcitation\b/.test(cls) && !open) {
        const dataId = /data-id="(\d+)"/.exec(attrs ?? '')?.[1];
        open = { start: text.length, depth, ...(dataId ? { opinionId: Number(dataId) } : {}) };
      } else if (open && (cls === 'volume' || cls === 'reporter' || cls === 'page')) {
        field = cls;
        open[cls] = '';
        if (cls === 'volume') open.start = text.length;
      }
      depth++;
      continue;
    }
    const piece = entity ? decode(entity) : whole;
    text += piece;
    if (open && field) open[field] += piece;
  }
  return { id, text, citations };
}

const apiV3Dir = new URL('../../data/sample/caselaw/courtlistener-api-v3/', import.meta.url);

/** Every API v3 opinion of `dir` that carries `HTMLtext`, read as an answer key, in file-name order. */
export function answerKeysIn(dir: string, accept: (id: string) => boolean = () => true): AnswerKey[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && accept(f.replace(/\.json$/, '')))
    .sort()
    .flatMap((f) => {
      const record = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { HTMLtext?: string };
      return record.HTMLtext ? [readAnswerKey(f.replace(/\.json$/, ''), record.HTMLtext)] : [];
    });
}

/** Every bundled API v3 opinion that carries `HTMLtext`, read as an answer key. */
export function bundledAnswerKeys(): AnswerKey[] {
  return answerKeysIn(apiV3Dir.pathname);
}
