import { createHash } from 'node:crypto';
import { DISCLAIMER } from '#law/notes.ts';
import { escapeHtml as h } from '#law/snippet.ts';
import { textResponse } from '../respond.ts';

// Colours as rgb(), not #hex: the site's gateway responses (lib/public-site.ts) carry this shell as a Velocity
// template, in which `#` and `$` are syntax.
const STYLE = `body{font:16px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:rgb(34,34,34)}
h1{font-size:1.4rem}pre{white-space:pre-wrap;font:inherit}table{border-collapse:collapse;font-size:.9rem}
td,th{border-bottom:1px solid rgb(221,221,221);padding:.25rem .5rem;text-align:left}.meta{color:rgb(85,85,85);font-size:.9rem}
.current{font-weight:bold}.notice{background:rgb(255,244,224);padding:.5rem 1rem}
ins{background:rgb(214,245,214)}del{background:rgb(252,222,222)}.gap td{color:rgb(85,85,85);font-style:italic}
nav ul{list-style:none;padding:0;display:flex;gap:1.5rem}form{margin:1rem 0}label{display:block;font-weight:bold;margin-top:.5rem}
input,select,button{font:inherit;padding:.25rem .5rem}input[type=search]{width:100%;box-sizing:border-box}button{margin-top:.75rem}
.hits li{margin-bottom:1rem}body:has(.wide){max-width:72rem}
.text p{margin:0 0 .5rem;white-space:pre-wrap}.d1{padding-left:1.5rem}.d2{padding-left:3rem}.d3{padding-left:4.5rem}
.d4{padding-left:6rem}.d5{padding-left:7.5rem}.d6{padding-left:9rem}`;

/** The CSP source of the shell's one inline style element: its hash, so that no other inline style is allowed. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * A Content-Security-Policy from its directives. Every page starts from `default-src 'none'`: nothing is loaded, run or
 * framed unless a directive names it; forms submit only to the site itself; no <base> can move relative links.
 */
export function contentSecurityPolicy(extra: Partial<Record<string, string>> = {}): string {
  const directives: Record<string, string> = {
    'default-src': "'none'",
    'style-src': STYLE_HASH,
    // The site's icon (pages/favicon.ts), which some browsers load under the page's policy; nothing else is an image.
    'img-src': "'self'",
    'form-action': "'self'",
    'base-uri': "'none'",
    'frame-ancestors': "'none'",
    ...Object.fromEntries(Object.entries(extra).filter((e): e is [string, string] => e[1] !== undefined)),
  };
  return Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

/**
 * Headers of every page: nothing loaded but the page's own hashed style, and no framing by any site (a page of the law
 * inside another site's frame could be dressed up as that site's); no referrer sent to the sources a page links to; a
 * browser context and resources of the site's own. nosniff is on every answer (respond.ts). The docs page widens
 * the policy for its renderer (pages/docs.ts).
 */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'strict-transport-security': 'max-age=31536000',
} as const;

export const HTML_TYPE = 'text/html; charset=utf-8';

/** What a page adds around its main content: more of the head (HTML), the site's navigation (siteNav), scripts at the end. */
export interface PageParts {
  head?: string;
  nav?: string;
  scripts?: string;
  /** `own`: the body brings its own landmarks (the docs page, whose renderer makes its main), not wrapped in <main>. */
  landmarks?: 'main' | 'own';
}

/** A whole page of the site: `title` is text, `body` HTML (the page's main content). */
export const pageHtml = (title: string, body: string, parts: PageParts = {}): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${h(title)} — asof</title><style>${STYLE}</style>${parts.head ?? ''}</head><body>${parts.nav ?? ''}${parts.landmarks === 'own' ? body : `<main>${body}</main>`}` +
  `<footer><p class="meta">${h(DISCLAIMER)}</p></footer>${parts.scripts ?? ''}</body></html>`;

/**
 * The site's navigation, as links relative to the page: `root` leads from the page to the site's root (`''` from a
 * page at the root level, `../../../` from a section page), so that they hold wherever the site is mounted.
 */
export const siteNav = (root: string): string =>
  `<nav aria-label="Site"><ul><li><a href="${root || './'}">asof</a></li><li><a href="${root}docs">API reference and quick start</a></li>` +
  `<li><a href="${root}search">Search</a></li></ul></nav>`;

export const htmlPage = (status: number, title: string, body: string, parts: PageParts = {}) =>
  textResponse(status, pageHtml(title, body, parts), HTML_TYPE, PAGE_HEADERS);

/** What a path with no page shows (also API Gateway's answer for the site, built from it in lib/public-site.ts). */
export const NOT_FOUND_HTML = pageHtml(
  'Not found',
  '<h1>Not found</h1><p>There is no page at this address. Permalinks have the form /law/&lt;jurisdiction&gt;/&lt;corpus&gt;/&lt;key&gt;; the API is at /v1.</p>',
);

export const notFoundPage = () => textResponse(404, NOT_FOUND_HTML, HTML_TYPE, PAGE_HEADERS);
