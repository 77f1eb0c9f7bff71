import { openSearchIndex } from '../adapters/opensearch.ts';
import { probeHandler } from './probe-job.ts';

export const handler = probeHandler({ search: openSearchIndex });
