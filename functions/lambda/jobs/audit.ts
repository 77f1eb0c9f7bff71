import { openSearchIndex } from '../adapters/opensearch.ts';
import { auditHandler } from './audit-job.ts';

export const handler = auditHandler({ search: openSearchIndex });
