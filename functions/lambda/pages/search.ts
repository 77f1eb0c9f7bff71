import { searchPage } from '#http/pages/search.ts';
import { openSearchIndex } from '../adapters/opensearch.ts';
import { pageLambda, pageServices } from '../page-entry.ts';

export const handler = pageLambda(searchPage, pageServices(searchPage, { search: openSearchIndex }));
