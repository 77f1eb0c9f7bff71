import { citationsOf, handleCase, handleCitationLookup, handleCitedBy } from './handlers/caselaw.ts';
import { handleLookup, handleSearch, handleText } from './handlers/law.ts';
import { handleCorpusHealth, handleCoverage, handleLiveness, handleQuality } from './handlers/ops.ts';
import { handleFormat } from './handlers/formats.ts';
import { handleOpenApi } from './handlers/spec.ts';
import { defineRoute, type Route } from './route.ts';
import {
  CoverageInputSchema,
  CoverageResponseSchema,
  EmptyInputSchema,
  HealthRecordSchema,
  LookupInputSchema,
  LookupResponseSchema,
  QualityInputSchema,
  QualityResponseSchema,
  SearchInputSchema,
  SearchResponseSchema,
  TextResponseSchema,
} from './schemas.ts';
import { FormatInputSchema, FormatResponseSchema } from './schemas-formats.ts';
import { CaseInputSchema, CaseResponseSchema, CitationLookupInputSchema, CitationLookupResponseSchema, CitedByInputSchema, CitedByResponseSchema } from './schemas-caselaw.ts';

const lookupScope = { kind: 'bearer', scope: 'lookup' } as const;
const publicAccess = { kind: 'public' } as const;
const lookupFieldCodes = { asOf: 'bad_as_of', corpus: 'bad_corpus' } as const;

