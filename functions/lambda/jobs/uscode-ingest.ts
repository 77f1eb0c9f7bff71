import { openSearchIndex } from '../adapters/opensearch.ts';
import { s3TitleZips } from '../adapters/s3-title-zips.ts';
import { uscodeIngestHandler } from './uscode-ingest-job.ts';

export const handler = uscodeIngestHandler({ search: openSearchIndex, zips: s3TitleZips });
