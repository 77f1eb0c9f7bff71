import { caselawCitations } from '#http/routes/caselaw.ts';
import { caseLawStore } from '../adapters/aurora.ts';
import { courtListenerFallback } from '../adapters/courtlistener.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(caselawCitations, { caselaw: caseLawStore, fallback: courtListenerFallback });
