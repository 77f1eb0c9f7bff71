import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { runAudit } from '#ops/audit.ts';
import { jobLambda } from '../job-entry.ts';
import { JOB_METRICS } from '../metric-names.ts';
import { type JobOptions, jobStores } from './job-stores.ts';

/** The scheduled quality audit of the stored data: one run per jurisdiction and one over everything, each stored for /law/quality. */
export function auditHandler(options: Pick<JobOptions, 'search' | 'env' | 'now'>) {
  const stores = jobStores(options);
  return jobLambda('audit', async (_event: unknown, { metrics }) => {
    const runs = (await runAudit(stores, 'schedule')).map((r) => r.run);
    const all = runs.find((r) => r.jurisdiction === 'all');
    if (!all) throw new Error('the audit produced no run over everything');
    metrics.addMetric(JOB_METRICS.auditFailedChecks, MetricUnit.Count, all.failed);
    metrics.addMetric(JOB_METRICS.auditWarnedChecks, MetricUnit.Count, all.warned);
    return runs;
  });
}
