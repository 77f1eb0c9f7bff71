import * as z from 'zod';
import 'zod-openapi';
import { CADENCE_CLASSES, CORPORA, SECTION_STATUSES, TEMPORAL_BASES } from '#law/model.ts';
import { CaseResponseSchema, CitationLookupResponseSchema, CitedByResponseSchema } from './schemas-responses-caselaw.ts';
import { FormatResponseSchema } from './schemas-responses-formats.ts';

/**
 * One zod schema per resource the API answers with, and the error envelope: the OpenAPI document is generated from
 * them (real answers are checked against it in tests). Loaded only where the document is built (openapi.ts): a route
 * names its responses by id (RESPONSE_SCHEMAS), so that the functions serving the API never build these at load.
 */

const isoTimestamp = z.string().meta({ description: 'ISO 8601 timestamp', example: '2024-03-18T00:00:00-04:00' });
const calendarDate = z.string().meta({ description: 'calendar date YYYY-MM-DD', example: '2024-03-18' });

const CitationSchema = z
  .object({
    jurisdiction: z.string().meta({ description: 'short lowercase jurisdiction code', example: 'us' }),
    corpus: z.enum(CORPORA),
    key: z.string().meta({ description: 'citation key within the corpus', example: '28-1291' }),
    display: z.string().meta({ example: '28 U.S.C. § 1291' }),
    parts: z.record(z.string(), z.string()).meta({ description: 'structural parts of the citation; may be empty' }),
  })
  .meta({ id: 'Citation' });

const ProvenanceSchema = z
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

const PinpointSchema = z
  .object({
    requested: z.string().meta({ description: 'what the citation printed after the number', example: '(a)(7)' }),
    applied: z.boolean().meta({ description: 'whether `text` holds that subdivision of this version' }),
    display: z.string().nullable().meta({ description: 'the subdivision cited, when applied', example: 'Fed. R. App. P. 32(a)(7)' }),
    text: z
      .string()
      .nullable()
      .meta({ description: "the subdivision's lines of bodyText (its label line and all under it), when applied" }),
    reason: z.string().nullable().meta({ description: 'why it was not applied (the whole section is answered), when not' }),
  })
  .meta({
    id: 'Pinpoint',
    description:
      'Present when the citation named a subdivision (`Fed. R. App. P. 32(a)(7)`): the answer is the whole section, and this says what was done with the pinpoint (`note` says it too).',
  });

const SectionVersionSchema = z
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
    pinpoint: PinpointSchema.optional(),
  })
  .meta({ id: 'SectionVersion' });

const TextResultSchema = z
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
    pinpoint: PinpointSchema.optional(),
  })
  .meta({ id: 'TextResult' });

const VersionSummarySchema = z
  .object({
    validFrom: isoTimestamp,
    validTo: isoTimestamp.meta({ description: 'end of validity (exclusive); 9999-12-31T23:59:59Z when open' }),
    status,
    versionLabel: z.string(),
    temporalBasis,
    contentHash: z.string().meta({ description: '`sha256:` + hex SHA-256 of bodyText (NFC, \\n line ends)' }),
    catchline: z.string(),
    permalink: z
      .url()
      .meta({ description: 'the page of this version: `{site_url}/law/<jurisdiction>/<corpus>/<key>?asOf=<its first day>`' }),
  })
  .meta({ id: 'VersionSummary' });

const TimelineVersionSchema = VersionSummarySchema.extend({ kind: z.literal('version') }).meta({ id: 'TimelineVersion' });
const TimelineGapSchema = z
  .object({
    kind: z.literal('gap'),
    validFrom: isoTimestamp.meta({ description: 'the end of the version before' }),
    validTo: isoTimestamp.meta({ description: 'the start of the version after' }),
    note: z.string(),
  })
  .meta({ id: 'TimelineGap', description: 'a time between two versions in which no version of the section is on file' });

const TimelineSchema = z
  .object({
    citation: CitationSchema,
    versions: z
      .array(z.discriminatedUnion('kind', [TimelineVersionSchema, TimelineGapSchema]))
      .meta({ description: 'oldest first; a gap between two versions is an entry of its own' }),
    endedAt: isoTimestamp.nullable().meta({
      description: 'the end of the last version when no version on file is valid after it (a deleted section); null while one is open',
    }),
    note: z.string().nullable().meta({ description: 'says since when the section is no longer in force, when it is not' }),
    disclaimer: z.string(),
  })
  .meta({ id: 'Timeline' });

