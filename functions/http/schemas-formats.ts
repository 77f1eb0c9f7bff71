import * as z from 'zod';
import 'zod-openapi';
import { LEVELS } from '#formats/model.ts';
import { MAX_SHORT_PARAM_CHARS } from './input-limits.ts';
import { asOfParam, jurisdictionParam } from './schemas.ts';

/** The filing-format route's input (the resources are in schemas-responses-formats.ts). */

export const FormatInputSchema = z.object({
  jurisdiction: jurisdictionParam,
  level: z.enum(LEVELS).optional().meta({ description: 'one of the four court levels' }),
  court: z
    .string()
    .max(MAX_SHORT_PARAM_CHARS)
    .trim()
    .toLowerCase()
    .min(1)
    .optional()
    .meta({ description: 'CourtListener court id (`scotus`, `ca9`, `cadc`, `nd`, …)', example: 'ca9' }),
  asOf: asOfParam.meta({
    description: 'YYYY-MM-DD; the records in force on that date, each read from the rule texts in force then (default: today, UTC)',
    example: '2010-06-01',
  }),
});
