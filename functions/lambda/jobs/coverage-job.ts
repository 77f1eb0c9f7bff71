import { jobLambda } from '../job-entry.ts';
import { type JobAdapters, lambdaJobs } from './job-wiring.ts';

/**
 * The coverage refresh: recompute the coverage matrix from the key histories and store it for /law/coverage (on AWS
 * a response never refreshes it behind itself: the function may be frozen once it has answered).
 */
export function coverageHandler(adapters: Pick<JobAdapters, 'env' | 'now'>) {
  const jobs = lambdaJobs(adapters);
  return jobLambda('coverage', async () => {
    const cache = await jobs.refreshCoverage();
    return { generatedAt: cache.generatedAt, collections: cache.records.length };
  });
}
