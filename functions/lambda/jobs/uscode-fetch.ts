import { s3TitleZips } from '../adapters/s3-title-zips.ts';
import { uscodeFetchHandler } from './uscode-fetch-job.ts';

export const handler = uscodeFetchHandler({ zips: s3TitleZips });
