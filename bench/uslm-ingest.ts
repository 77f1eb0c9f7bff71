/**
 * USLM ingest on real files: OLRC's US Code titles (by default the 35 the repo carries, data/uslm/olrc; any
 * directory of OLRC zips or USLM XML, such as a full download, can be given). Each run is a child process of its own
 * (bench/ingest-worker.ts: openLocalStores → runIngest, as `asof ingest` runs it), so its peak RSS is its own:
 *
 *   1. the baseline: the USLM reader alone on the same files, no store (bench/uslm-parse-child.ts);
 *   2. a first load of every file the reader accepts into a fresh data dir, then coverage and audit;
 *   3. the same ingest again on that data dir: nothing changed, nothing to write;
 *   4. the largest and the smallest title alone, each into a fresh data dir: peak RSS must not grow with a title's size;
 *   5. the same past the largest real title: synthetic titles of growing size (bench/synthetic-uslm.ts), each alone.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { IngestWorkerResult } from './ingest-worker.ts';
import { REPO, runNode } from './proc.ts';
import { readSampleCorpus } from './sample-corpus.ts';
import { textPool, writeSyntheticEdition } from './synthetic-uslm.ts';
import type { ParseChildResult } from './uslm-parse-child.ts';

const run = promisify(execFile);

export const DEFAULT_USLM_DIR = join(REPO, 'data', 'uslm', 'olrc');

export interface UslmFile {
  /** The file as found (a zip, or an XML file). */
  found: string;
  /** The XML ingested (unpacked from the zip into a temp dir). */
  xml: string;
  xmlBytes: number;
  sections: number;
  parseMs: number;
  /** Why the reader refuses the file (it is then left out of the ingest), or null. */
  refused: string | null;
}

export interface UslmIngestRun {
  worker: IngestWorkerResult;
  /** Version items written (puts). */
  versions: number;
  xmlBytes: number;
}

export interface UslmIngestFigures {
  /** The directory given, relative to the repo when inside it. */
  dir: string;
  /** The machine's 1, 5 and 15 minute load averages when the section began (the wall times depend on them). */
  loadAverage?: number[];
  zips: number;
  unzipMs: number;
  files: UslmFile[];
  /** The baseline: the reader alone over every accepted file, one process. */
  parse: { ms: number; sections: number; xmlBytes: number; peakRssBytes: number };
  firstLoad: UslmIngestRun;
  rerun: UslmIngestRun;
  /** The largest and the smallest accepted file, each alone into a fresh data dir, beside the reader alone on it. */
  single: (UslmIngestRun & { which: 'largest' | 'smallest'; file: string; parsePeakRssBytes: number })[];
  /** Synthetic titles of growing size, one edition each, each alone into a fresh data dir. */
  growing?: (UslmIngestRun & { sections: number })[];
}

