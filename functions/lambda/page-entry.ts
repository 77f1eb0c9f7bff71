import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Page, PageServices } from '#http/pages/page.ts';
import { textResponse } from '#http/respond.ts';
import { dynamoStores } from './dynamo-stores.ts';
import type { LambdaEnv } from './env.ts';
import { countAnswer, powertools } from './powertools.ts';

/** The versions table from the function's environment (null when none is bound: the page answers 404) and the clock. */
export function pageServices(env: LambdaEnv = process.env): PageServices {
  return { versions: dynamoStores(env).versions, now: () => new Date() };
}

/**
 * A REST API delivers path parameters as they were sent, percent-encoded (the local server decodes them); a page
 * reads them decoded. A malformed escape is returned as it came, and so is not found.
 */
function decodedParams(event: APIGatewayProxyEvent): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
    if (value === undefined) continue;
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      params[name] = value;
    }
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
      result = await page.render({ params: decodedParams(event), query: queryOf(event), services });
    } catch (err) {
      logger.error('page failed', { error: err as Error, page: page.id });
      result = textResponse(500, 'The page could not be shown; try again shortly.', 'text/plain; charset=utf-8', {
        'cache-control': 'no-store',
      });
    }
    countAnswer(metrics, result.statusCode);
    return result;
  });
}
