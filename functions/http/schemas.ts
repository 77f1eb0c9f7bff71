import * as z from 'zod';
import 'zod-openapi';
import { CADENCE_CLASSES, CORPORA, SECTION_STATUSES, TEMPORAL_BASES } from '#law/model.ts';
import { isCalendarDate } from '#shared/dates.ts';

/** One zod schema per resource: the handlers' output is checked against them in tests, and OpenAPI is generated from them. */

const isoTimestamp = z.string().meta({ description: 'ISO 8601 timestamp', example: '2024-03-18T00:00:00-04:00' });
const calendarDate = z.string().meta({ description: 'calendar date YYYY-MM-DD', example: '2024-03-18' });

export const CitationSchema = z
  .object({
    jurisdiction: z.string().meta({ description: 'short lowercase jurisdiction code', example: 'us' }),
    corpus: z.enum(CORPORA),
    key: z.string().meta({ description: 'citation key within the corpus', example: '28-1291' }),
    display: z.string().meta({ example: '28 U.S.C. § 1291' }),
    parts: z.record(z.string(), z.string()).meta({ description: 'structural parts of the citation; may be empty' }),
  })
  .meta({ id: 'Citation' });

export const ProvenanceSchema = z
  .object({
    sourceUrl: z.url(),
    retrievedAt: isoTimestamp,
    contentHash: z.string().meta({ description: '`sha256:` + hex SHA-256 of bodyText (NFC, \\n line ends)' }),
    sourceSystem: z.string(),
    versionLabel: z.string(),
  })
  .meta({ id: 'Provenance' });

const status = z.enum(SECTION_STATUSES);
const temporalBasis = z.enum(TEMPORAL_BASES);

export const SectionVersionSchema = z
  .object({
    citation: CitationSchema,
    catchline: z.string(),
    bodyText: z.string(),
    historyNote: z.string(),
    note: z.string().nullable(),
    status,
    validFrom: isoTimestamp,
    validTo: isoTimestamp.meta({ description: 'end of validity (exclusive); 9999-12-31T23:59:59Z when open' }),
    ingestedAt: isoTimestamp,
    temporalBasis,
    permalink: z.url(),
    provenance: ProvenanceSchema,
    disclaimer: z.string(),
    topics: z.array(z.string()).optional(),
  })
  .meta({ id: 'SectionVersion' });

export const TextResultSchema = z
  .object({
    citation: CitationSchema,
    catchline: z.string(),
    bodyText: z.string(),
    historyNote: z.string(),
    note: z.string().nullable(),
    status,
    temporalBasis,
    versionLabel: z.string(),
    permalink: z.url(),
    disclaimer: z.string(),
  })
  .meta({ id: 'TextResult' });

export const SearchHitSchema = z
  .object({
    citation: CitationSchema,
    catchline: z.string(),
    snippet: z.string().meta({ description: 'HTML-escaped excerpt; matched terms wrapped in <b>…</b>, no other markup' }),
    status,
    temporalBasis,
    versionLabel: z.string(),
    provenance: ProvenanceSchema,
  })
  .meta({ id: 'SearchHit' });

export const CoverageRecordSchema = z
  .object({
    jurisdiction: z.string(),
    corpus: z.enum(CORPORA),
    name: z.string(),
    cadenceClass: z.enum(CADENCE_CLASSES),
    temporalBasis,
    coverageFrom: calendarDate,
    latestVersion: z.string(),
    sections: z.int().min(0),
    versions: z.int().min(0),
    lastRetrievedAt: isoTimestamp,
  })
  .meta({ id: 'CoverageRecord' });

export const CoverageResponseSchema = z
  .object({
    coverage: z.array(CoverageRecordSchema),
    note: z.string(),
    generatedAt: isoTimestamp,
    stale: z
      .object({ ageSeconds: z.int().min(0), refreshFailures: z.int().min(0), lastError: z.string().nullable() })
      .optional()
      .meta({ description: 'present only when the cached numbers can no longer be trusted as current' }),
  })
  .meta({ id: 'CoverageResponse' });

const checkStatus = z.enum(['pass', 'warn', 'fail']);
export const AuditRunSchema = z
  .object({
    ranAt: isoTimestamp,
    jurisdiction: z.string().meta({ description: 'a jurisdiction code, or `all`' }),
    trigger: z.enum(['schedule', 'manual', 'ingest', 'startup']),
    totalChecks: z.int().min(0),
    passed: z.int().min(0),
    warned: z.int().min(0),
    failed: z.int().min(0),
  })
  .meta({ id: 'AuditRun' });

