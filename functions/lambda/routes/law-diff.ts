import { lawDiff } from '#http/routes/law.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(lawDiff);
