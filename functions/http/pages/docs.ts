import { marked } from 'marked';
import { escapeHtml as h } from '#law/snippet.ts';
import { textResponse } from '../respond.ts';
import { docsFile } from './docs-files.ts';
import { contentSecurityPolicy, HTML_TYPE, PAGE_HEADERS, pageHtml, STYLE_HASH, siteNav } from './html.ts';
import type { Page } from './page.ts';

/**
 * The docs page's policy: the renderer (swagger-ui) runs from the site's own files, with no eval and no inline script;
 * it fetches the OpenAPI document from the site; its CSS is a file of the site, and its icons are data: URLs inside it.
 * React sets element styles through the DOM (not blocked by a policy), so no 'unsafe-inline' is needed for styles.
 */
export const DOCS_CSP = contentSecurityPolicy({
  'script-src': "'self'",
  'style-src': `'self' ${STYLE_HASH}`,
  'img-src': "'self' data:",
  'connect-src': "'self'",
});

/** The README's "Quick start" section: from its heading to the next heading of the same level. */
export function quickStartOf(readme: string): string {
  const start = readme.indexOf('\n## Quick start');
  if (start < 0) throw new Error('the README has no "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start + 1, end < 0 ? undefined : end);
}

/** Markdown as HTML; raw HTML in it is shown as text, not passed through. */
export const markdownHtml = (markdown: string): string =>
  marked.parse(markdown, {
    async: false,
    renderer: Object.assign(new marked.Renderer(), { html: ({ text }: { text: string }) => h(text) }),
  });

/** `{site_url}/docs`: the README's quick start, then the API reference rendered from the served OpenAPI document. */
export const docsPage: Page = {
  id: 'docs',
  path: '/docs',
  stores: [],
  assets: ['docs'],
  async render() {
    const quickStart = markdownHtml(quickStartOf(await docsFile('README.md')));
    // The renderer's operations are a <main> of its own: the page's one main landmark, at the top level; the rest of
    // the page is in landmarks beside it (header, sections, footer).
    const body =
      '<header><h1>asof: API reference and quick start</h1>' +
      '<p>The API answers with the version of the law in force on a date, with its provenance. Data endpoints need a key (<code>Authorization: Bearer asof_live_…</code>); ' +
      'coverage, health, the OpenAPI document and the section pages are public.</p></header>' +
      `<section aria-labelledby="quick-start">${quickStart.replace('<h2>Quick start</h2>', '<h2 id="quick-start">Quick start</h2>')}</section>` +
      '<section aria-labelledby="reference"><h2 id="reference">API reference</h2>' +
      '<p>Rendered from <a href="docs/assets/openapi.json">the OpenAPI document</a>, the one the API serves at <code>/v1/openapi.json</code>.</p>' +
      '<noscript><p>The reference needs JavaScript; the OpenAPI document above has it all.</p></noscript></section>' +
      '<div id="swagger-ui" class="wide"></div>';
    const head = '<link rel="stylesheet" href="docs/assets/swagger-ui.css"><link rel="stylesheet" href="docs/assets/docs.css">';
    const scripts = '<script src="docs/assets/swagger-ui-bundle.js"></script><script src="docs/assets/docs.js"></script>';
    const html = pageHtml('API reference', body, { head, scripts, nav: siteNav(''), landmarks: 'own' });
    return textResponse(200, html, HTML_TYPE, { ...PAGE_HEADERS, 'content-security-policy': DOCS_CSP });
  },
};
