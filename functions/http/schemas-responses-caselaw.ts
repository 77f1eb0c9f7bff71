import * as z from 'zod';
import 'zod-openapi';
import { MATCH_AT } from '#caselaw/case-names.ts';
import { MAX_CANDIDATES } from '#caselaw/resolve.ts';

/** The case-law resources, for the OpenAPI document only (see schemas-responses.ts). */

const date = z.string().meta({ description: 'calendar date YYYY-MM-DD', example: '1983-07-05' });

const ReporterCitationSchema = z
  .object({
    volume: z.string(),
    reporter: z.string().meta({ description: 'the reporters-db edition abbreviation', example: 'U.S.' }),
    page: z.string(),
    type: z.int().meta({
      description:
        "CourtListener's citation type: 1 federal, 2 state, 3 state regional, 4 specialty, 5 early SCOTUS, 6 Lexis, 7 West, 8 neutral",
    }),
  })
  .meta({ id: 'ReporterCitation' });

const ClusterSchema = z
  .object({
    id: z.int(),
    absolute_url: z.string().meta({ example: '/opinion/111014/marsh-v-chambers/' }),
    courtlistener_url: z.url().meta({ description: "the cluster's page on CourtListener" }),
    case_name: z.string(),
    case_name_full: z.string(),
    case_name_short: z.string(),
    date_filed: date.nullable().meta({ description: 'null when the source gives no date' }),
    court: z
      .string()
      .nullable()
      .meta({ description: 'CourtListener court id (`scotus`, `ca9`); null when the source does not say', example: 'scotus' }),
    docket_id: z.int().nullable(),
    docket: z.null(),
    precedential_status: z.string(),
    citation_count: z.int(),
    citations: z.array(ReporterCitationSchema),
  })
  .meta({ id: 'Cluster' });

const LookupClusterSchema = ClusterSchema.extend({
  case_name_score: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({
      description: `present when the text names the case before the citation: how well that name matches this cluster’s names (0–1; ≥ ${MATCH_AT} matches)`,
    }),
}).meta({ id: 'LookupCluster' });

const CaseNameCheckSchema = z
  .object({
    name: z.string().meta({ description: 'the case name as the text prints it before the citation', example: 'Roe v. Wade' }),
    start_index: z.int().meta({ description: 'where the name starts, in code points as `start_index`' }),
    end_index: z.int().meta({ description: 'where it ends (exclusive), in code points' }),
    matches: z
      .boolean()
      .nullable()
      .meta({ description: `the name matches a cluster found (score ≥ ${MATCH_AT}); null when no cluster was found to compare with` }),
    score: z.number().min(0).max(1).nullable().meta({ description: 'the best score over the clusters found (0–1); null when none' }),
    cluster_id: z.int().nullable().meta({ description: 'the cluster that scored best' }),
  })
  .meta({
    id: 'CaseNameCheck',
    description:
      'Is it the case the text names? A real citation under another case’s name (matches false) is the signature of a hallucinated citation.',
  });

const ResolvedCitationSchema = z
  .object({
    citation: z.string().meta({ description: 'the citation as found in the text (or as given)' }),
    normalized_citations: z.array(z.string()).meta({ description: 'canonical form per candidate reporters-db edition' }),
    start_index: z.int().meta({
      description:
        "offset in the input text where the citation starts, in code points as CourtListener counts them (Python's str indices, not UTF-16 units)",
    }),
    end_index: z
      .int()
      .meta({ description: 'offset in code points where it ends (exclusive): [...text].slice(start_index, end_index).join("")' }),
    status: z.union([z.literal(200), z.literal(300), z.literal(400), z.literal(404)]),
    error_message: z.string(),
    clusters: z
      .array(LookupClusterSchema)
      .max(MAX_CANDIDATES)
      .meta({ description: 'a 300 lists the clusters whose names match the case the text names first' }),
    case_name_check: CaseNameCheckSchema.nullable().meta({
      description: 'null when the text prints no case name before the citation (or the citation was given alone)',
    }),
  })
  .meta({ id: 'ResolvedCitation' });

const FallbackSummarySchema = z
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

const CaseRecordSchema = ClusterSchema.extend({
  cited_by_count: z.int().meta({ description: 'distinct cases in the replica citing this one' }),
}).meta({ id: 'CaseRecord' });

export const CaseResponseSchema = z
  .object({ result: CaseRecordSchema, provenance: z.object({ source: z.string(), dataAsOf: date.nullable() }), disclaimer: z.string() })
  .meta({ id: 'CaseResponse' });

const CitingCaseSchema = ClusterSchema.extend({
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
