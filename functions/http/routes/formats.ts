/** The filing-format registry. */
import { handleFormat } from '../handlers/formats.ts';
import { defineRoute } from '../route.ts';
import { FormatInputSchema } from '../schemas-formats.ts';
import { lookupScope } from './access.ts';

export const lawFormat = defineRoute({
  id: 'law-format',
  methods: ['GET', 'POST'],
  path: '/law/format',
  stores: ['formats', 'versions'],
  auth: lookupScope,
  units: 1,
  input: FormatInputSchema,
  fieldCodes: { level: 'bad_level', asOf: 'bad_as_of' },
  tag: 'formats',
  summary: 'Court filing formats, each value tied to the rule text it was read from',
  description:
    'Records for a jurisdiction in force on `asOf` (default today), highest court first; filter by `level` or by `court` (CourtListener court id). ' +
    'Each record names its period (`effectiveFrom`, `effectiveUntil`) and was read from the rule texts in force over it. A record is a reading of ' +
    'the rules, not the rules: `stale` says when a cited rule in force today no longer matches the version a current record was read from.',
  responses: { 200: { description: 'filing-format records', schema: 'FormatResponse' } },
  errors: ['missing_fields', 'bad_as_of', 'bad_level', 'not_carried', 'statutes_unavailable'],
  handle: handleFormat,
});
