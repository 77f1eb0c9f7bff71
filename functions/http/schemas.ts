import * as z from 'zod';
import 'zod-openapi';
import { CORPORA } from '#law/model.ts';
import { QUERY_MAX_CHARS, QUERY_MAX_WORDS, queryTooLong } from '#law/search.ts';
import { isCalendarDate } from '#shared/dates.ts';
import { thousands } from '#shared/thousands.ts';
import { MAX_SHORT_PARAM_CHARS } from './input-limits.ts';

/**
 * The routes' inputs, built at load by the functions that parse them. Parameters arrive as query strings (GET) or
 * JSON (POST); the schemas accept both and keep their messages short: the error code for each field comes from the
 * route's `fieldCodes`. The resources the API answers with are in schemas-responses.ts (the OpenAPI document's only).
 */

/** A short parameter: longer than MAX_SHORT_PARAM_CHARS is refused as malformed, never looked up and billed. */
const shortText = () => z.string().max(MAX_SHORT_PARAM_CHARS);
const requiredShortText = (description: string, example: string) => shortText().trim().min(1).meta({ description, example });

export const asOfParam = z
  .string()
  .refine(isCalendarDate, { message: 'must be a calendar date written YYYY-MM-DD' })
  .optional()
  .meta({ description: 'YYYY-MM-DD; the version in force on that date (default: today, UTC)', example: '2019-03-01' });

/** A positive integer, given as a JSON number (POST) or as digits (query string). */
export const positiveIntParam = z.union([z.int(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.int().min(1));

const corpusParam = z.enum(CORPORA).optional().meta({ description: 'one of the six corpus values' });
export const jurisdictionParam = requiredShortText('short jurisdiction code', 'us').transform((s) => s.toLowerCase());

export const LookupInputSchema = z.object({
  jurisdiction: jurisdictionParam,
  citation: requiredShortText('citation key (`28-1291`) or a common printed form (`28 U.S.C. § 1291`)', '28 U.S.C. § 1291'),
  asOf: asOfParam,
  corpus: corpusParam,
});

export const VersionsInputSchema = LookupInputSchema.omit({ asOf: true });

const requiredDate = (description: string, example: string) =>
  z.string().refine(isCalendarDate, { message: 'must be a calendar date written YYYY-MM-DD' }).meta({ description, example });

export const DiffInputSchema = VersionsInputSchema.extend({
  from: requiredDate('YYYY-MM-DD; the version in force on that date is the old side of the diff', '2021-10-18'),
  to: requiredDate('YYYY-MM-DD; the version in force on that date is the new side of the diff', '2022-12-14'),
});

export const SearchInputSchema = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .superRefine((q, ctx) => {
      const tooLong = queryTooLong(q);
      if (tooLong) ctx.addIssue({ code: 'custom', message: tooLong });
    })
    .meta({
      description: `keywords; every term must match. At most ${QUERY_MAX_WORDS} words (runs of letters and digits) and ${thousands(QUERY_MAX_CHARS)} characters`,
      example: 'strangulation',
      maxLength: QUERY_MAX_CHARS,
    }),
  jurisdiction: shortText()
    .trim()
    .optional()
    .meta({ description: 'a single jurisdiction, a comma list, or `all` (default)', example: 'dc' }),
  corpus: corpusParam,
  asOf: asOfParam.meta({ description: 'YYYY-MM-DD; only versions in force on that date are searched (default: today, UTC)' }),
  limit: positiveIntParam.optional().meta({ description: 'results wanted: default 10, at most 50 (larger values are clamped)' }),
});

export const CoverageInputSchema = z.object({
  jurisdiction: shortText().trim().toLowerCase().optional(),
  corpus: corpusParam,
});

export const QualityInputSchema = z.object({
  jurisdiction: shortText().trim().toLowerCase().optional(),
  history: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v))])
    .optional()
    .meta({ description: 'boolean-like; adds earlier runs' }),
});

export const EmptyInputSchema = z.object({});
