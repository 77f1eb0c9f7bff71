import { lawSearch } from '#http/routes/law.ts';
import { openSearchIndex } from '../adapters/opensearch.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(lawSearch, { search: openSearchIndex });
