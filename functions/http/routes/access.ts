/** Access and parameter conventions shared by the route definitions. */
export const lookupScope = { kind: 'bearer', scope: 'lookup' } as const;
export const publicAccess = { kind: 'public' } as const;
export const lookupFieldCodes = { asOf: 'bad_as_of', corpus: 'bad_corpus' } as const;
