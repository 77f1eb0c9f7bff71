import type { SearchHit } from '#law/ports.ts';
import { queryTooLong, searchLaw } from '#law/search.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { AppError, StoreUnavailableError } from '#shared/errors.ts';
import { formDate, formValue, isImplausible, searchForm } from './forms.ts';
import { htmlPage, siteNav } from './html.ts';
import { jurisdictionChoices, readCoverage } from './jurisdictions.ts';
import type { Page } from './page.ts';
import { overSiteBudget } from './page-budget.ts';

/** The public page shows this many results, no more and no further pages: the API is the way to read more. */
export const SEARCH_PAGE_RESULTS = 10;
const NAV = { nav: siteNav('') };

/** An index's snippet is HTML-safe by its port's contract; re-escaped here all the same, its <b> marks kept. */
const safeSnippet = (snippet: string) =>
  h(
    snippet
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
  ).replace(/&lt;(\/?)b&gt;/g, '<$1b>');

function hitItem(hit: SearchHit, asOf: string): string {
  const c = hit.citation;
  const href = `law/${encodeURIComponent(c.jurisdiction)}/${encodeURIComponent(c.corpus)}/${encodeURIComponent(c.key)}?asOf=${asOf}`;
  return (
    `<li><a href="${h(href)}">${h(c.display)}. ${h(hit.catchline)}</a>` +
    `<p>${safeSnippet(hit.snippet)}</p><p class="meta">${h(hit.versionLabel)} · ${h(hit.status)} · ${h(hit.temporalBasis)}</p></li>`
  );
}

/**
 * `{site_url}/search?q=&jurisdiction=&asOf=`: the front page's search box, public and keyless, bounded: the first
 * SEARCH_PAGE_RESULTS results of the same search as the API's (the same limits on q), each a link to its section's
 * page as of the date searched; each search counts against its address's budget of pages that read the law
 * (page-budget.ts; docs/DECISIONS.md, "The front door").
 */
export const searchPage: Page = {
  id: 'search',
  path: '/search',
  stores: ['versions', 'ops', 'search'],
  async render(request) {
    const { query, services } = request;
    const q = formValue(query, 'q');
    const jurisdiction = formValue(query, 'jurisdiction')?.toLowerCase() ?? null;
    const date = formDate(query);
    const choices = jurisdictionChoices((await readCoverage(services)) ?? []);
    const form = (title: string) =>
      `<h1>${h(title)}</h1><h2 id="search-heading">Search the law in force on a date</h2>` +
      searchForm('', choices, { ...(q && { q }), ...(jurisdiction && { jurisdiction }), ...(date && date !== 'bad' && { asOf: date }) });
    const refuse = (status: number, title: string, message: string, headers: Record<string, string> = {}) => {
      const page = htmlPage(status, title, `${form(title)}<p class="notice" role="alert">${message}</p>`, NAV);
      return { ...page, headers: { ...page.headers, ...headers } };
    };
    if (q === null) return htmlPage(200, 'Search', form('Search'), NAV);
    const tooLong = queryTooLong(q);
    if (tooLong) return refuse(400, 'Query too long', h(tooLong));
    if (isImplausible(jurisdiction, 200)) return refuse(400, 'Bad jurisdiction', 'A jurisdiction is a code such as us, dc or tn.');
    if (date === 'bad') return refuse(400, 'Bad date', 'The date must be a calendar date written YYYY-MM-DD.');
    const over = overSiteBudget(request, NAV.nav);
    if (over) return over;
    if (!services.search || !services.versions) return refuse(503, 'Search unavailable', 'Search is not available here.');
    const asOf = date ?? services.now().toISOString().slice(0, 10);
    try {
      const hits = await searchLaw(services.search, services.versions, {
        q,
        asOf,
        ...(jurisdiction && { jurisdiction }),
        limit: SEARCH_PAGE_RESULTS,
      });
      const summary = hits.length
        ? `<p>${hits.length === 1 ? 'The one section' : `The first ${hits.length} sections`} in force on ${h(asOf)} that ${hits.length === 1 ? 'contains' : 'contain'} every word of “${h(q)}”${hits.length === 1 ? '' : ', best first'}.</p>`
        : `<p>No section in force on ${h(asOf)} contains every word of “${h(q)}”.</p>`;
      return htmlPage(
        200,
        `Search: ${q}`,
        `${form('Search results')}<h2>Results</h2>${summary}<ol class="hits">${hits.map((hit) => hitItem(hit, asOf)).join('')}</ol>` +
          `<p class="meta">This page shows at most ${SEARCH_PAGE_RESULTS} results. The <a href="docs">API's search</a> returns up to 50, with provenance, under a key.</p>`,
        NAV,
      );
    } catch (err) {
      if (err instanceof AppError && (err.code === 'not_carried' || err.code === 'query_too_long'))
        return refuse(err.code === 'not_carried' ? 404 : 400, 'Nothing carried', h(err.message));
      if (err instanceof StoreUnavailableError || err instanceof AppError)
        return refuse(503, 'Search unavailable', 'The search index is unreachable; try again shortly.', { 'retry-after': '5' });
      throw err;
    }
  },
};
