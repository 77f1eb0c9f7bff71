import { caseLawJobStore } from '../adapters/aurora.ts';
import { openSearchIndex } from '../adapters/opensearch.ts';
import { s3SourceFiles } from '../adapters/s3-source-files.ts';
import { ingestHandler } from './ingest-job.ts';

export const handler = ingestHandler({ search: openSearchIndex, sources: s3SourceFiles, caselaw: caseLawJobStore });
