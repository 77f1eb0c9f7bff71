/** The machine-readable specification, generated from the route table. */
import { handleOpenApi } from '../handlers/spec.ts';
import { defineRoute } from '../route.ts';
import { EmptyInputSchema } from '../schemas.ts';
import { publicAccess } from './access.ts';

export const openapiYaml = defineRoute({
  id: 'openapi-yaml',
  methods: ['GET'],
  path: '/openapi.yaml',
  stores: [],
  auth: publicAccess,
  units: 0,
  input: EmptyInputSchema,
  tag: 'spec',
  summary: 'This document (YAML)',
  responses: {},
  errors: [],
  hidden: true,
  handle: (_input, ctx) => handleOpenApi('yaml', ctx),
});

export const openapiJson = defineRoute({
  id: 'openapi-json',
  methods: ['GET'],
  path: '/openapi.json',
  stores: [],
  auth: publicAccess,
  units: 0,
  input: EmptyInputSchema,
  tag: 'spec',
  summary: 'This document (JSON)',
  responses: {},
  errors: [],
  hidden: true,
  handle: (_input, ctx) => handleOpenApi('json', ctx),
});
