import { docsAssetPage } from '#http/pages/docs-asset.ts';
import { pageLambda } from '../page-entry.ts';

export const handler = pageLambda(docsAssetPage);
