/** Case law: citation resolution, one case, the cases citing it. */
import { citationUnits, handleCase, handleCitationLookup, handleCitedBy } from '../handlers/caselaw.ts';
import { defineRoute } from '../route.ts';
import { CaseInputSchema, CitationLookupInputSchema, CitedByInputSchema } from '../schemas-caselaw.ts';
import { lookupScope } from './access.ts';

export const caselawCitations = defineRoute({
  id: 'caselaw-citations',
  methods: ['POST'],
  path: '/law/citations/lookup',
  stores: ['caselaw', 'ops', 'fallback'],
  assets: ['reporters-db'],
  auth: lookupScope,
  units: citationUnits,
  input: CitationLookupInputSchema,
  fieldCodes: { text: 'too_large', fallback: 'bad_fallback', asOf: 'bad_as_of' },
  tag: 'caselaw',
  summary: 'Resolve case citations to cases, and statute and rule citations to the version in force',
  description:
    'Exactly one of `text` (citations are parsed from it) or `citations`. One unit per citation, reserved after parsing. ' +
    'Status per citation as CourtListener’s citation lookup: 200 found, 300 ambiguous (up to eight candidates), 404 not found, 400 unknown reporter. ' +
    'Statute and court-rule citations (`28 U.S.C. § 1291`, `D.C. Code § 22-404.05`, `Fed. R. App. P. 32(a)(7)`, `Mass. Gen. Laws ch. 93A, § 2`) come apart from the cases, in `statutes`: ' +
    'each with the version in force on `asOf` (default today, UTC) as /law/lookup answers it, or its 404 code (`not_carried`, `no_edition_on_file`); one unit each too. ' +
    'Resolution only says which case a citation names, never whether it is still good law. With `fallback: "courtlistener"`, citations the replica ' +
    'lacks are looked up with CourtListener (per-request cap, daily budget of the shared token; never for test keys) and written back.',
  responses: { 200: { description: 'one result per citation, in the order found', schema: 'CitationLookupResponse' } },
  responseHeaders: { 'x-asof-fallback-remaining': "with a fallback: the provider's requests left today on the shared token" },
  errors: ['missing_fields', 'bad_json', 'bad_as_of', 'bad_fallback', 'too_many', 'too_large', 'caselaw_unavailable'],
  handle: handleCitationLookup,
});

export const caselawCase = defineRoute({
  id: 'caselaw-case',
  methods: ['GET'],
  path: '/law/cases/{clusterId}',
  stores: ['caselaw'],
  auth: lookupScope,
  units: 1,
  input: CaseInputSchema,
  fieldCodes: { clusterId: 'bad_id' },
  tag: 'caselaw',
  summary: 'One case (a CourtListener cluster) with its parallel citations and how many cases cite it',
  responses: { 200: { description: 'the case record', schema: 'CaseResponse' } },
  errors: ['bad_id', 'not_found', 'caselaw_unavailable'],
  handle: handleCase,
});

export const caselawCitedBy = defineRoute({
  id: 'caselaw-cited-by',
  methods: ['GET'],
  path: '/law/cases/{clusterId}/cited-by',
  stores: ['caselaw'],
  auth: lookupScope,
  units: 1,
  input: CitedByInputSchema,
  fieldCodes: { clusterId: 'bad_id', limit: 'bad_limit' },
  tag: 'caselaw',
  summary: 'The cases citing a case, most-cited first, each with its depth',
  responses: { 200: { description: 'citing cases', schema: 'CitedByResponse' } },
  errors: ['bad_id', 'bad_limit', 'caselaw_unavailable'],
  handle: handleCitedBy,
});