export const AuditFindingSchema = z
  .object({
    scope: z.string().meta({ description: '`jurisdiction/corpus/collection`, or `search`', example: 'dc/statutes/dc-code' }),
    check_name: z.string(),
    status: checkStatus,
    detail: z.string(),
    rows: z.int().min(0),
    avg_chars: z.int().nullable(),
    max_chars: z.int().nullable(),
    unexplained_empty: z.int().min(0),
    misattributed: z.int().min(0),
  })
  .meta({ id: 'AuditFinding' });

export const QualityResponseSchema = z
  .object({
    run: AuditRunSchema.nullable(),
    findings: z.array(AuditFindingSchema),
    note: z.string(),
    history: z.array(AuditRunSchema).optional().meta({ description: 'earlier runs, newest first (with `history=true`)' }),
  })
  .meta({ id: 'QualityResponse' });

export const HealthRecordSchema = z
  .object({
    ok: z.boolean(),
    status: z.enum(['healthy', 'unhealthy', 'unknown']),
    reason: z.string(),
    checkedSecondsAgo: z.int().meta({ description: 'age of the verdict in seconds; -1 when no probe has run' }),
    service: z.string(),
    timestamp: isoTimestamp,
  })
  .meta({ id: 'HealthRecord' });

export const SuggestionSchema = z
  .object({
    citation: z.string().meta({ description: 'a key the lookup endpoint accepts' }),
    display: z.string(),
    validFrom: isoTimestamp,
    validTo: isoTimestamp,
    versionLabel: z.string(),
    reason: z.enum(['earliest-version', 'latest-version', 'next-version', 'similar-key']),
  })
  .meta({ id: 'Suggestion' });

export const ErrorEnvelopeSchema = z
  .object({
    error: z
      .object({
        code: z.string().meta({ description: 'stable machine-readable code; switch on this, never on message' }),
        message: z.string(),
        requestId: z.string(),
        didYouMean: z.array(SuggestionSchema).optional().meta({ description: 'with no_edition_on_file' }),
        requiredScope: z.string().optional().meta({ description: 'with missing_scope' }),
      })
      .loose(),
  })
  .meta({ id: 'Error' });

export const resultOf = <T extends z.ZodType>(schema: T, id: string) => z.object({ result: schema }).meta({ id });

export const LookupResponseSchema = resultOf(SectionVersionSchema, 'LookupResponse');
export const TextResponseSchema = resultOf(TextResultSchema, 'TextResponse');
export const SearchResponseSchema = z.object({ results: z.array(SearchHitSchema), disclaimer: z.string() }).meta({ id: 'SearchResponse' });

// ---- inputs ------------------------------------------------------------------------------------------------------
// Parameters arrive as query strings (GET) or JSON (POST); the schemas accept both and keep their messages short:
// the error code for each field comes from the route's `fieldCodes`.

const requiredText = (description: string, example: string) =>
  z.string().trim().min(1).meta({ description, example });

export const asOfParam = z
  .string()
  .refine(isCalendarDate, { message: 'must be a calendar date written YYYY-MM-DD' })
  .optional()
  .meta({ description: 'YYYY-MM-DD; the version in force on that date (default: today, UTC)', example: '2019-03-01' });

/** A positive integer, given as a JSON number (POST) or as digits (query string). */
export const positiveIntParam = z.union([z.int(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.int().min(1));

export const corpusParam = z.enum(CORPORA).optional().meta({ description: 'one of the six corpus values' });
export const jurisdictionParam = requiredText('short jurisdiction code', 'us').transform((s) => s.toLowerCase());

export const LookupInputSchema = z.object({
  jurisdiction: jurisdictionParam,
  citation: requiredText('citation key (`28-1291`) or a common printed form (`28 U.S.C. § 1291`)', '28 U.S.C. § 1291'),
  asOf: asOfParam,
  corpus: corpusParam,
});

export const SearchInputSchema = z.object({
  q: requiredText('keywords; every term must match', 'strangulation'),
  jurisdiction: z
    .string()
    .trim()
    .optional()
    .meta({ description: 'a single jurisdiction, a comma list, or `all` (default)', example: 'dc' }),
  corpus: corpusParam,
  asOf: asOfParam.meta({ description: 'YYYY-MM-DD; only versions in force on that date are searched (default: today, UTC)' }),
  limit: positiveIntParam.optional().meta({ description: 'results wanted: default 10, at most 50 (larger values are clamped)' }),
});

export const CoverageInputSchema = z.object({
  jurisdiction: z.string().trim().toLowerCase().optional(),
  corpus: corpusParam,
});

export const QualityInputSchema = z.object({
  jurisdiction: z.string().trim().toLowerCase().optional(),
  history: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v))])
    .optional()
    .meta({ description: 'boolean-like; adds earlier runs' }),
});

export const EmptyInputSchema = z.object({});