/** The API. Everything else (Lambda functions, API Gateway, the local server, OpenAPI) is built from this table. */
export const ROUTES: readonly Route[] = [
  defineRoute({
    id: 'law-lookup',
    methods: ['GET', 'POST'],
    path: '/law/lookup',
    auth: lookupScope,
    units: 1,
    input: LookupInputSchema,
    fieldCodes: lookupFieldCodes,
    tag: 'law',
    summary: 'The version of a section in force on a date',
    description:
      'Never a nearest guess: when nothing under that key was in force on the date, the answer is 404 no_edition_on_file with didYouMean.',
    responses: { 200: { description: 'the section version in force', schema: LookupResponseSchema } },
    errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
    handle: handleLookup,
  }),
  defineRoute({
    id: 'law-text',
    methods: ['GET', 'POST'],
    path: '/law/text',
    auth: lookupScope,
    units: 1,
    input: LookupInputSchema,
    fieldCodes: lookupFieldCodes,
    tag: 'law',
    summary: 'The quotable parts of the section version in force on a date',
    responses: { 200: { description: 'text result', schema: TextResponseSchema } },
    errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
    handle: handleText,
  }),
  defineRoute({
    id: 'law-search',
    methods: ['GET', 'POST'],
    path: '/law/search',
    auth: lookupScope,
    units: 1,
    input: SearchInputSchema,
    fieldCodes: { asOf: 'bad_as_of', corpus: 'bad_corpus', limit: 'bad_limit', q: 'missing_fields' },
    tag: 'law',
    summary: 'Ranked lexical search over the law in force on a date',
    description: 'Every term must match (AND). Natural-language questions must be turned into keywords.',
    responses: { 200: { description: 'ranked hits', schema: SearchResponseSchema } },
    errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'bad_limit', 'not_carried', 'statutes_unavailable'],
    handle: handleSearch,
  }),
  defineRoute({
    id: 'law-format',
    methods: ['GET', 'POST'],
    path: '/law/format',
    auth: lookupScope,
    units: 1,
    input: FormatInputSchema,
    fieldCodes: { level: 'bad_level' },
    tag: 'formats',
    summary: 'Court filing formats, each value tied to the rule text it was read from',
    description:
      'Records for a jurisdiction, highest court first; filter by `level` or by `court` (CourtListener court id). A record is a reading of the rules, ' +
      'not the rules: `stale` says when a cited rule in force today no longer matches the version the record was read from.',
    responses: { 200: { description: 'filing-format records', schema: FormatResponseSchema } },
    errors: ['missing_fields', 'bad_level', 'not_carried', 'statutes_unavailable'],
    handle: handleFormat,
  }),
  defineRoute({
    id: 'caselaw-citations',
    methods: ['POST'],
    path: '/law/citations/lookup',
    auth: lookupScope,
    units: (input) => citationsOf(input).length,
    input: CitationLookupInputSchema,
    fieldCodes: { text: 'too_large', fallback: 'bad_fallback' },
    tag: 'caselaw',
    summary: 'Resolve case citations to cases',
    description:
      'Exactly one of `text` (citations are parsed from it) or `citations`. One unit per citation, reserved after parsing. ' +
      'Status per citation as CourtListener’s citation lookup: 200 found, 300 ambiguous (up to eight candidates), 404 not found, 400 unknown reporter. ' +
      'Resolution only says which case a citation names, never whether it is still good law. With `fallback: "courtlistener"`, citations the replica ' +
      'lacks are looked up with CourtListener (per-request cap, daily budget of the shared token; never for test keys) and written back.',
    responses: { 200: { description: 'one result per citation, in the order found', schema: CitationLookupResponseSchema } },
    responseHeaders: { 'x-asof-fallback-remaining': "with a fallback: the provider's requests left today on the shared token" },
    errors: ['missing_fields', 'bad_json', 'bad_fallback', 'too_many', 'too_large', 'caselaw_unavailable'],
    handle: handleCitationLookup,
  }),
  defineRoute({
    id: 'caselaw-case',
    methods: ['GET'],
    path: '/law/cases/{clusterId}',
    auth: lookupScope,
    units: 1,
    input: CaseInputSchema,
    fieldCodes: { clusterId: 'bad_id' },
    tag: 'caselaw',
    summary: 'One case (a CourtListener cluster) with its parallel citations and how many cases cite it',
    responses: { 200: { description: 'the case record', schema: CaseResponseSchema } },
    errors: ['bad_id', 'not_found', 'caselaw_unavailable'],
    handle: handleCase,
  }),
  defineRoute({
    id: 'caselaw-cited-by',
    methods: ['GET'],
    path: '/law/cases/{clusterId}/cited-by',
    auth: lookupScope,
    units: 1,
    input: CitedByInputSchema,
    fieldCodes: { clusterId: 'bad_id', limit: 'bad_limit' },
    tag: 'caselaw',
    summary: 'The cases citing a case, most-cited first, each with its depth',
    responses: { 200: { description: 'citing cases', schema: CitedByResponseSchema } },
    errors: ['bad_id', 'bad_limit', 'missing_fields', 'caselaw_unavailable'],
    handle: handleCitedBy,
  }),
  defineRoute({
    id: 'law-coverage',
    methods: ['GET', 'POST'],
    path: '/law/coverage',
    auth: publicAccess,
    units: 0,
    input: CoverageInputSchema,
    fieldCodes: { corpus: 'bad_corpus' },
    tag: 'operations',
    summary: 'What is carried: collections, dates covered, sections and versions',
    responses: { 200: { description: 'coverage matrix', schema: CoverageResponseSchema } },
    errors: ['bad_corpus', 'internal_error', 'statutes_unavailable'],
    handle: handleCoverage,
  }),
  defineRoute({
    id: 'law-quality',
    methods: ['GET'],
    path: '/law/quality',
    auth: publicAccess,
    units: 0,
    input: QualityInputSchema,
    tag: 'operations',
    summary: 'Findings of the latest audit of the stored data (non-passing checks only)',
    responses: { 200: { description: 'latest audit run and its findings', schema: QualityResponseSchema } },
    errors: ['statutes_unavailable'],
    handle: handleQuality,
  }),
  defineRoute({
    id: 'health',
    methods: ['GET'],
    path: '/health',
    auth: publicAccess,
    units: 0,
    input: EmptyInputSchema,
    tag: 'operations',
    summary: 'Process liveness; never touches the corpus',
    responses: { 200: { description: 'alive', schema: HealthRecordSchema } },
    errors: [],
    handle: handleLiveness,
  }),
  defineRoute({
    id: 'health-corpus',
    methods: ['GET'],
    path: '/health/corpus',
    auth: publicAccess,
    units: 0,
    input: EmptyInputSchema,
    tag: 'operations',
    summary: 'Can law be served: the latest probe verdict (probes run at most every five minutes)',
    responses: {
      200: { description: 'healthy', schema: HealthRecordSchema },
      503: { description: 'unhealthy, or unknown when the verdict is older than fifteen minutes', schema: HealthRecordSchema },
    },
    errors: [],
    handle: handleCorpusHealth,
  }),
  defineRoute({
    id: 'openapi-yaml',
    methods: ['GET'],
    path: '/openapi.yaml',
    auth: publicAccess,
    units: 0,
    input: EmptyInputSchema,
    tag: 'spec',
    summary: 'This document (YAML)',
    responses: {},
    errors: [],
    hidden: true,
    handle: (_input, ctx) => handleOpenApi('yaml', ctx),
  }),
  defineRoute({
    id: 'openapi-json',
    methods: ['GET'],
    path: '/openapi.json',
    auth: publicAccess,
    units: 0,
    input: EmptyInputSchema,
    tag: 'spec',
    summary: 'This document (JSON)',
    responses: {},
    errors: [],
    hidden: true,
    handle: (_input, ctx) => handleOpenApi('json', ctx),
  }),
];

export const routeById = (id: string): Route => {
  const route = ROUTES.find((r) => r.id === id);
  if (!route) throw new Error(`no route '${id}'`);
  return route;
};