const DiffSideSchema = z
  .object({ date: calendarDate.meta({ description: 'the date asked' }), version: VersionSummarySchema })
  .meta({ id: 'DiffSide' });

const DiffSchema = z
  .object({
    citation: CitationSchema,
    from: DiffSideSchema,
    to: DiffSideSchema,
    identical: z.boolean().meta({ description: 'the same version is in force on both dates' }),
    wordLevel: z.boolean().meta({
      description:
        'false when a passage was too long or too different to diff word by word in time: it is given as its lines removed and added',
    }),
    words: z
      .object({ kept: z.int().min(0), removed: z.int().min(0), added: z.int().min(0) })
      .meta({ description: 'words (runs of letters and digits) in the kept, removed and added text' }),
    operations: z
      .array(z.object({ op: z.enum(['keep', 'remove', 'add']), text: z.string() }).meta({ id: 'DiffOperation' }))
      .meta({ description: 'the edit script, in order: keep + remove texts make the old bodyText, keep + add texts the new one' }),
    unified: z.string().meta({ description: 'unified diff of the lines (three lines of context); empty when the texts are the same' }),
    disclaimer: z.string(),
  })
  .meta({ id: 'Diff' });

const SearchHitSchema = z
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

const CoverageTitleSchema = z
  .object({
    title: z.string().meta({ description: 'the title as keys write it: `28`, or `5a` for Title 5 Appendix', example: '28' }),
    name: z.string().optional().meta({ description: "the title's name, where known", example: 'Judiciary and Judicial Procedure' }),
    coverageFrom: calendarDate.meta({ description: 'the earliest date a version of the title is valid from' }),
    coverageTo: calendarDate.nullable().meta({ description: 'the date its last version ends (exclusive); null while one is open' }),
    firstVersion: z.string().meta({ description: "label of the title's oldest edition on file", example: '113-31' }),
    latestVersion: z.string().meta({ description: "label of the title's newest edition on file", example: '117-80' }),
    latestVersionDate: calendarDate.meta({ description: 'the date the newest edition speaks from' }),
    editionCount: z.int().min(1).meta({ description: 'editions (release points) of this title on file' }),
    sections: z.int().min(0),
    versions: z.int().min(0),
  })
  .meta({ id: 'CoverageTitle' });

const CoverageRecordSchema = z
  .object({
    jurisdiction: z.string(),
    corpus: z.enum(CORPORA),
    name: z.string(),
    cadenceClass: z.enum(CADENCE_CLASSES),
    temporalBasis,
    coverageFrom: calendarDate.meta({ description: 'the earliest date any version of the collection is valid from' }),
    latestVersion: z.string().meta({ description: 'label of the newest edition on file' }),
    sections: z.int().min(0),
    versions: z.int().min(0),
    lastRetrievedAt: isoTimestamp,
    coverageTo: calendarDate.nullable().meta({ description: 'the date the last version ends (exclusive); null while one is open' }),
    latestVersionDate: calendarDate.meta({ description: 'the date the newest edition (latestVersion) speaks from' }),
    editions: z
      .array(z.object({ label: z.string(), date: calendarDate }))
      .meta({ description: 'the editions on file (release points, dated editions) by label, oldest first, each with its earliest date' }),
    titles: z.array(CoverageTitleSchema).optional().meta({
      description: 'for a collection published in titles (United States Code, D.C. Code): each title carried, in the order of the Code',
    }),
  })
  .meta({ id: 'CoverageRecord' });

const CoverageResponseSchema = z
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
const AuditRunSchema = z
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

const AuditFindingSchema = z
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

const QualityResponseSchema = z
  .object({
    run: AuditRunSchema.nullable(),
    findings: z.array(AuditFindingSchema),
    note: z.string(),
    history: z.array(AuditRunSchema).optional().meta({ description: 'earlier runs, newest first (with `history=true`)' }),
  })
  .meta({ id: 'QualityResponse' });

