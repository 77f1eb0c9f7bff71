import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createRouteHandler } from '#http/handler.ts';
import type { Route } from '#http/route.ts';
import { METRICS_NAMESPACE } from './metrics.ts';
import { lambdaServices, type LambdaAdapters } from './services.ts';

export { METRICS_NAMESPACE };

/**
 * A route as a Lambda function: the same middleware chain as the local server (createRouteHandler), wrapped in the
 * Powertools logger, metrics and tracer. The usage records the meter writes behind are flushed before the function
 * returns: an execution environment may be frozen, or never thawed, after it.
 */
export function routeLambda(route: Route, adapters: LambdaAdapters = {}) {
  const logger = new Logger({ serviceName: 'asof' });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'asof', defaultDimensions: { route: route.id } });
  const tracer = new Tracer({ serviceName: 'asof' });
  const services = lambdaServices(route, adapters, process.env, logger);
  const inner = createRouteHandler(route, services);
  return middy(async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    try {
      const result = await inner(event, context);
      metrics.addMetric(result.statusCode >= 500 ? 'ServerError' : result.statusCode >= 400 ? 'ClientError' : 'Success', MetricUnit.Count, 1);
      return result;
    } finally {
      await services.usageLog.flush();
    }
  })
    .use(captureLambdaHandler(tracer))
    .use(logMetrics(metrics))
    .use(injectLambdaContext(logger));
}
