import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { jobLambda } from '../job-entry.ts';
import { JOB_METRICS } from '../metric-names.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';

/** The scheduled quality audit of the stored data: one run per jurisdiction and one over everything, each stored for /law/quality. */
export function auditHandler(adapters: Pick<JobAdapters, 'search' | 'env' | 'now'>) {
  const jobs = lambdaJobs(adapters);
  return jobLambda('audit', async (_event: unknown, { metrics }) => {
    const runs = (await jobs.audit('schedule')).map((r) => r.run);
    const all = runs.find((r) => r.jurisdiction === 'all');
    if (!all) throw new Error('the audit produced no run over everything');
    metrics.addMetric(JOB_METRICS.auditFailedChecks, MetricUnit.Count, all.failed);
    metrics.addMetric(JOB_METRICS.auditWarnedChecks, MetricUnit.Count, all.warned);
    return runs;
  });
}
