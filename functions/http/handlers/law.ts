import type { z } from 'zod';
import { lookupVersion } from '#law/lookup.ts';
import { DISCLAIMER } from '#law/notes.ts';
import { searchLaw } from '#law/search.ts';
import { diffVersions, listVersions } from '#law/timeline.ts';
import { presentDiff, presentText, presentTimeline, presentVersion } from '../present.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import type { DiffInputSchema, LookupInputSchema, SearchInputSchema, VersionsInputSchema } from '../schemas.ts';
import { withFormatTopic } from './formats.ts';
import { need, todayUtc } from './need.ts';

type LookupInput = z.output<typeof LookupInputSchema>;
type SearchInput = z.output<typeof SearchInputSchema>;
type VersionsInput = z.output<typeof VersionsInputSchema>;
type DiffInput = z.output<typeof DiffInputSchema>;

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

export async function handleVersions(input: VersionsInput, { services }: RouteContext): Promise<RouteResult> {
  const timeline = await listVersions(need(services.versions), {
    jurisdiction: input.jurisdiction,
    citation: input.citation,
    ...(input.corpus && { corpus: input.corpus }),
    today: todayUtc(services.now()),
    coverageUrl: `${services.site.baseUrl}/law/coverage`,
  });
  return { body: { result: presentTimeline(services.site, timeline) } };
}

export async function handleDiff(input: DiffInput, { services }: RouteContext): Promise<RouteResult> {
  const diff = await diffVersions(need(services.versions), {
    jurisdiction: input.jurisdiction,
    citation: input.citation,
    ...(input.corpus && { corpus: input.corpus }),
    from: input.from,
    to: input.to,
    coverageUrl: `${services.site.baseUrl}/law/coverage`,
  });
  return { body: { result: presentDiff(services.site, diff) } };
}
