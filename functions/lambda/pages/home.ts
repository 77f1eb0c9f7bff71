import { homePage } from '#http/pages/home.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(homePage);
