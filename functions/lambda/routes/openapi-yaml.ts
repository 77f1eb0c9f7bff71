import { openapiYaml } from '#http/routes.ts';
import { routeLambda } from '../route-entry.ts';

export const handler = routeLambda(openapiYaml);
