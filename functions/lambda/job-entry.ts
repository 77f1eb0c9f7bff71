import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { JOB_METRICS } from './metric-names.ts';
import { powertools } from './powertools.ts';

export interface JobContext {
  logger: Logger;
  metrics: Metrics;
}

/**
 * An event the job can never run as given (malformed, or naming sources that do not exist). Retrying it cannot help,
 * so the job counts it as failed, logs why and returns instead of throwing: a scheduled job is invoked asynchronously,
 * and Lambda retries an invocation that throws.
 */
export class JobRefusedError extends Error {
  override readonly name = 'JobRefusedError';
}

export interface JobRefusal {
  refused: string;
}

/**
 * A scheduled or deploy-time job as a Lambda function: Powertools logger, metrics (dimension `job`) and tracer, a
 * `JobSucceeded` or `JobFailed` count, the result logged. A failure is rethrown, so that Lambda counts it in Errors, retries it
 * (the scheduler invokes asynchronously) and the alarms see it; a refused event (JobRefusedError) is counted and
 * returned, never retried.
 */
export function jobLambda<E, R>(job: string, run: (event: E, ctx: JobContext) => Promise<R>) {
  const { logger, metrics, wrap } = powertools({ job }, { job });
  return wrap(async (event: E, _context: Context): Promise<R | JobRefusal> => {
    try {
      const result = await run(event, { logger, metrics });
      metrics.addMetric(JOB_METRICS.succeeded, MetricUnit.Count, 1);
      logger.info('job finished', { result: result as never });
      return result;
    } catch (err) {
      metrics.addMetric(JOB_METRICS.failed, MetricUnit.Count, 1);
      if (err instanceof JobRefusedError) {
        metrics.addMetric(JOB_METRICS.refused, MetricUnit.Count, 1);
        logger.error('job refused its event; it will not be retried', { reason: err.message });
        return { refused: err.message };
      }
      logger.error('job failed', err as Error);
      throw err;
    }
  });
}
