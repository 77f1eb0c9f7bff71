import type { Collection } from '#law/collections.ts';
import { readPrinted, resolveCitation } from '#law/resolve-citation.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { textResponse } from '../respond.ts';
import { formDate, formValue, isImplausible } from './forms.ts';
import { HTML_TYPE, htmlPage, PAGE_HEADERS, pageHtml, siteNav } from './html.ts';
import type { Page } from './page.ts';

type Found = { collection: Collection; key: string };

/**
 * A citation as the box gives it: within the jurisdiction chosen (a key or a printed form, as a lookup reads it), or,
 * with none chosen, by the printed form alone, which names its collection. A bare key without a jurisdiction is
 * ambiguous (`1-1` is a key of several codes): not guessed.
 */
function resolve(citation: string, jurisdiction: string | null): Found | null {
  if (jurisdiction !== null) {
    const r = resolveCitation(jurisdiction, citation);
    return r.kind === 'key' || r.kind === 'foreign' ? { collection: r.collection, key: r.key } : null;
  }
  return readPrinted(citation);
}

const notResolved = (status: number, title: string, message: string) =>
  htmlPage(status, title, `<h1>${h(title)}</h1><p>${message}</p><p><a href="./">Back to the front page</a></p>`, { nav: siteNav('') });

/**
 * `{site_url}/cite?citation=&jurisdiction=&asOf=`: the front page's citation box. It reads the citation as a lookup
 * does and answers 303 to the section's page (`law/<jurisdiction>/<corpus>/<key>`, with `?asOf=` when a date was
 * given), which shows what is on file; it reads no store and costs nothing (docs/DECISIONS.md, "The front door").
 */
export const citePage: Page = {
  id: 'cite',
  path: '/cite',
  stores: [],
  async render({ query }) {
    const citation = formValue(query, 'citation');
    const jurisdiction = formValue(query, 'jurisdiction')?.toLowerCase() ?? null;
    const asOf = formDate(query);
    if (citation === null) return notResolved(400, 'No citation', 'Type a citation, e.g. 1 U.S.C. § 112b or D.C. Code § 22-404.05.');
    if (isImplausible(citation) || isImplausible(jurisdiction, 8))
      return notResolved(400, 'Not a citation', 'A citation is at most 200 characters and a jurisdiction a two-letter code.');
    if (asOf === 'bad') return notResolved(400, 'Bad date', 'The date must be a calendar date written YYYY-MM-DD.');
    const found = resolve(citation, jurisdiction);
    if (!found) {
      const why =
        jurisdiction === null
          ? `asof cannot read “${h(citation)}” as the printed citation of a carried collection. If it is a key (such as 1-112b), choose its jurisdiction.`
          : `asof cannot read “${h(citation)}” as a citation of jurisdiction “${h(jurisdiction)}”.`;
      return notResolved(404, 'Citation not recognised', why);
    }
    const { collection, key } = found;
    const location = `law/${encodeURIComponent(collection.jurisdiction)}/${collection.corpus}/${encodeURIComponent(key)}${asOf ? `?asOf=${asOf}` : ''}`;
    const display = collection.display(key);
    return textResponse(303, pageHtml(display, `<h1>${h(display)}</h1><p><a href="${h(location)}">Open ${h(display)}</a></p>`), HTML_TYPE, {
      ...PAGE_HEADERS,
      location,
    });
  },
};
