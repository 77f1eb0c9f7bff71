import { citePage } from '#http/pages/cite.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(citePage);
