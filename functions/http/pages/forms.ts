import { escapeHtml as h } from '#law/snippet.ts';
import { isCalendarDate } from '#shared/dates.ts';
import { MAX_SHORT_PARAM_CHARS } from '../input-limits.ts';

/** The jurisdictions a form offers: code and a readable name, from coverage (what is carried), never typed in. */
export interface JurisdictionChoice {
  code: string;
  name: string;
}

const select = (id: string, name: string, first: string, choices: readonly JurisdictionChoice[], selected: string | null) =>
  `<select id="${id}" name="${name}"><option value="">${h(first)}</option>` +
  choices.map((c) => `<option value="${h(c.code)}"${c.code === selected ? ' selected' : ''}>${h(c.code)}: ${h(c.name)}</option>`).join('') +
  '</select>';

/**
 * The citation box: a printed citation (or a key with its jurisdiction) and a date, answered by /cite with a redirect
 * to the section's page. `root` leads from the page to the site's root; values are shown back escaped.
 */
export function citationForm(
  root: string,
  choices: readonly JurisdictionChoice[],
  value: { citation?: string; jurisdiction?: string; asOf?: string } = {},
) {
  return (
    `<form action="${root}cite" method="get" role="search" aria-labelledby="cite-heading">` +
    `<label for="cite-citation">Citation</label><input type="search" id="cite-citation" name="citation" required maxlength="${MAX_SHORT_PARAM_CHARS}" ` +
    `placeholder="1 U.S.C. § 112b" value="${h(value.citation ?? '')}" aria-describedby="cite-help">` +
    `<p id="cite-help" class="meta">A printed citation (28 U.S.C. § 1291, D.C. Code § 22-404.05, Fed. R. App. P. 32, Tenn. Code Ann. § 15-2-102) or a key with its jurisdiction (1-112b and us).</p>` +
    `<label for="cite-jurisdiction">Jurisdiction</label>${select('cite-jurisdiction', 'jurisdiction', 'as the citation says', choices, value.jurisdiction ?? null)}` +
    `<label for="cite-asof">As of (optional)</label><input type="date" id="cite-asof" name="asOf" value="${h(value.asOf ?? '')}">` +
    `<button type="submit">Open the section</button></form>`
  );
}

/** The search box: keywords, a jurisdiction and a date, answered by /search (a bounded page of results). */
export function searchForm(
  root: string,
  choices: readonly JurisdictionChoice[],
  value: { q?: string; jurisdiction?: string; asOf?: string } = {},
) {
  return (
    `<form action="${root}search" method="get" role="search" aria-labelledby="search-heading">` +
    `<label for="search-q">Keywords</label><input type="search" id="search-q" name="q" required maxlength="1000" ` +
    `placeholder="strangulation" value="${h(value.q ?? '')}" aria-describedby="search-help">` +
    `<p id="search-help" class="meta">Every word must appear in the section (a lexical search: give keywords, not a question).</p>` +
    `<label for="search-jurisdiction">Jurisdiction</label>${select('search-jurisdiction', 'jurisdiction', 'all', choices, value.jurisdiction ?? null)}` +
    `<label for="search-asof">In force on (optional; default today)</label><input type="date" id="search-asof" name="asOf" value="${h(value.asOf ?? '')}">` +
    `<button type="submit">Search</button></form>`
  );
}

/** A query parameter as a form gives it: absent or empty is null (an empty select or date means "not given"). */
export function formValue(query: URLSearchParams, name: string): string | null {
  const v = query.get(name);
  return v === null || v.trim() === '' ? null : v.trim();
}

/** A form value no page would look up: too long for any citation, code or date, or holding a NUL. */
export const isImplausible = (value: string | null, max = MAX_SHORT_PARAM_CHARS): boolean =>
  value !== null && (value.length > max || value.includes('\u0000'));

/** The date a form gave: null when none, 'bad' when it is not a calendar date YYYY-MM-DD. */
export function formDate(query: URLSearchParams): string | null | 'bad' {
  const v = formValue(query, 'asOf');
  if (v === null) return null;
  return isCalendarDate(v) ? v : 'bad';
}
