import * as z from 'zod';
import 'zod-openapi';
import { positiveIntParam } from './schemas.ts';
import { MAX_CANDIDATES, MAX_CITATIONS, MAX_TEXT_CHARS } from '#caselaw/resolve.ts';

/** The case-law resources (schemas.ts holds the law's). */

const date = z.string().meta({ description: 'calendar date YYYY-MM-DD', example: '1983-07-05' });

export const ReporterCitationSchema = z
  .object({
    volume: z.string(),
    reporter: z.string().meta({ description: 'the reporters-db edition abbreviation', example: 'U.S.' }),
    page: z.string(),
    type: z.int().meta({ description: "CourtListener's citation type: 1 federal, 2 state, 3 state regional, 4 specialty, 5 early SCOTUS, 6 Lexis, 7 West, 8 neutral" }),
  })
  .meta({ id: 'ReporterCitation' });

export const ClusterSchema = z
  .object({
    id: z.int(),
    absolute_url: z.string().meta({ example: '/opinion/111014/marsh-v-chambers/' }),
    courtlistener_url: z.url().meta({ description: "the cluster's page on CourtListener" }),
    case_name: z.string(),
    case_name_full: z.string(),
    case_name_short: z.string(),
    date_filed: date.nullable().meta({ description: 'null when the source gives no date' }),
    court: z.string().nullable().meta({ description: 'CourtListener court id (`scotus`, `ca9`); null when the source does not say', example: 'scotus' }),
    docket_id: z.int().nullable(),
    docket: z.null(),
    precedential_status: z.string(),
    citation_count: z.int(),
    citations: z.array(ReporterCitationSchema),
  })
  .meta({ id: 'Cluster' });

export const ResolvedCitationSchema = z
  .object({
    citation: z.string().meta({ description: 'the citation as found in the text (or as given)' }),
    normalized_citations: z.array(z.string()).meta({ description: 'canonical form per candidate reporters-db edition' }),
    start_index: z.int().meta({ description: 'UTF-16 code-unit offset in the input text where the citation starts' }),
    end_index: z.int().meta({ description: 'UTF-16 code-unit offset where it ends (exclusive): text.slice(start_index, end_index)' }),
    status: z.union([z.literal(200), z.literal(300), z.literal(400), z.literal(404)]),
    error_message: z.string(),
    clusters: z.array(ClusterSchema).max(MAX_CANDIDATES),
  })
  .meta({ id: 'ResolvedCitation' });

export const FallbackSummarySchema = z
  .object({
    attempted: z.int(),
    resolved: z.int(),
    capped: z.int(),
    backfilled: z.int(),
    status: z.enum(['ok', 'unavailable', 'rate_limited', 'skipped', 'none']),
  })
  .meta({ id: 'FallbackSummary' });

export const CitationLookupResponseSchema = z
  .object({
    results: z.array(ResolvedCitationSchema),
    provenance: z.object({ source: z.string(), dataAsOf: date.nullable(), resolution: z.string() }),
    fallback: FallbackSummarySchema.optional().meta({ description: 'present only when a fallback was requested' }),
    disclaimer: z.string(),
  })
  .meta({ id: 'CitationLookupResponse' });

export const CaseRecordSchema = ClusterSchema.extend({
  cited_by_count: z.int().meta({ description: 'distinct cases in the replica citing this one' }),
}).meta({ id: 'CaseRecord' });

export const CaseResponseSchema = z.object({ result: CaseRecordSchema, provenance: z.object({ source: z.string(), dataAsOf: date.nullable() }), disclaimer: z.string() }).meta({ id: 'CaseResponse' });

export const CitingCaseSchema = ClusterSchema.extend({
  depth: z.int().meta({ description: 'how many times the citing case cites this one (summed over its opinions)' }),
}).meta({ id: 'CitingCase' });

export const CitedByResponseSchema = z
  .object({
    results: z.array(CitingCaseSchema),
    next: z.string().nullable().meta({ description: 'cursor for the next page; null on the last' }),
    provenance: z.object({ source: z.string(), dataAsOf: date.nullable() }),
    disclaimer: z.string(),
  })
  .meta({ id: 'CitedByResponse' });

// ---- inputs ------------------------------------------------------------------------------------------------------

const citationItem = z.union([
  z.string().trim().min(1).max(200),
  z.object({ volume: z.union([z.string().trim().min(1), z.int().positive()]), reporter: z.string().trim().min(1).max(60), page: z.union([z.string().trim().min(1), z.int().positive()]) }),
]);

export const CitationLookupInputSchema = z
  .object({
    text: z.string().max(MAX_TEXT_CHARS).optional().meta({ description: `text to parse, at most ${MAX_TEXT_CHARS.toLocaleString('en-US')} characters` }),
    citations: z
      .array(citationItem)
      .optional()
      .meta({ description: `citations to resolve (at most ${MAX_CITATIONS}): strings (\`410 U.S. 113\`) or {volume, reporter, page}` }),
    fallback: z.enum(['none', 'courtlistener']).optional().meta({ description: 'look up citations the replica lacks with CourtListener (default none)' }),
  })
  .refine((v) => v.text !== undefined || v.citations !== undefined, { message: 'text or citations is required', path: ['text or citations'] })
  .refine((v) => v.text === undefined || v.citations === undefined, { message: 'Give either text or citations, not both.', path: ['citations'] });

const clusterIdParam = z.string().regex(/^[1-9]\d{0,17}$/).transform(Number);

export const CaseInputSchema = z.object({ clusterId: clusterIdParam.meta({ description: 'a positive integer', example: '111014' }) });

export const CitedByInputSchema = z.object({
  clusterId: clusterIdParam.meta({ description: 'a positive integer', example: '111014' }),
  limit: positiveIntParam.optional().meta({ description: 'results wanted: default 20, at most 100 (larger values are clamped)' }),
  cursor: z.string().max(200).optional().meta({ description: 'the `next` of the previous page' }),
});
