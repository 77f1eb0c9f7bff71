import { caselawCase } from '#http/routes/caselaw.ts';
import { caseLawStore } from '../adapters/aurora.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(caselawCase, { caselaw: caseLawStore });
