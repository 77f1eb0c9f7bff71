import { escapeHtml as h } from '#law/snippet.ts';
import { API_VERSION } from '../handlers/spec.ts';
import { textResponse } from '../respond.ts';
import { ROUTES } from '../routes.ts';
import { docsFile, RENDERER_FILES } from './docs-files.ts';
import { htmlPage } from './html.ts';
import type { Page } from './page.ts';

/**
 * Starts the renderer on the OpenAPI document the site serves beside it. Reference only: no "try it out" (the API
 * may be on another origin, which the site's policy does not reach, and a key is not typed into a page); no calls to
 * swagger.io's validator.
 */
const INIT_SCRIPT = `SwaggerUIBundle({
  url: new URL('docs/assets/openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  supportedSubmitMethods: [],
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
});
// The renderer's title as a heading under "API reference" (not a second h1), its description a landmark of its own.
new MutationObserver(() => {
  const info = document.querySelector('#swagger-ui .information-container');
  if (info && !info.hasAttribute('role')) {
    info.setAttribute('role', 'region');
    info.setAttribute('aria-label', 'About the API');
  }
  for (const title of document.querySelectorAll('#swagger-ui .info h1, #swagger-ui .info h2.title')) {
    if (title.getAttribute('aria-level') === '3') continue;
    title.setAttribute('role', 'heading');
    title.setAttribute('aria-level', '3');
  }
}).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true });
`;

/**
 * The renderer's colours where they fall short of WCAG AA contrast (4.5:1 for its small text), and its servers box
 * hidden: with no "try it out" there is nothing to choose.
 */
const DOCS_CSS = `.swagger-ui .scheme-container{display:none}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:rgb(0,84,166)}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:rgb(0,105,62)}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:rgb(150,70,0)}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:rgb(170,20,20)}
.swagger-ui .info .title small{background:rgb(75,75,75)}
.swagger-ui .info .title small.version-stamp{background:rgb(0,105,62)}
.swagger-ui .info .url,.swagger-ui .info a{color:rgb(0,70,150)}
.swagger-ui .btn{color:rgb(34,34,34)}
`;

const ASSET_HEADERS = { 'cache-control': 'public, max-age=3600', 'cross-origin-resource-policy': 'same-origin' };
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** `{site_url}/docs/assets/{file}`: the renderer's files from its npm package, its start script, the OpenAPI document. */
export const docsAssetPage: Page = {
  id: 'docs-asset',
  path: '/docs/assets/{file}',
  stores: [],
  assets: ['docs'],
  async render({ params, services }) {
    const { file } = params as { file: string };
    if (file === 'docs.js') return textResponse(200, INIT_SCRIPT, JS, ASSET_HEADERS);
    if (file === 'docs.css') return textResponse(200, DOCS_CSS, CSS, ASSET_HEADERS);
    if (file === 'openapi.json') {
      const { buildOpenApi } = await import('../openapi.ts');
      const doc = buildOpenApi(ROUTES, { serverUrl: services.site?.baseUrl ?? '/v1', version: API_VERSION });
      return textResponse(200, JSON.stringify(doc, null, 2), 'application/json; charset=utf-8', ASSET_HEADERS);
    }
    const asset = RENDERER_FILES.find((f) => f === file);
    if (!asset) return htmlPage(404, 'Not found', `<h1>Not found</h1><p>There is no file ${h(file)} here.</p>`);
    return textResponse(200, await docsFile(asset), asset.endsWith('.css') ? CSS : JS, ASSET_HEADERS);
  },
};
