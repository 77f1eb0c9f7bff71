import { docsPage } from '#http/pages/docs.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(docsPage);
