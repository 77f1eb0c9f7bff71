import { health } from '#http/routes/ops.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(health);
