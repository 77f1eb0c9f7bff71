/**
 * `asof fetch state-code <st>`: a state's title files from a source in the publisher's layout (see formats.ts), then
 * ingested. The source is a folder (a clone of UniCourt's repository, or data/states) or an http(s) address that
 * serves the layout (by default the repository's raw files at the commit the configuration names). Files read from
 * an address are kept in the data dir's sources cache (`<cache>/transforms/<st>/…`, written whole or not at all), so
 * a re-run reads nothing over the network and changes nothing; a file the address does not have is reported, the
 * rest are ingested.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IngestReport } from '../engine.ts';
import type { IngestRequest } from '../jobs.ts';
import { DEFAULT_TIMEOUTS, type FetchLike, httpError, PublisherError, request, type Timeouts } from '../olrc/http.ts';
import { stateTitleFiles } from './editions.ts';
import { publisherSource, type StateCodeFormat, stateCodeFormat, titleFileOf, titleFilePath } from './formats.ts';

export interface FetchStateCodeRequest {
  state: string;
  /** A folder or an http(s) address in the publisher's layout; default: the publisher's raw files (publisherSource). */
  source?: string;
  /** The data dir's sources cache (absolute). */
  cacheDir: string;
  /** Release numbers (default: every release the configuration lists). */
  releases?: number[];
  /** Title codes as the files name them (`01`, `87`; default: the configuration's default titles). */
  titles?: string[];
}

export interface FetchStateCodeDeps {
  fetch: FetchLike;
  ingest: (request: IngestRequest, log: (line: string) => void) => Promise<IngestReport[]>;
  afterIngest: (log: (line: string) => void) => Promise<unknown>;
  timeouts?: Timeouts;
}

export interface FetchStateCodeResult {
  state: string;
  source: string;
  /** Title files ingested. */
  files: number;
  /** Read over the network in this run (0 from a folder, or when the cache had them). */
  downloaded: number;
  /** Files the source does not have (`r72/gov.tn.tca.title.39.html`). */
  missing: string[];
  /** Files that could not be fetched, and why; a re-run tries them again. */
  failed: { file: string; error: string }[];
  editions: number;
  changedEditions: number;
}

const isAddress = (source: string) => /^https?:\/\//i.test(source);
const kilobytes = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

/** Which of a folder's title files are asked for. */
function wanted(format: StateCodeFormat, req: FetchStateCodeRequest, file: string): boolean {
  const named = titleFileOf(format, file);
  if (!named) return false;
  if (req.releases && (named.release === null || !req.releases.includes(named.release))) return false;
  return !req.titles || req.titles.includes(named.title);
}

export async function fetchStateCode(
  req: FetchStateCodeRequest,
  deps: FetchStateCodeDeps,
  log: (line: string) => void = () => undefined,
): Promise<FetchStateCodeResult> {
  const format = stateCodeFormat(req.state);
  const source = (req.source ?? publisherSource(format)).replace(/\/+$/, '');
  const result: FetchStateCodeResult = {
    state: format.state,
    source,
    files: 0,
    downloaded: 0,
    missing: [],
    failed: [],
    editions: 0,
    changedEditions: 0,
  };
  const files = isAddress(source)
    ? await download(format, req, source, deps, result, log)
    : (await stateTitleFiles(format, [source])).filter((f) => wanted(format, req, f));
  result.files = files.length;
  if (files.length === 0) {
    log(`${source}: no ${format.state} title file to ingest`);
    return result;
  }
  log(`${format.state}: ingesting ${files.length} title file(s)`);
  const reports = await deps.ingest({ kind: 'state-code', state: format.state, paths: files }, log);
  result.editions = reports.length;
  result.changedEditions = reports.filter((r) => !r.unchanged && r.changedKeys + r.absentKeys > 0).length;
  if (result.changedEditions > 0) await deps.afterIngest(log);
  return result;
}

async function download(
  format: StateCodeFormat,
  req: FetchStateCodeRequest,
  source: string,
  deps: FetchStateCodeDeps,
  result: FetchStateCodeResult,
  log: (line: string) => void,
): Promise<string[]> {
  const releases = req.releases ?? format.releases.map((r) => r.release);
  const titles = req.titles ?? [...format.defaultTitles];
  const files: string[] = [];
  let n = 0;
  const total = releases.length * titles.length;
  for (const release of releases) {
    for (const title of titles) {
      n++;
      const path = titleFilePath(format, release, title);
      const target = join(req.cacheDir, path);
      if (await stat(target).catch(() => null)) {
        files.push(target);
        continue;
      }
      try {
        const bytes = await fetchFile(deps, `${source}/${path}`, target);
        result.downloaded++;
        files.push(target);
        log(`  ${path}: ${kilobytes(bytes)} (${n}/${total})`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof PublisherError && err.failure === 'not-published') {
          result.missing.push(`r${release}/${path.split('/').at(-1)}`);
          log(`  ${path}: not at the source (${n}/${total})`);
        } else {
          result.failed.push({ file: path, error: message });
          log(`  ${path}: FAILED: ${message} (${n}/${total})`);
        }
      }
    }
  }
  return files;
}

/** One file into `target`, whole or not at all (also the scheduled sync's fetch step, functions/lambda/jobs/state-code-fetch-job.ts). */
export async function fetchFile(deps: Pick<FetchStateCodeDeps, 'fetch' | 'timeouts'>, url: string, target: string): Promise<number> {
  const answer = await request(deps.fetch, url, { accept: 'text/html' }, deps.timeouts ?? DEFAULT_TIMEOUTS);
  if (answer.response.status !== 200) {
    await answer.discard();
    throw httpError(url, answer.response);
  }
  const pieces: Uint8Array[] = [];
  for await (const piece of answer.body()) pieces.push(piece);
  const bytes = Buffer.concat(pieces);
  // A page that is not a title file (a portal's error page served with 200) is not kept.
  if (!bytes.includes('class="transformation"')) {
    throw new PublisherError(`${url}: not a title file of the publisher's (no release line)`, 'corrupt', false);
  }
  await mkdir(dirname(target), { recursive: true });
  const part = `${target}.part`;
  try {
    await writeFile(part, bytes);
    await rename(part, target);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
  return bytes.length;
}
