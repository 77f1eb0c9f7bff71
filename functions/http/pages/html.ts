import { DISCLAIMER } from '#law/notes.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { textResponse } from '../respond.ts';

// Colours as rgb(), not #hex: the site's gateway responses (lib/public-site.ts) carry this shell as a Velocity
// template, in which `#` and `$` are syntax.
const STYLE = `body{font:16px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:rgb(34,34,34)}
h1{font-size:1.4rem}pre{white-space:pre-wrap;font:inherit}table{border-collapse:collapse;font-size:.9rem}
td,th{border-bottom:1px solid rgb(221,221,221);padding:.25rem .5rem;text-align:left}.meta{color:rgb(85,85,85);font-size:.9rem}
.current{font-weight:bold}.notice{background:rgb(255,244,224);padding:.5rem 1rem}
ins{background:rgb(214,245,214)}del{background:rgb(252,222,222)}.gap td{color:rgb(85,85,85);font-style:italic}`;

/**
 * Headers of every page: nothing loaded but the page's own inline style, and no framing by any site (a page of the
 * law inside another site's frame could be dressed up as that site's). nosniff is on every answer (respond.ts).
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
} as const;

export const HTML_TYPE = 'text/html; charset=utf-8';

/** A whole page of the site: `title` is text, `body` HTML. */
export const pageHtml = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${h(title)} — asof</title><style>${STYLE}</style></head><body>${body}<p class="meta">${h(DISCLAIMER)}</p></body></html>`;

export const htmlPage = (status: number, title: string, body: string) =>
  textResponse(status, pageHtml(title, body), HTML_TYPE, PAGE_HEADERS);

/** What a path with no page shows (also API Gateway's answer for the site, built from it in lib/public-site.ts). */
export const NOT_FOUND_HTML = pageHtml(
  'Not found',
  '<h1>Not found</h1><p>There is no page at this address. Permalinks have the form /law/&lt;jurisdiction&gt;/&lt;corpus&gt;/&lt;key&gt;; the API is at /v1.</p>',
);

export const notFoundPage = () => textResponse(404, NOT_FOUND_HTML, HTML_TYPE, PAGE_HEADERS);
