import { createAsofClient, isAsofError, unwrap } from '@asof/client';

// A key from `npx asof keys create --name me`; the base URL defaults to the local server, http://127.0.0.1:8787/v1.
const asof = createAsofClient({ key: process.env.ASOF_KEY, baseUrl: process.env.ASOF_BASE_URL });

// 1 U.S.C. § 112b as it read on 2019-03-01: the version in force that day, with its provenance.
const { result: section } = await unwrap(
  asof.GET('/law/lookup', { params: { query: { jurisdiction: 'us', citation: '1 U.S.C. § 112b', asOf: '2019-03-01' } } }),
);
console.log(section.citation.display, section.validFrom, section.validTo, section.provenance.contentHash);

// No version on file on 2010-01-01: a 404 whose code says so, with the versions nearest that date. asof never guesses.
try {
  await unwrap(asof.GET('/law/lookup', { params: { query: { jurisdiction: 'us', citation: '1-112b', asOf: '2010-01-01' } } }));
} catch (e) {
  if (!isAsofError(e, 'no_edition_on_file')) throw e;
  const [nearest] = e.didYouMean ?? [];
  console.log(e.status, e.code, nearest?.reason, nearest?.validFrom);
}

// The same without exceptions: openapi-fetch's { data, error }, each typed from the OpenAPI document.
const { error } = await asof.POST('/law/lookup', { body: { jurisdiction: 'us', citation: '1-112b', asOf: '2019-02-30' } });
if (error) console.log(error.error.code, error.error.message);

// The D.C. Code in force on 2024-04-01, searched (lexical: give keywords).
const found = await unwrap(asof.GET('/law/search', { params: { query: { q: 'strangulation', jurisdiction: 'dc', asOf: '2024-04-01' } } }));
for (const hit of found.results) console.log(hit.citation.display, hit.catchline);
