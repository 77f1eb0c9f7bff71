/** The law: a section version in force on a date, its quotable text, and search over the law in force. */
import { handleDiff, handleLookup, handleSearch, handleText, handleVersions } from '../handlers/law.ts';
import { defineRoute } from '../route.ts';
import { DiffInputSchema, LookupInputSchema, SearchInputSchema, VersionsInputSchema } from '../schemas.ts';
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

export const lawVersions = defineRoute({
  id: 'law-versions',
  methods: ['GET', 'POST'],
  path: '/law/versions',
  stores: ['versions'],
  auth: lookupScope,
  units: 1,
  input: VersionsInputSchema,
  fieldCodes: { corpus: 'bad_corpus' },
  tag: 'law',
  summary: 'Every version on file of a section, oldest first, with the gaps between them',
  description:
    'Each version with its validity, status, label, temporal basis, content hash and a permalink that opens it (`?asOf=` its first day). ' +
    'A time between two versions in which nothing is on file is an entry of its own (`kind: gap`); `endedAt` is set when the last version has ended. ' +
    'The citation is read as lookup reads it, with the same 404s.',
  responses: { 200: { description: 'the section’s timeline', schema: 'VersionsResponse' } },
  errors: ['missing_fields', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
  handle: handleVersions,
});

export const lawDiff = defineRoute({
  id: 'law-diff',
  methods: ['GET', 'POST'],
  path: '/law/diff',
  stores: ['versions'],
  auth: lookupScope,
  units: 1,
  input: DiffInputSchema,
  fieldCodes: { from: 'bad_as_of', to: 'bad_as_of', corpus: 'bad_corpus' },
  tag: 'law',
  summary: 'The versions of a section in force on two dates and the difference between their texts',
  description:
    'A word-level edit script (`operations`: text kept, removed, added, in order) and a unified diff of the lines (`unified`). ' +
    '`identical` is true when the same version is in force on both dates. When nothing is in force on a date, the answer is the lookup’s 404 ' +
    '(no_edition_on_file with didYouMean), `error.fields` naming the parameter(s). A malformed `from` or `to` is 400 bad_as_of, `error.field` naming which. ' +
    'A passage too long or too different to diff word by word within the time budget is given as its lines removed and added (`wordLevel: false`).',
  responses: { 200: { description: 'the two versions and their difference', schema: 'DiffResponse' } },
  errors: ['missing_fields', 'bad_as_of', 'bad_corpus', 'not_carried', 'no_edition_on_file', 'statutes_unavailable'],
  handle: handleDiff,
});