const HealthRecordSchema = z
  .object({
    ok: z.boolean(),
    status: z.enum(['healthy', 'unhealthy', 'unknown']),
    reason: z.string(),
    checkedSecondsAgo: z.int().meta({ description: 'age of the verdict in seconds; -1 when no probe has run' }),
    service: z.string(),
    timestamp: isoTimestamp,
  })
  .meta({ id: 'HealthRecord' });

const SuggestionSchema = z
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
        coverageUrl: z.url().optional().meta({
          description:
            'with not_carried, and with no_edition_on_file when the title or rule set asked of is not carried: the coverage answer that lists what is',
        }),
      })
      .loose(),
  })
  .meta({ id: 'Error' });

/** A statute or court-rule citation of a citation lookup: kept apart from the case results, whose shape is the provider's. */
const StatuteCitationSchema = z
  .object({
    citation: z.string().meta({ description: 'the citation as found in the text (or as given)', example: '28 U.S.C. § 1291' }),
    start_index: z.int().meta({ description: 'offset in code points where it starts, as the case results count them' }),
    end_index: z.int().meta({ description: 'offset in code points where it ends (exclusive)' }),
    jurisdiction: z.string().meta({ example: 'us' }),
    corpus: z.string().meta({ example: 'statutes' }),
    key: z
      .string()
      .nullable()
      .meta({ description: 'the citation key the lookup endpoint takes (`28-1291`); null for a code not carried', example: '28-1291' }),
    normalized_citation: z.string().meta({ description: 'the collection’s display form, with the pinpoint', example: '28 U.S.C. § 1291' }),
    asOf: z.string().meta({ description: 'the date the version in force was asked for: the request’s `asOf`, else today (UTC)' }),
    status: z.union([z.literal(200), z.literal(404), z.literal(503)]),
    result: SectionVersionSchema.nullable().meta({
      description: 'the version in force, as the lookup endpoint answers it; null when none',
    }),
    error: z
      .object({ code: z.string(), message: z.string(), didYouMean: z.array(SuggestionSchema).optional(), coverageUrl: z.url().optional() })
      .loose()
      .nullable()
      .meta({
        description: 'the lookup endpoint’s own error (`not_carried`, `no_edition_on_file` with `didYouMean`) when there is no version',
      }),
  })
  .meta({ id: 'StatuteCitation' });

const CitationLookupWithStatutesSchema = CitationLookupResponseSchema.extend({
  statutes: z.array(StatuteCitationSchema).meta({ description: 'statute and court-rule citations, in the order found' }),
}).meta({ id: 'CitationLookupResponse' });

const resultOf = <T extends z.ZodType>(schema: T, id: string) => z.object({ result: schema }).meta({ id });

const LookupResponseSchema = resultOf(SectionVersionSchema, 'LookupResponse');
const TextResponseSchema = resultOf(TextResultSchema, 'TextResponse');
const VersionsResponseSchema = resultOf(TimelineSchema, 'VersionsResponse');
const DiffResponseSchema = resultOf(DiffSchema, 'DiffResponse');
const SearchResponseSchema = z.object({ results: z.array(SearchHitSchema), disclaimer: z.string() }).meta({ id: 'SearchResponse' });

/** The MCP endpoint's answer: one JSON-RPC 2.0 response (the protocol's own schema governs its `result`). */
const McpResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'McpResponse' });

/** The response resources by their OpenAPI component id: what a route's `responses` name. */
export const RESPONSE_SCHEMAS = {
  LookupResponse: LookupResponseSchema,
  TextResponse: TextResponseSchema,
  VersionsResponse: VersionsResponseSchema,
  DiffResponse: DiffResponseSchema,
  SearchResponse: SearchResponseSchema,
  CoverageResponse: CoverageResponseSchema,
  QualityResponse: QualityResponseSchema,
  HealthRecord: HealthRecordSchema,
  FormatResponse: FormatResponseSchema,
  CitationLookupResponse: CitationLookupWithStatutesSchema,
  CaseResponse: CaseResponseSchema,
  CitedByResponse: CitedByResponseSchema,
  McpResponse: McpResponseSchema,
} as const;

export type ResponseSchemaId = keyof typeof RESPONSE_SCHEMAS;
