/**
 * `asof fetch uscode`: the publisher's release points → the title zips → checked → ingested, title by title. What
 * was ingested is recorded in the ops store (a marker per release point and title), next to the versions it
 * produced: a second run requests no zip and writes nothing, and a store started afresh is filled again from the
 * sources cache, which keeps the checked zips (see download.ts). A title that fails (unreachable publisher, HTTP
 * error, corrupt zip, a file the parser refuses) is reported and leaves nothing of itself in the store; the others go on.
 */
import { join } from 'node:path';
import * as z from 'zod';
import type { OpsStore } from '#ops/ports.ts';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import { type DownloadedZip, downloadTitleZip } from './download.ts';
import { DEFAULT_TIMEOUTS, type FetchLike, fetchPage, PublisherError, type Timeouts } from './http.ts';
import { type IngestedRecord, ingestedMarker, ingestTitleZip } from './ingest-title.ts';
import { parseCurrentReleasePoint, parseReleasePointId, parseReleasePointList, type ReleasePoint } from './release-points.ts';
import { needsPages, needsPriorList, type ReleasePointChoice, type ReleasePointPages, selectWork, type WorkItem } from './select.ts';
import { titleCode, titleName } from './titles.ts';
import { currentReleasePointUrl, normalizeSource, OLRC_SOURCE, releasePointListUrl, titleZipPath } from './urls.ts';

type Log = (line: string) => void;

/** The request as the CLI sends it (to the running server's admin socket, or to the stores directly). */
const requestSchema = z
  .strictObject({
    source: z.string().optional(),
    releasePoint: z.string().optional(),
    latest: z.boolean().optional(),
    since: z.string().optional(),
    titles: z.array(z.string()).optional(),
    /** The data dir's sources cache (absolute). */
    cacheDir: z.string().min(1),
  })
  .refine((r) => [r.releasePoint !== undefined, r.latest === true, r.since !== undefined].filter(Boolean).length === 1, {
    message: 'say which release points: one of --release-point ID, --latest or --since ID',
  });

export type FetchUscodeRequest = z.input<typeof requestSchema>;

export interface FetchUscodeDeps {
  fetch: FetchLike;
  /** An ingest of law under the store's ingest lease, without the steps after it (Jobs.ingest, afterwards: false). */
  ingest(request: IngestRequest, log: Log): Promise<IngestReport[]>;
  /** The steps after an ingest (format records, coverage, audit): once, after the last title, if anything changed. */
  afterIngest(log: Log): Promise<unknown>;
  markers: Pick<OpsStore, 'getMarker' | 'putMarker'>;
  now: () => Date;
  timeouts?: Timeouts;
  /** Tries per zip when a failure may pass (a cut connection, a timeout, a 5xx); default 3. */
  attempts?: number;
  /** Wait before the second try (doubled before each later one); default 2 s. */
  retryDelayMs?: number;
}

export type TitleOutcome = 'ingested' | 'held' | 'not-published' | 'failed';

export interface FetchedTitle {
  releasePoint: string;
  /** As a user writes it: `1`, `5a`. */
  title: string;
  url: string;
  outcome: TitleOutcome;
  /** The zip's size, and what came over the network this time. */
  bytes?: number;
  transferred?: number;
  sections?: number;
  changedKeys?: number;
  /** What went wrong (failed), or why there is nothing (not-published). */
  detail?: string;
}

export interface FetchUscodeResult {
  releasePoints: string[];
  titles: FetchedTitle[];
  failed: number;
}

const megabytes = (n: number): string =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
const PROGRESS_EVERY_MS = 5_000;

export async function fetchUscode(raw: FetchUscodeRequest, deps: FetchUscodeDeps, log: Log = () => undefined): Promise<FetchUscodeResult> {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('; '));
  const req = parsed.data;
  const source = normalizeSource(req.source ?? OLRC_SOURCE);
  const which: ReleasePointChoice =
    req.releasePoint !== undefined
      ? { releasePoint: parseReleasePointId(req.releasePoint).id }
      : req.since !== undefined
        ? { since: parseReleasePointId(req.since).id }
        : { latest: true };
  const titles = req.titles?.length ? [...new Set(req.titles.map(titleCode))] : undefined;
  const options = { which, source, ...(titles && { titles }) };
  const timeouts = deps.timeouts ?? DEFAULT_TIMEOUTS;

  let pages: ReleasePointPages | null = null;
  if (needsPages(options)) {
    const current = parseCurrentReleasePoint(
      await fetchPage(deps.fetch, currentReleasePointUrl(source), timeouts),
      currentReleasePointUrl(source),
    );
    const prior = needsPriorList(which, current)
      ? parseReleasePointList(await fetchPage(deps.fetch, releasePointListUrl(source), timeouts), releasePointListUrl(source))
      : undefined;
    pages = { current, ...(prior && { prior }) };
    log(`${source}: current release point ${current.id}${current.lawDate ? ` (public law of ${current.lawDate})` : ''}`);
  }
  const work = selectWork(pages, options);

  const results: FetchedTitle[] = [];
  let changed = false;
  for (const [releasePoint, items] of groupByReleasePoint(work)) {
    log(`release point ${describe(releasePoint)}: ${items.length} title${items.length === 1 ? '' : 's'}`);
    for (const item of items) {
      const result = await fetchTitle(item, req.cacheDir, deps, timeouts, log);
      if (result.outcome === 'ingested' && (result.changedKeys ?? 0) > 0) changed = true;
      results.push(result);
    }
  }
  if (changed) await deps.afterIngest(log);

  const count = (o: TitleOutcome) => results.filter((r) => r.outcome === o).length;
  const transferred = results.reduce((n, r) => n + (r.transferred ?? 0), 0);
  log(
    `fetch uscode: ${count('ingested')} ingested, ${count('held')} already held, ${count('not-published')} not published, ` +
      `${count('failed')} failed; ${megabytes(transferred)} downloaded`,
  );
  return { releasePoints: [...new Set(work.map((w) => w.releasePoint.id))], titles: results, failed: count('failed') };
}

