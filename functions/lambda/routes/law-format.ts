import { lawFormat } from '#http/routes/formats.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(lawFormat);
