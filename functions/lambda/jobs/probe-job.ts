import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { PROBE_INTERVAL_SECONDS } from '#ops/health.ts';
import { jobLambda } from '../job-entry.ts';
import { JOB_METRICS } from '../metric-names.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';

/**
 * The corpus health probe: can law be served (both stores answer, some corpus is carried)? The verdict is stored
 * for /health/corpus. Not forced, so it probes at most every PROBE_INTERVAL_SECONDS whoever invokes it; within that
 * it reports the standing verdict. CorpusHealthy (1/0) is emitted on every run, so that a period without a datapoint
 * means that nothing probed.
 */
export function probeHandler(adapters: Pick<JobAdapters, 'search' | 'env' | 'now'>) {
  const jobs = lambdaJobs(adapters);
  const now = adapters.now ?? (() => new Date());
  return jobLambda('probe', async (_event: unknown, { metrics }) => {
    const startedAt = now().getTime();
    const verdict = await jobs.probe();
    metrics.addMetric(JOB_METRICS.corpusHealthy, MetricUnit.Count, verdict.reachable ? 1 : 0);
    const probed = Date.parse(verdict.checkedAt) >= startedAt;
    return { ...verdict, probed, ...(!probed && { skippedBecause: `a verdict younger than ${PROBE_INTERVAL_SECONDS} s stands` }) };
  });
}
