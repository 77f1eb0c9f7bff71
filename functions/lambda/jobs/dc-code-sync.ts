import { s3GitPacks } from '../adapters/s3-git-packs.ts';
import { dcCodeSyncHandler } from './dc-code-sync-job.ts';

export const handler = dcCodeSyncHandler({ packs: s3GitPacks });
