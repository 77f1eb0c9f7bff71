import { CoverageService } from '#ops/coverage.ts';
import { jobLambda } from '../job-entry.ts';
import { type JobOptions, jobStores } from './job-stores.ts';

/**
 * The coverage refresh: recompute the coverage matrix from the key histories and store it for /law/coverage (on AWS
 * a response never refreshes it behind itself: the function may be frozen once it has answered).
 */
export function coverageHandler(options: Pick<JobOptions, 'env' | 'now'>) {
  const stores = jobStores(options);
  const coverage = new CoverageService({ ...stores, refreshBehind: () => undefined });
  return jobLambda('coverage', async () => {
    const cache = await coverage.refresh();
    return { generatedAt: cache.generatedAt, collections: cache.records.length };
  });
}
