import * as z from 'zod';
import 'zod-openapi';
import { MAX_CITATIONS, MAX_TEXT_CHARS } from '#caselaw/resolve.ts';
import { thousands } from '#shared/thousands.ts';
import { asOfParam, positiveIntParam } from './schemas.ts';

/** The case-law routes' inputs (schemas.ts holds the law's; the resources are in schemas-responses-caselaw.ts). */

const citationItem = z.union([
  z.string().trim().min(1).max(200),
  z.object({
    volume: z.union([z.string().trim().min(1), z.int().positive()]),
    reporter: z.string().trim().min(1).max(60),
    page: z.union([z.string().trim().min(1), z.int().positive()]),
  }),
]);

export const CitationLookupInputSchema = z
  .object({
    text: z
      .string()
      .max(MAX_TEXT_CHARS)
      .optional()
      .meta({ description: `text to parse, at most ${thousands(MAX_TEXT_CHARS)} characters` }),
    citations: z
      .array(citationItem)
      .max(MAX_CITATIONS)
      .optional()
      .meta({ description: `citations to resolve (at most ${MAX_CITATIONS}): strings (\`410 U.S. 113\`) or {volume, reporter, page}` }),
    asOf: asOfParam.meta({
      description: 'YYYY-MM-DD; statute and rule citations are answered with the version in force on that date (default: today, UTC)',
    }),
    fallback: z
      .enum(['none', 'courtlistener'])
      .optional()
      .meta({ description: 'look up citations the replica lacks with CourtListener (default none)' }),
  })
  .refine((v) => v.text !== undefined || v.citations !== undefined, {
    message: 'text or citations is required',
    path: ['text or citations'],
  })
  .refine((v) => v.text === undefined || v.citations === undefined, {
    message: 'Give either text or citations, not both.',
    path: ['citations'],
  });

/** Digits of a positive integer JavaScript holds exactly: above 2^53 − 1 an id would be silently rounded to another. */
const clusterIdParam = z
  .string()
  .regex(/^[1-9]\d{0,15}$/)
  .refine((digits) => Number.isSafeInteger(Number(digits)), { message: 'clusterId is larger than 2^53 − 1' })
  .transform(Number);

export const CaseInputSchema = z.object({ clusterId: clusterIdParam.meta({ description: 'a positive integer', example: '111014' }) });

export const CitedByInputSchema = z.object({
  clusterId: clusterIdParam.meta({ description: 'a positive integer', example: '111014' }),
  limit: positiveIntParam.optional().meta({ description: 'results wanted: default 20, at most 100 (larger values are clamped)' }),
  cursor: z.string().max(200).optional().meta({ description: 'the `next` of the previous page' }),
});
