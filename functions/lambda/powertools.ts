import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ANSWER_METRIC, METRICS_NAMESPACE } from './metric-names.ts';

/**
 * The function's tracer, one per function (module scope): the handler's segment (`wrap`), and every store client the
 * function makes is captured by it (the AWS SDK clients with captureClient, pg in the case-law adapter; OpenSearch
 * goes over https, which the tracer captures by default), so that a trace follows a request into the stores.
 */
export const tracer = new Tracer({ serviceName: 'asof' });

/** An AWS SDK v3 client whose calls are subsegments of the request's trace (unchanged when tracing is off). */
export const captureClient = <T>(client: T): T => tracer.captureAWSv3Client(client);

/**
 * The Powertools every function runs with: a logger, metrics in METRICS_NAMESPACE under `dimensions` (a route's or a
 * job's), and the tracer; `wrap` puts a handler behind all three, as middy middlewares (tracer outermost, then the
 * metrics flush, then the logger's Lambda context).
 */
export function powertools(dimensions: Record<string, string>, persistentLogKeys: Record<string, string> = {}) {
  const logger = new Logger({ serviceName: 'asof', persistentKeys: persistentLogKeys });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'asof', defaultDimensions: dimensions });
  const wrap = <E, R>(handler: (event: E, context: Context) => Promise<R>) =>
    middy(handler).use(captureLambdaHandler(tracer)).use(logMetrics(metrics)).use(injectLambdaContext(logger));
  return { logger, metrics, wrap };
}

/** Counts one HTTP answer of a route or page function by its status class (the route alarms and graphs read these). */
export function countAnswer(metrics: Metrics, statusCode: number): void {
  metrics.addMetric(
    statusCode >= 500 ? ANSWER_METRIC.serverError : statusCode >= 400 ? ANSWER_METRIC.clientError : ANSWER_METRIC.success,
    MetricUnit.Count,
    1,
  );
}
