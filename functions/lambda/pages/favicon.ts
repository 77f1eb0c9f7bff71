import { faviconPage } from '#http/pages/favicon.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(faviconPage);
