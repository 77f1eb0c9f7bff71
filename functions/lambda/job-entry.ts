import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE } from './route-entry.ts';

export interface JobContext {
  logger: Logger;
  metrics: Metrics;
}

/**
 * A scheduled or deploy-time job as a Lambda function: Powertools logger, metrics (dimension `job`) and tracer, a
 * `JobSucceeded` or `JobFailed` count, the result logged. A failure is rethrown, so that Lambda counts it in Errors, the
 * scheduler retries it and the alarms see it.
 */
export function jobLambda<E, R>(job: string, run: (event: E, ctx: JobContext) => Promise<R>) {
  const logger = new Logger({ serviceName: 'asof', persistentKeys: { job } });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'asof', defaultDimensions: { job } });
  const tracer = new Tracer({ serviceName: 'asof' });
  return middy(async (event: E, _context: Context): Promise<R> => {
    try {
      const result = await run(event, { logger, metrics });
      metrics.addMetric('JobSucceeded', MetricUnit.Count, 1);
      logger.info('job finished', { result: result as never });
      return result;
    } catch (err) {
      metrics.addMetric('JobFailed', MetricUnit.Count, 1);
      logger.error('job failed', err as Error);
      throw err;
    }
  })
    .use(captureLambdaHandler(tracer))
    .use(logMetrics(metrics))
    .use(injectLambdaContext(logger));
}