/** Sections of the synthetic titles of step 5 (1.48 MB of XML a thousand): about 1×, 4× and 16× the largest real title carried (4.1 MB). */
export const GROWING_SECTIONS = [3_000, 12_000, 48_000];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.(zip|xml)$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Every USLM XML of the zips (OLRC packs one title per zip, or all titles in one), unpacked into `into`. */
async function unpack(zip: string, into: string): Promise<string[]> {
  const dest = await mkdtemp(join(into, `${basename(zip, '.zip')}-`));
  try {
    await run('unzip', ['-q', '-o', zip, '*.xml', '-d', dest], { maxBuffer: 1 << 20 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT')
      throw new Error('the USLM ingest benchmark unpacks OLRC zips with `unzip`: install it (apt-get install unzip)');
    throw new Error(`unzip ${zip}: ${e.message}`);
  }
  return filesUnder(dest);
}

async function worker(
  input: { dataDir: string; files: string[]; after: boolean },
  log: (line: string) => void,
): Promise<IngestWorkerResult> {
  const { stdout } = await runNode(
    ['--import', 'tsx', join('bench', 'ingest-worker.ts'), JSON.stringify({ ...input, retrievedAt: '2026-11-24T00:00:00.000Z' })],
    { onStderrLine: (l) => (/^\s+ingest: /.test(l) ? undefined : log(l)) },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the ingest worker printed no result:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as IngestWorkerResult;
}

async function parseChild(files: string[]): Promise<ParseChildResult> {
  const { stdout } = await runNode(['--import', 'tsx', join('bench', 'uslm-parse-child.ts'), JSON.stringify(files)]);
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the USLM reader child printed no result:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as ParseChildResult;
}

const versionsOf = (w: IngestWorkerResult) => w.editions.reduce((n, e) => n + e.puts, 0);
const mbps = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(2);

export async function uslmIngestFigures(dirArg: string, log: (line: string) => void): Promise<UslmIngestFigures> {
  const dir = resolve(dirArg);
  const loadAverage = loadavg();
  const temp = await mkdtemp(join(tmpdir(), 'asof-bench-uslm-'));
  try {
    const found = await filesUnder(dir);
    if (!found.length) throw new Error(`no .zip or .xml file under ${dir}`);
    const t = performance.now();
    const pairs: { found: string; xml: string }[] = [];
    for (const f of found) {
      if (f.toLowerCase().endsWith('.xml')) pairs.push({ found: f, xml: f });
      else for (const xml of await unpack(f, temp)) pairs.push({ found: f, xml });
    }
    const unzipMs = performance.now() - t;
    const zips = found.filter((f) => f.toLowerCase().endsWith('.zip')).length;
    log(`  ${found.length} files (${zips} zips, unpacked in ${(unzipMs / 1000).toFixed(1)} s) → ${pairs.length} USLM XML files`);

    const parsed = await parseChild(pairs.map((p) => p.xml));
    const files: UslmFile[] = await Promise.all(
      pairs.map(async (p, i) => {
        const r = parsed.files[i]!;
        // The reader names the unpacked file: name the file found instead.
        const refused = r.error === null ? null : r.error.replaceAll(`${p.xml}: `, '').replaceAll(p.xml, basename(p.found));
        return { ...p, xmlBytes: (await stat(p.xml)).size, sections: r.sections, parseMs: r.ms, refused };
      }),
    );
    const accepted = files.filter((f) => !f.refused);
    for (const f of files.filter((x) => x.refused)) log(`  refused by the reader, left out: ${basename(f.found)}: ${f.refused}`);
    if (!accepted.length) throw new Error('the USLM reader accepts none of the files');
    const xmlBytes = accepted.reduce((n, f) => n + f.xmlBytes, 0);
    const parse = {
      ms: accepted.reduce((n, f) => n + f.parseMs, 0),
      sections: accepted.reduce((n, f) => n + f.sections, 0),
      xmlBytes,
      peakRssBytes: parsed.peakRssBytes,
    };
    log(
      `  the reader alone: ${accepted.length} files, ${(xmlBytes / 1e6).toFixed(1)} MB of XML, ${parse.sections} sections in ${(parse.ms / 1000).toFixed(1)} s: ${mbps(xmlBytes, parse.ms)} MB/s`,
    );

    const dataDir = join(temp, 'data');
    const xmls = accepted.map((f) => f.xml);
    const first = await worker({ dataDir, files: xmls, after: true }, log);
    const firstLoad = { worker: first, versions: versionsOf(first), xmlBytes };
    log(
      `  first load: ${firstLoad.versions} versions in ${(first.ingestMs / 1000).toFixed(1)} s: ${mbps(xmlBytes, first.ingestMs)} MB/s, ` +
        `${(firstLoad.versions / (first.ingestMs / 1000)).toFixed(0)} versions/s; peak RSS ${((first.peakRssAfterIngestBytes ?? 0) / 2 ** 20).toFixed(0)} MiB; audit ${first.auditSummary}`,
    );
    const again = await worker({ dataDir, files: xmls, after: false }, log);
    const rerun = { worker: again, versions: versionsOf(again), xmlBytes };
    log(
      `  unchanged re-run: ${rerun.versions} versions written in ${(again.ingestMs / 1000).toFixed(1)} s: ${mbps(xmlBytes, again.ingestMs)} MB/s; ` +
        `${again.editions.filter((e) => e.unchanged).length} of ${again.editions.length} editions skipped as unchanged`,
    );

    const bySize = [...accepted].sort((a, b) => a.xmlBytes - b.xmlBytes);
    const single: UslmIngestFigures['single'] = [];
    for (const [which, f] of [
      ['largest', bySize.at(-1)!],
      ['smallest', bySize[0]!],
    ] as const) {
      const w = await worker({ dataDir: join(temp, `data-${which}`), files: [f.xml], after: false }, log);
      const alone = await parseChild([f.xml]);
      single.push({
        which,
        file: f.found,
        worker: w,
        versions: versionsOf(w),
        xmlBytes: f.xmlBytes,
        parsePeakRssBytes: alone.peakRssBytes,
      });
      log(
        `  ${which} title alone (${basename(f.found)}, ${(f.xmlBytes / 1e6).toFixed(2)} MB): ${mbps(f.xmlBytes, w.ingestMs)} MB/s, ` +
          `peak RSS ${((w.peakRssAfterIngestBytes ?? 0) / 2 ** 20).toFixed(0)} MiB (reader alone ${(alone.peakRssBytes / 2 ** 20).toFixed(0)} MiB)`,
      );
    }
    const pool = textPool(await readSampleCorpus());
    const growing: NonNullable<UslmIngestFigures['growing']> = [];
    for (const sections of GROWING_SECTIONS) {
      const edition = await writeSyntheticEdition(pool, join(temp, `synthetic-${sections}.xml`), sections);
      const w = await worker({ dataDir: join(temp, `data-synthetic-${sections}`), files: [edition.file], after: false }, log);
      growing.push({ sections, worker: w, versions: versionsOf(w), xmlBytes: edition.bytes });
      await rm(edition.file, { force: true });
      log(
        `  synthetic title of ${sections} sections (${(edition.bytes / 1e6).toFixed(1)} MB): ${mbps(edition.bytes, w.ingestMs)} MB/s, ` +
          `peak RSS ${((w.peakRssAfterIngestBytes ?? 0) / 2 ** 20).toFixed(0)} MiB, peak heap ${((w.peakHeapDuringIngestBytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
      );
    }
    const shown = dir.startsWith(`${REPO}/`) ? dir.slice(REPO.length + 1) : dir;
    return { dir: shown, loadAverage, zips, unzipMs, files, parse, firstLoad, rerun, single, growing };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
