import { s3StateFiles } from '../adapters/s3-state-files.ts';
import { stateCodeFetchHandler } from './state-code-fetch-job.ts';

export const handler = stateCodeFetchHandler({ files: s3StateFiles });
