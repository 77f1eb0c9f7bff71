import { openSearchIndex } from '../adapters/opensearch.ts';
import { s3GitPacks } from '../adapters/s3-git-packs.ts';
import { dcCodeIngestHandler } from './dc-code-ingest-job.ts';

export const handler = dcCodeIngestHandler({ search: openSearchIndex, packs: s3GitPacks });
