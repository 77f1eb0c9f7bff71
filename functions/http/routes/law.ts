/** The law: a section version in force on a date, its quotable text, and search over the law in force. */
import { handleLookup, handleSearch, handleText } from '../handlers/law.ts';
import { defineRoute } from '../route.ts';
import { LookupInputSchema, SearchInputSchema } from '../schemas.ts';
import { lookupFieldCodes, lookupScope } from './access.ts';

export const lawLookup = defineRoute({
  id: 'law-lookup',
  methods: ['GET', 'POST'],
  path: '/law/lookup',
  stores: ['versions', 'formats'],
  auth: lookupScope,
  units: 1,
  input: LookupInputSchema,
  fieldCodes: lookupFieldCodes,
  tag: 'law',
  summary: 'The version of a section in force on a date',
  description:
    'Never a nearest guess: when nothing under that key was in force on the date, the answer is 404 no_edition_on_file with didYouMean. ' +
    'A printed pinpoint (`Fed. R. App. P. 32(a)(7)`) answers the whole section and says in `pinpoint` and `note` what was done with it: ' +
    'the subdivision’s text in `pinpoint.text` when the version has that subdivision.',
  responses: { 200: { description: 'the section version in force', schema: 'LookupResponse' } },
  errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
  handle: handleLookup,
});

export const lawText = defineRoute({
  id: 'law-text',
  methods: ['GET', 'POST'],
  path: '/law/text',
  stores: ['versions'],
  auth: lookupScope,
  units: 1,
  input: LookupInputSchema,
  fieldCodes: lookupFieldCodes,
  tag: 'law',
  summary: 'The quotable parts of the section version in force on a date',
  description: 'A printed pinpoint (`Fed. R. Civ. P. 12(b)(6)`) adds `pinpoint`, with the subdivision’s text when the version has it.',
  responses: { 200: { description: 'text result', schema: 'TextResponse' } },
  errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
  handle: handleText,
});

export const lawSearch = defineRoute({
  id: 'law-search',
  methods: ['GET', 'POST'],
  path: '/law/search',
  stores: ['search', 'versions'],
  auth: lookupScope,
  units: 1,
  input: SearchInputSchema,
  fieldCodes: { asOf: 'bad_as_of', corpus: 'bad_corpus', limit: 'bad_limit', q: 'query_too_long' },
  tag: 'law',
  summary: 'Ranked lexical search over the law in force on a date',
  description: 'Every term must match (AND). Natural-language questions must be turned into keywords.',
  responses: { 200: { description: 'ranked hits', schema: 'SearchResponse' } },
  errors: ['missing_fields', 'query_too_long', 'bad_as_of', 'bad_corpus', 'bad_limit', 'not_carried', 'statutes_unavailable'],
  handle: handleSearch,
});
