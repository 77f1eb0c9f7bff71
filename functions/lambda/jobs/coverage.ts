import { coverageHandler } from './coverage-job.ts';

export const handler = coverageHandler({});
