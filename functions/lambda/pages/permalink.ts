import { permalinkPage } from '#http/pages/permalink.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(permalinkPage);
