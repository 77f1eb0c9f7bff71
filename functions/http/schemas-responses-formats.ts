import * as z from 'zod';
import 'zod-openapi';
import { COVERAGES, LEVELS, LIMIT_MEASURES, TYPEFACE_TOKENS } from '#formats/model.ts';
import { CORPORA } from '#law/model.ts';

/** The filing-format resources, for the OpenAPI document only (see schemas-responses.ts). */

const isoTimestamp = z.string().meta({ description: 'ISO 8601 timestamp' });
const calendarDate = z.string().meta({ description: 'calendar date YYYY-MM-DD' });
const points = z.number().nullable();

const quoted = {
  ruleKey: z.string().meta({ description: 'the rule (a key of `rules`) the quote is from' }),
  quote: z.string().meta({ description: 'verbatim (after whitespace normalisation) in the pinned version of that rule' }),
};

const FaceMinimumSchema = z
  .object({
    face: z.string().meta({ description: 'a named face, or a class of faces such as `proportionally spaced`' }),
    minSizePt: points,
    maxCharsPerInch: points,
    ...quoted,
  })
  .meta({ id: 'FaceMinimum' });

const LengthLimitSchema = z
  .object({
    document: z.string(),
    basis: z.enum(LIMIT_MEASURES).meta({ description: 'the measure this entry limits; its number is in the field of that name' }),
    pages: z.int().nullable(),
    words: z.int().nullable(),
    lines: z.int().nullable(),
    note: z.string().nullable(),
    ...quoted,
  })
  .meta({ id: 'LengthLimit' });

const FormatRuleEntrySchema = z
  .object({
    key: z.string(),
    corpus: z.enum(CORPORA).meta({ description: '`rules` for a court rule, `statutes` where a statute sets the format' }),
    citationKey: z
      .string()
      .meta({ description: 'a citation the lookup endpoint accepts: verify the rule there before certifying compliance' }),
    display: z.string(),
    effectiveFrom: calendarDate.meta({ description: 'start of validity of the version the record was read from' }),
    sourceUrl: z.url(),
    note: z.string().nullable(),
    permalink: z.url(),
    changedSincePinned: z.boolean().meta({ description: 'the version in force today is not the one the record was read from' }),
  })
  .meta({ id: 'FormatRuleEntry' });

const FormatRecordSchema = z
  .object({
    id: z.string(),
    jurisdiction: z.string(),
    court: z.string().meta({ description: 'CourtListener court id', example: 'ca9' }),
    courtName: z.string(),
    level: z.enum(LEVELS),
    coverage: z.enum(COVERAGES),
    ruleKeys: z.array(z.string()),
    rulePins: z.record(z.string(), z.string()).meta({ description: 'rule key → contentHash of the version read' }),
    governingRuleKey: z.string(),
    typeface: z
      .object({
        allowed: z.union([z.array(z.string()), z.enum(TYPEFACE_TOKENS)]).nullable(),
        prohibited: z.array(z.string()),
        faceMinimums: z.array(FaceMinimumSchema),
        maxCharsPerInch: points,
      })
      .nullable(),
    minSizePt: points,
    maxSizePt: points,
    footnoteMinSizePt: points,
    lineSpacing: z.string().nullable(),
    margins: z
      .record(z.string(), z.number())
      .nullable()
      .meta({ description: 'minimum margins in inches by side: `all`, or `top`, `right`, `bottom`, `left`' }),
    paperSize: z.string().nullable(),
    limits: z.array(LengthLimitSchema),
    certificateOfCompliance: z
      .object({
        required: z.boolean(),
        ruleKey: z.string().nullable(),
        contents: z.string().nullable(),
        appliesTo: z.string().nullable(),
        quote: z.string().nullable(),
      })
      .nullable(),
    effectiveFrom: calendarDate.meta({ description: 'start of the period the record covers' }),
    effectiveUntil: calendarDate
      .nullable()
      .meta({ description: 'end of the period the record covers (exclusive); null while it is the current reading' }),
    basis: z
      .record(z.string(), z.string())
      .meta({ description: 'field name → explanation, quoting the rule text the value was read from' }),
    note: z.string(),
    unresolved: z.array(z.string()),
    stale: z
      .boolean()
      .meta({ description: 'a current record only: a cited rule in force today no longer matches its pin, or none is in force' }),
    staleDetail: z.string().nullable(),
    loadedAt: isoTimestamp,
    rules: z.array(FormatRuleEntrySchema),
  })
  .meta({ id: 'FormatRecord' });

export const FormatResponseSchema = z
  .object({ result: z.array(FormatRecordSchema), note: z.string(), disclaimer: z.string() })
  .meta({ id: 'FormatResponse' });
