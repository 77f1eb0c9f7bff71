import { posix } from 'node:path';
import * as z from 'zod';
import type { IngestRequest } from '#ingest/jobs.ts';
import { INGEST_RULE_SETS } from '#ingest/rules.ts';
import { STATE_CODE_FORMATS } from '#ingest/state-codes/formats.ts';
import { TEMPORAL_BASES } from '#law/model.ts';
import { isCalendarDate } from '#shared/dates.ts';
import { JobRefusedError } from '../job-entry.ts';
import type { SourceFiles } from './source-files.ts';

/** A key or folder in the sources bucket; a trailing slash is dropped (`rules/frap/` = `rules/frap`). */
const sourceName = z
  .string()
  .min(1)
  .max(1024)
  .refine((n) => !n.startsWith('/') && !n.includes('\\') && !n.split('/').some((part) => part === '.' || part === '..'), {
    message: 'must be a key or folder in the sources bucket: relative, with no "." or ".." parts',
  })
  .transform((n) => n.replace(/\/+$/, ''))
  .refine((n) => n !== '', { message: 'must name a key or folder, not the whole bucket' });
const calendarDate = z.string().refine(isCalendarDate, { message: 'must be a calendar date written YYYY-MM-DD' });
const retrievedAt = z.iso.datetime({ offset: true });

/**
 * The ingest job's event: what `asof ingest` is told, with names in the sources bucket for paths. The same kinds and
 * options as the CLI (functions/ingest/jobs.ts IngestRequest); as there, `retrievedAt` defaults to the ingest's time.
 */
const ingestEventSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('uslm'),
      /** USLM title files (XML, or OLRC's release-point zips), one title at one release point each. */
      files: z.array(sourceName).min(1),
      date: calendarDate.optional(),
      label: z.string().min(1).optional(),
      retrievedAt: retrievedAt.optional(),
      /** Where the one file was read from (default: OLRC's address of the title at its release point). */
      sourceUrl: z.url({ protocol: /^https?$/ }).optional(),
    })
    .refine((e) => !e.sourceUrl || e.files.length === 1, { message: 'sourceUrl names one file', path: ['sourceUrl'] }),
  z.strictObject({
    kind: z.literal('dc-code'),
    /** The manifest; its folder is fetched with it, since the manifest names its files relative to itself. */
    manifest: sourceName.refine((n) => n.includes('/'), {
      message: 'must sit in a folder with the files it names, e.g. dc-code/manifest.csv',
    }),
    retrievedAt: retrievedAt.optional(),
  }),
  z.strictObject({
    kind: z.literal('rules'),
    set: z.enum(INGEST_RULE_SETS).optional(),
    /** Markdown files of rules, US Code appendix text files (.txt, .txt.gz), or folders of them. */
    paths: z.array(sourceName).min(1),
    date: calendarDate.optional(),
    label: z.string().min(1).optional(),
    retrievedAt: retrievedAt.optional(),
    temporalBasis: z.enum(TEMPORAL_BASES).optional(),
  }),
  z.strictObject({
    kind: z.literal('state-code'),
    state: z.enum(Object.keys(STATE_CODE_FORMATS) as [string, ...string[]]),
    /** A state code's title files in the publisher's layout, or folders of them (e.g. `states/transforms/tn`). */
    paths: z.array(sourceName).min(1),
    retrievedAt: retrievedAt.optional(),
  }),
  z.strictObject({
    kind: z.literal('courtlistener'),
    /** CourtListener records into the case-law replica: bulk-data CSV files (.csv, .csv.gz), API records, or folders of them. */
    paths: z.array(sourceName).min(1),
  }),
]);

/** An ingest event as written (a schedule's input, a manual invocation). */
export type IngestJobEvent = z.input<typeof ingestEventSchema>;
type ParsedIngestEvent = z.output<typeof ingestEventSchema>;

/** The event, checked; a bad one is refused with every problem named (JobRefusedError: it is not retried). */
export function parseIngestEvent(event: unknown): ParsedIngestEvent {
  const parsed = ingestEventSchema.safeParse(event);
  if (!parsed.success) throw new JobRefusedError(`ingest event refused:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** An event for the law's versions (the other kind, courtlistener, goes to the case-law replica). */
export type LawIngestEvent = Exclude<ParsedIngestEvent, { kind: 'courtlistener' }>;

/** Local copies of the named files and folders of the sources bucket. */
export async function localPaths(names: readonly string[], files: SourceFiles): Promise<string[]> {
  // One name after the other: a folder is replaced as a whole when fetched, so names must not race on a shared part.
  const paths: string[] = [];
  for (const name of names) paths.push(await files.localPath(name));
  return paths;
}

/** The ingest the event asks for, on local copies of the files it names. */
export async function localIngestRequest(event: LawIngestEvent, files: SourceFiles): Promise<IngestRequest> {
  const local = (names: readonly string[]) => localPaths(names, files);
  switch (event.kind) {
    case 'uslm':
      return { ...event, files: await local(event.files) };
    case 'dc-code': {
      const [, manifest] = await local([posix.dirname(event.manifest), event.manifest]);
      return { ...event, manifest: manifest! };
    }
    case 'rules':
    case 'state-code':
      return { ...event, paths: await local(event.paths) };
  }
}
