import type { z } from 'zod';
import { pinnedRow } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import { FORMAT_DISCLAIMER, FORMAT_NOTE, listFormats } from '#formats/registry.ts';
import type { SectionVersion } from '#law/model.ts';
import { permalinkOf } from '../present.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import type { FormatInputSchema } from '../schemas-formats.ts';
import { need } from './need.ts';

type FormatInput = z.output<typeof FormatInputSchema>;

export async function handleFormat(input: FormatInput, { services }: RouteContext): Promise<RouteResult> {
  const results = await listFormats(
    { formats: need(services.formats, 'The filing-format registry'), versions: need(services.versions), now: services.now },
    {
      jurisdiction: input.jurisdiction,
      ...(input.level && { level: input.level }),
      ...(input.court && { court: input.court }),
      ...(input.asOf && { asOf: input.asOf }),
    },
  );
  const result = results.map((r) => ({
    ...r,
    rules: r.rules.map(({ ref, ...entry }) => ({ ...entry, permalink: permalinkOf(services.site, ref, entry.effectiveFrom) })),
  }));
  return { body: { result, note: FORMAT_NOTE, disclaimer: FORMAT_DISCLAIMER } };
}

/** A rule version a loaded format record was read from carries the topic `format`. */
export async function withFormatTopic(formats: FormatStore | null, v: SectionVersion): Promise<SectionVersion> {
  if (v.citation.corpus !== 'rules' || formats === null) return v;
  if (!(await formats.isPinned(pinnedRow(v.citation, v.provenance.contentHash)))) return v;
  return { ...v, topics: [...new Set([...(v.topics ?? []), 'format'])] };
}
