import { openSearchIndex } from '../adapters/opensearch.ts';
import { s3StateFiles } from '../adapters/s3-state-files.ts';
import { stateCodeIngestHandler } from './state-code-ingest-job.ts';

export const handler = stateCodeIngestHandler({ search: openSearchIndex, files: s3StateFiles });
