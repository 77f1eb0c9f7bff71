import { openapiYaml } from '#http/routes/spec.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(openapiYaml);
