import { escapeHtml as h } from '#law/snippet.ts';
import type { CoverageRecord } from '#ops/ports.ts';
import { thousands } from '#shared/thousands.ts';
import { citationForm, searchForm } from './forms.ts';
import { htmlPage, siteNav } from './html.ts';
import { jurisdictionChoices, readCoverage } from './jurisdictions.ts';
import type { Page } from './page.ts';

const span = (from: string, to: string | null) => `${from} – ${to ?? 'today'}`;

function coverageRow(r: CoverageRecord): string {
  const titles = r.titles?.length
    ? `<details><summary>${r.titles.length} titles</summary><ul>${r.titles
        .map(
          (t) =>
            `<li>Title ${h(t.title)}${t.name ? ` (${h(t.name)})` : ''}: ${h(span(t.coverageFrom, t.coverageTo))}, ${thousands(t.sections)} sections</li>`,
        )
        .join('')}</ul></details>`
    : '';
  return (
    `<tr><th scope="row">${h(r.name)}${titles}</th><td>${h(r.jurisdiction)}</td><td>${h(r.corpus)}</td>` +
    `<td>${h(span(r.coverageFrom, r.coverageTo))}</td><td>${h(r.latestVersion)} (${h(r.latestVersionDate)})</td>` +
    `<td>${thousands(r.editions.length)}</td><td>${thousands(r.sections)}</td><td>${thousands(r.versions)}</td></tr>`
  );
}

function coverageTable(records: readonly CoverageRecord[]): string {
  if (!records.length) return '<p class="notice">Nothing is loaded yet.</p>';
  return (
    '<table><caption class="meta">Read from /v1/law/coverage: every collection on file, from when to when.</caption>' +
    '<thead><tr><th scope="col">collection</th><th scope="col">jurisdiction</th><th scope="col">corpus</th><th scope="col">in force</th>' +
    '<th scope="col">latest edition</th><th scope="col">editions</th><th scope="col">sections</th><th scope="col">versions</th></tr></thead>' +
    `<tbody>${records.map(coverageRow).join('')}</tbody></table>`
  );
}

/**
 * `{site_url}/`: what asof is, what it carries (from coverage, as the API serves it), the citation box and the search
 * box (both answered by public pages, no key), and the way to the docs and the API.
 */
export const homePage: Page = {
  id: 'home',
  path: '/',
  stores: ['versions', 'ops'],
  async render({ services }) {
    const records = await readCoverage(services);
    const choices = jurisdictionChoices(records ?? []);
    const api = services.site?.baseUrl || 'v1';
    const carried =
      records === null ? '<p class="notice">What is carried cannot be read just now; try again shortly.</p>' : coverageTable(records);
    return htmlPage(
      200,
      'The law as it stood on a date',
      `<h1>asof: the law as it stood on a date</h1>` +
        '<p>asof answers with the text of a statute or court rule that was in force on the date you ask about, never the nearest version, ' +
        'and says where each text came from: the official source, when it was read, its content hash and its validity dates. ' +
        'Every section has a page of its own, and an API serves the same answers to programs and LLM tools.</p>' +
        `<h2 id="cite-heading">Open a section by its citation</h2>${citationForm('', choices)}` +
        `<h2 id="search-heading">Search the law in force on a date</h2>${searchForm('', choices)}` +
        `<h2>What asof carries</h2>${carried}` +
        '<h2>For programs</h2><ul>' +
        '<li><a href="docs">The API reference and a quick start</a></li>' +
        `<li><a href="${h(api)}/openapi.json">The OpenAPI document</a> (<a href="${h(api)}/openapi.yaml">YAML</a>)</li>` +
        `<li><a href="${h(api)}/law/coverage">Coverage as JSON</a>, public like the section pages; lookups and searches through the API need a key.</li></ul>`,
      { nav: siteNav('') },
    );
  },
};
