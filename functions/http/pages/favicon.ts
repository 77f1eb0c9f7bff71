import { textResponse } from '../respond.ts';
import type { Page } from './page.ts';

/** The site's icon: a section sign on the pages' text colour, as SVG (text, so it passes API Gateway as it is). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="rgb(34,34,34)"/>' +
  '<text x="16" y="24" font-family="Georgia,serif" font-size="24" font-weight="bold" text-anchor="middle" fill="rgb(255,255,255)">§</text></svg>';

/** A week: the icon changes with a release at most, and a browser asks for it beside every page it has not cached. */
const ICON_CACHE = 'public, max-age=604800';

/**
 * `{site_url}/favicon.ico`: what every browser asks for beside the first page it shows, unprompted. A real icon
 * rather than the 404 page (a page's worth of HTML for each browser, and a miss in every log) or a 204 (no icon in
 * the tab). SVG under the name browsers ask for: they read an icon by its type, not its name. The SVG is its own
 * document with a policy of its own that runs and loads nothing; the pages allow images from the site itself
 * (`img-src 'self'`), which a browser that applies a page's policy to its icon needs.
 */
export const faviconPage: Page = {
  id: 'favicon',
  path: '/favicon.ico',
  stores: [],
  async render() {
    return textResponse(200, FAVICON_SVG, 'image/svg+xml', {
      'cache-control': ICON_CACHE,
      'content-security-policy': "default-src 'none'",
      'cross-origin-resource-policy': 'same-origin',
    });
  },
};
