import { handleOpenApi } from './handlers/spec.ts';
import { defineRoute, type Route } from './route.ts';
import { publicAccess } from './routes/access.ts';
import { caselawCase, caselawCitations, caselawCitedBy } from './routes/caselaw.ts';
import { lawFormat } from './routes/formats.ts';
import { lawDiff, lawLookup, lawSearch, lawText, lawVersions } from './routes/law.ts';
import { mcp } from './routes/mcp.ts';
import { health, healthCorpus, lawCoverage, lawQuality } from './routes/ops.ts';
import { EmptyInputSchema } from './schemas.ts';

/** The machine-readable specification of the whole table below, this route included. */
const openapiRoute = (format: 'yaml' | 'json') =>
  defineRoute({
    id: `openapi-${format}`,
    methods: ['GET'],
    path: `/openapi.${format}`,
    stores: [],
    auth: publicAccess,
    units: 0,
    input: EmptyInputSchema,
    tag: 'spec',
    summary: `This document (${format.toUpperCase()})`,
    responses: {},
    errors: [],
    hidden: true,
    handle: (_input, ctx) => handleOpenApi(format, ROUTES, ctx),
  });
export const openapiYaml = openapiRoute('yaml');
export const openapiJson = openapiRoute('json');

/**
 * The API. Everything else (Lambda functions, API Gateway, the local server, OpenAPI) is built from this table. The
 * routes are defined by capability in routes/, so that a Lambda function bundles its own route and nothing else.
 */
export const ROUTES: readonly Route[] = [
  lawLookup,
  lawText,
  lawVersions,
  lawDiff,
  lawSearch,
  lawFormat,
  caselawCitations,
  caselawCase,
  caselawCitedBy,
  mcp,
  lawCoverage,
  lawQuality,
  health,
  healthCorpus,
  openapiYaml,
  openapiJson,
] as Route[];
