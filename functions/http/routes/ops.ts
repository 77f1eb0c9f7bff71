/** The public operations endpoints: coverage, quality, liveness and corpus health. */
import { handleCorpusHealth, handleCoverage, handleLiveness, handleQuality } from '../handlers/ops.ts';
import { defineRoute } from '../route.ts';
import { CoverageInputSchema, EmptyInputSchema, QualityInputSchema } from '../schemas.ts';
import { publicAccess } from './access.ts';

export const lawCoverage = defineRoute({
  id: 'law-coverage',
  methods: ['GET', 'POST'],
  path: '/law/coverage',
  stores: ['versions', 'ops'],
  auth: publicAccess,
  units: 0,
  input: CoverageInputSchema,
  fieldCodes: { corpus: 'bad_corpus' },
  tag: 'operations',
  summary: 'What is carried: collections, dates covered, sections and versions',
  responses: { 200: { description: 'coverage matrix', schema: 'CoverageResponse' } },
  errors: ['bad_corpus', 'internal_error', 'statutes_unavailable'],
  handle: handleCoverage,
});

export const lawQuality = defineRoute({
  id: 'law-quality',
  methods: ['GET'],
  path: '/law/quality',
  stores: ['ops'],
  auth: publicAccess,
  units: 0,
  input: QualityInputSchema,
  tag: 'operations',
  summary: 'Findings of the latest audit of the stored data (non-passing checks only)',
  responses: { 200: { description: 'latest audit run and its findings', schema: 'QualityResponse' } },
  errors: ['statutes_unavailable'],
  handle: handleQuality,
});

export const health = defineRoute({
  id: 'health',
  methods: ['GET'],
  path: '/health',
  stores: [],
  auth: publicAccess,
  units: 0,
  input: EmptyInputSchema,
  tag: 'operations',
  summary: 'Process liveness; never touches the corpus',
  responses: { 200: { description: 'alive', schema: 'HealthRecord' } },
  errors: [],
  handle: handleLiveness,
});

export const healthCorpus = defineRoute({
  id: 'health-corpus',
  methods: ['GET'],
  path: '/health/corpus',
  stores: ['ops'],
  auth: publicAccess,
  units: 0,
  input: EmptyInputSchema,
  tag: 'operations',
  summary: 'Can law be served: the latest probe verdict (probes run at most every five minutes)',
  responses: {
    200: { description: 'healthy', schema: 'HealthRecord' },
    503: { description: 'unhealthy, or unknown when the verdict is older than fifteen minutes', schema: 'HealthRecord' },
  },
  errors: [],
  handle: handleCorpusHealth,
});
