import { mcpEndpoint } from '#http/handlers/mcp.ts';
import { mcp } from '#http/routes/mcp.ts';
import { caseLawStore } from '../adapters/aurora.ts';
import { courtListenerFallback } from '../adapters/courtlistener.ts';
import { openSearchIndex } from '../adapters/opensearch.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(mcp, {
  search: openSearchIndex,
  caselaw: caseLawStore,
  fallback: courtListenerFallback,
  mcp: mcpEndpoint,
});
