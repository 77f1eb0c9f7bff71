import type { z } from 'zod';
import { lookupVersion } from '#law/lookup.ts';
import { DISCLAIMER } from '#law/notes.ts';
import { searchLaw } from '#law/search.ts';
import { presentText, presentVersion } from '../present.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import type { LookupInputSchema, SearchInputSchema } from '../schemas.ts';
import { withFormatTopic } from './formats.ts';
import { need, todayUtc } from './need.ts';

type LookupInput = z.output<typeof LookupInputSchema>;
type SearchInput = z.output<typeof SearchInputSchema>;

const findVersion = (input: LookupInput, { services }: RouteContext) =>
  lookupVersion(need(services.versions), {
    jurisdiction: input.jurisdiction,
    citation: input.citation,
    asOf: input.asOf ?? todayUtc(services.now()),
    ...(input.corpus && { corpus: input.corpus }),
    coverageUrl: `${services.site.baseUrl}/law/coverage`,
  });

export async function handleLookup(input: LookupInput, ctx: RouteContext): Promise<RouteResult> {
  const { version, pinpoint } = await findVersion(input, ctx);
  const found = await withFormatTopic(ctx.services.formats, version);
  return { body: { result: presentVersion(ctx.services.site, found, pinpoint) } };
}

export async function handleText(input: LookupInput, ctx: RouteContext): Promise<RouteResult> {
  const { version, pinpoint } = await findVersion(input, ctx);
  return { body: { result: presentText(ctx.services.site, version, pinpoint) } };
}

export async function handleSearch(input: SearchInput, { services }: RouteContext): Promise<RouteResult> {
  const hits = await searchLaw(need(services.search, 'The search index'), need(services.versions), {
    q: input.q,
    asOf: input.asOf ?? todayUtc(services.now()),
    ...(input.jurisdiction !== undefined && { jurisdiction: input.jurisdiction }),
    ...(input.corpus && { corpus: input.corpus }),
    ...(input.limit !== undefined && { limit: input.limit }),
  });
  return { body: { results: hits, disclaimer: DISCLAIMER } };
}
