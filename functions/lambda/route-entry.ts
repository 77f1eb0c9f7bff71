import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createRouteHandler } from '#http/handler.ts';
import type { Route } from '#http/route.ts';
import { countAnswer, powertools } from './powertools.ts';
import { type LambdaAdapters, lambdaServices } from './route-services.ts';

/**
 * A route as a Lambda function: the same middleware chain as the local server (createRouteHandler), wrapped in the
 * Powertools logger, metrics and tracer. The usage records the meter writes behind are flushed before the function
 * returns: an execution environment may be frozen, or never thawed, after it.
 */
export function routeLambda(route: Route, adapters: LambdaAdapters = {}) {
  const { logger, metrics, wrap } = powertools({ route: route.id });
  const services = lambdaServices(route, adapters, process.env, logger);
  const inner = createRouteHandler(route, services);
  return wrap(async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    try {
      const result = await inner(event, context);
      countAnswer(metrics, result.statusCode);
      return result;
    } finally {
      await services.usageLog?.flush();
    }
  });
}
