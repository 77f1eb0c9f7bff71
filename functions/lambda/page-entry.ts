import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { HTML_TYPE, htmlPage, notFoundPage, PAGE_HEADERS, pageHtml } from '#http/pages/html.ts';
import { type Page, type PageServices, type PageStore, storesOf } from '#http/pages/page.ts';
import { decodePathSegment } from '#http/path-segment.ts';
import { textResponse } from '#http/respond.ts';
import type { SearchIndex } from '#law/ports.ts';
import { escapeHtml } from '#law/snippet.ts';
import { CoverageService } from '#ops/coverage.ts';
import { dynamoStores } from './dynamo-stores.ts';
import { ENV, type LambdaEnv } from './env.ts';
import { countAnswer, powertools } from './powertools.ts';

/**
 * What a page's function reads, as its page declares (lib/public-site.ts binds the same): the versions table (null when
 * none is bound: the page answers 404), coverage from the versions and the ops table (refreshed only by its scheduled
 * job, as in a route's function), the search index through the adapter its entry brings, the site's addresses.
 */
export function pageServices(
  page: Pick<Page, 'stores'> = {},
  adapters: { search?: (env: LambdaEnv) => SearchIndex | null } = {},
  env: LambdaEnv = process.env,
): PageServices {
  const stores = dynamoStores(env, 'request-path');
  const uses = (store: PageStore) => storesOf(page).includes(store);
  const now = () => new Date();
  const versions = uses('versions') ? stores.versions : null;
  const ops = uses('ops') ? stores.ops : null;
  return {
    versions,
    now,
    coverage: versions && ops ? new CoverageService({ versions, ops, now, refreshBehind: () => undefined }) : null,
    search: uses('search') ? (adapters.search?.(env) ?? null) : null,
    site: { siteUrl: env[ENV.siteUrl] ?? '', baseUrl: env[ENV.baseUrl] ?? '' },
  };
}

/**
 * A REST API delivers path parameters as they were sent, percent-encoded (the local server decodes them); a page
 * reads them decoded. A malformed escape names no page: null, answered as not found.
 */
function decodedParams(event: APIGatewayProxyEvent): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
    if (value === undefined) continue;
    const decoded = decodePathSegment(value);
    if (decoded === null) return null;
    params[name] = decoded;
  }
  return params;
}

const redirect = (location: string): APIGatewayProxyResult =>
  textResponse(308, pageHtml('Moved', `<h1>Moved</h1><p><a href="${escapeHtml(location)}">${escapeHtml(location)}</a></p>`), HTML_TYPE, {
    ...PAGE_HEADERS,
    location,
  });

function queryOf(event: APIGatewayProxyEvent): URLSearchParams {
  const query = new URLSearchParams();
  const multi = event.multiValueQueryStringParameters;
  if (multi) for (const [name, values] of Object.entries(multi)) for (const v of values ?? []) query.append(name, v);
  else for (const [name, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) query.append(name, v);
  return query;
}

/**
 * A page of the public site as a Lambda function: the page's own render, as the local server calls it, wrapped in
 * the Powertools logger, metrics and tracer. A failure the page does not answer itself is logged and answered 500,
 * not left to API Gateway's bare 502.
 */
export function pageLambda(page: Page, services: PageServices = pageServices(page)) {
  const { logger, metrics, wrap } = powertools({ route: `page-${page.id}` });
  return wrap(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    let result: APIGatewayProxyResult;
    try {
      const params = decodedParams(event);
      const client = event.requestContext?.identity?.sourceIp;
      const stagePath = event.requestContext?.path;
      // The site's root without its slash (…/site): relative links would lead out of the stage; the same page with it.
      if (page.path === '/' && stagePath && !stagePath.endsWith('/')) result = redirect(`${stagePath}/`);
      else result = params ? await page.render({ params, query: queryOf(event), services, ...(client && { client }) }) : notFoundPage();
    } catch (err) {
      logger.error('page failed', { error: err as Error, page: page.id });
      result = htmlPage(500, 'Not shown', '<h1>This page could not be shown</h1><p>Try again shortly.</p>');
    }
    countAnswer(metrics, result.statusCode);
    return result;
  });
}