const describe = (rp: ReleasePoint): string => `${rp.id}${rp.lawDate ? ` (public law of ${rp.lawDate})` : ''}`;

function groupByReleasePoint(work: readonly WorkItem[]): Map<ReleasePoint, WorkItem[]> {
  const groups = new Map<ReleasePoint, WorkItem[]>();
  for (const item of work) groups.set(item.releasePoint, [...(groups.get(item.releasePoint) ?? []), item]);
  return groups;
}

async function fetchTitle(item: WorkItem, cacheDir: string, deps: FetchUscodeDeps, timeouts: Timeouts, log: Log): Promise<FetchedTitle> {
  const rp = item.releasePoint;
  const name = titleName(item.title);
  const base: FetchedTitle = { releasePoint: rp.id, title: name, url: item.url, outcome: 'failed' };
  const say = (line: string) => log(`  title ${name}: ${line}`);

  const held = await deps.markers.getMarker(ingestedMarker(rp.id, item.title));
  if (held) {
    const record = JSON.parse(held) as IngestedRecord;
    say(`already ingested (${record.sections} sections, on ${record.ingestedAt.slice(0, 10)})`);
    return { ...base, url: record.url, outcome: 'held', bytes: record.bytes, sections: record.sections };
  }

  let zip: DownloadedZip;
  try {
    zip = await download(item, join(cacheDir, titleZipPath(rp, item.title)), deps, timeouts, say);
  } catch (err) {
    if (err instanceof PublisherError && err.failure === 'not-published' && !item.named) {
      say(`not published at ${rp.id} (${err.message})`);
      return { ...base, outcome: 'not-published', detail: err.message };
    }
    const detail = err instanceof Error ? err.message : String(err);
    say(`FAILED: ${detail}`);
    return { ...base, detail };
  }

  try {
    say(`ingesting ${zip.entry} (${megabytes(zip.xmlBytes)})`);
    const done = await ingestTitleZip(zip, { releasePoint: rp.id, title: item.title }, deps, (line) => log(`    ${line}`));
    return {
      ...base,
      url: zip.url,
      outcome: 'ingested',
      bytes: zip.bytes,
      transferred: zip.transferred,
      sections: done.sections,
      changedKeys: done.changedKeys,
    };
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    say(`FAILED: ${detail}`);
    return { ...base, url: zip.url, bytes: zip.bytes, transferred: zip.transferred, detail };
  }
}

async function download(item: WorkItem, file: string, deps: FetchUscodeDeps, timeouts: Timeouts, say: Log): Promise<DownloadedZip> {
  const attempts = deps.attempts ?? 3;
  let delay = deps.retryDelayMs ?? 2_000;
  for (let attempt = 1; ; attempt++) {
    let lastShown = Date.now();
    try {
      const zip = await downloadTitleZip({
        fetch: deps.fetch,
        url: item.url,
        file,
        title: item.title,
        timeouts,
        now: deps.now,
        log: say,
        onProgress: (received, total) => {
          if (Date.now() - lastShown < PROGRESS_EVERY_MS) return;
          lastShown = Date.now();
          say(`${megabytes(received)}${total ? ` of ${megabytes(total)}` : ''}`);
        },
      });
      say(
        zip.transferred
          ? `${megabytes(zip.bytes)} downloaded${zip.resumedFrom ? ` (resumed at ${megabytes(zip.resumedFrom)})` : ''}, checked (${zip.entry})`
          : `in the sources cache (${megabytes(zip.bytes)}, checked)`,
      );
      return zip;
    } catch (err) {
      if (!(err instanceof PublisherError && err.transient) || attempt >= attempts) throw err;
      say(`${err.message}; trying again in ${delay / 1000} s (${attempt + 1} of ${attempts})`);
      await new Promise((done) => setTimeout(done, delay));
      delay *= 2;
    }
  }
}
