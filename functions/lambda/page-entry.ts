import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { htmlPage, notFoundPage } from '#http/pages/html.ts';
import type { Page, PageServices } from '#http/pages/page.ts';
import { decodePathSegment } from '#http/path-segment.ts';
import { dynamoStores } from './dynamo-stores.ts';
import type { LambdaEnv } from './env.ts';
import { countAnswer, powertools } from './powertools.ts';

/** The versions table from the function's environment (null when none is bound: the page answers 404) and the clock. */
export function pageServices(env: LambdaEnv = process.env): PageServices {
  return { versions: dynamoStores(env, 'request-path').versions, now: () => new Date() };
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
export function pageLambda(page: Page, services: PageServices = pageServices()) {
  const { logger, metrics, wrap } = powertools({ route: `page-${page.id}` });
  return wrap(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    let result: APIGatewayProxyResult;
    try {
      const params = decodedParams(event);
      result = params ? await page.render({ params, query: queryOf(event), services }) : notFoundPage();
    } catch (err) {
      logger.error('page failed', { error: err as Error, page: page.id });
      result = htmlPage(500, 'Not shown', '<h1>This page could not be shown</h1><p>Try again shortly.</p>');
    }
    countAnswer(metrics, result.statusCode);
    return result;
  });
}
