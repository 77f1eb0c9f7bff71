/**
 * CourtListener's bulk-data CSV files into the replica, streamed: rows are parsed as they arrive and written in
 * batches, so a file of millions of rows never sits in memory.
 *
 * The files are PostgreSQL `COPY … TO` output of CourtListener's tables: CSV, UTF-8, a header row, `"` quotes and
 * `\` as the escape character (https://www.courtlistener.com/help/api/bulk-data/). Which table a file holds is read
 * from its name (`courts-…`, `dockets-…`, `opinion-clusters-…`, `opinions-…`, `citations-…`, `citation-map-…`,
 * as CourtListener names them) or, failing that, from its header. `.csv` and `.csv.gz` are read; CourtListener
 * publishes `.bz2`, which must be decompressed first (`bunzip2 -k`): Node has no bzip2.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import type { CaseLawStore, ReplicaBatch } from '#caselaw/ports.ts';
import { leadingDate as date } from '#shared/dates.ts';

export type BulkTable = 'courts' | 'dockets' | 'clusters' | 'opinions' | 'citations' | 'opinionsCited';

const BY_NAME: ReadonlyArray<[RegExp, BulkTable]> = [
  [/^citation[-_]map/, 'opinionsCited'],
  [/^citations?[-_]/, 'citations'],
  [/^opinion[-_]clusters/, 'clusters'],
  [/^opinions[-_]/, 'opinions'],
  [/^dockets[-_]/, 'dockets'],
  [/^courts[-_]/, 'courts'],
];

/** The columns that identify a table's header when the file name does not say. */
const BY_HEADER: ReadonlyArray<[string[], BulkTable]> = [
  [['cited_opinion_id', 'citing_opinion_id'], 'opinionsCited'],
  [['volume', 'reporter', 'page', 'cluster_id'], 'citations'],
  [['citation_count', 'precedential_status', 'docket_id'], 'clusters'],
  [['cluster_id', 'type'], 'opinions'],
  [['court_id', 'docket_number'], 'dockets'],
  [['full_name', 'citation_string'], 'courts'],
];

function tableOfFile(path: string): BulkTable | null {
  const name = basename(path).toLowerCase();
  return BY_NAME.find(([re]) => re.test(name))?.[1] ?? null;
}

function tableOfHeader(columns: readonly string[]): BulkTable | null {
  return BY_HEADER.find(([needed]) => needed.every((c) => columns.includes(c)))?.[1] ?? null;
}

/** The file's own date (`opinions-2024-05-06.csv`): the export's, which is what the data is current to. */
function dateOfFile(path: string): string | null {
  return /(\d{4}-\d{2}-\d{2})/.exec(basename(path))?.[1] ?? null;
}

type Row = Record<string, string>;
const text = (v: string | undefined) => v ?? '';
const int = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number.parseInt(v, 10));
const bool = (v: string | undefined) => v === 't' || v === 'true' || v === 'True';

function required(row: Row, column: string, line: number): number {
  const n = int(row[column]);
  if (n === null || !Number.isSafeInteger(n)) throw new Error(`line ${line}: ${column} must be an integer (got '${row[column] ?? ''}')`);
  return n;
}

/** One CSV row of `table` as replica rows. */
function rowToBatch(table: BulkTable, row: Row, line: number): ReplicaBatch {
  switch (table) {
    case 'courts':
      return {
        courts: [
          {
            id: text(row.id),
            fullName: text(row.full_name),
            shortName: text(row.short_name),
            citationString: text(row.citation_string),
            jurisdiction: text(row.jurisdiction),
            position: row.position ? Number(row.position) : null,
            startDate: date(row.start_date),
            endDate: date(row.end_date),
            inUse: row.in_use === undefined ? true : bool(row.in_use),
            url: text(row.url),
          },
        ],
      };
    case 'dockets':
      return {
        dockets: [
          {
            id: required(row, 'id', line),
            courtId: row.court_id || null,
            caseName: text(row.case_name),
            docketNumber: text(row.docket_number),
            slug: text(row.slug),
          },
        ],
      };
    case 'clusters':
      return {
        clusters: [
          {
            id: required(row, 'id', line),
            docketId: int(row.docket_id),
            courtId: null,
            caseName: text(row.case_name),
            caseNameFull: text(row.case_name_full),
            caseNameShort: text(row.case_name_short),
            dateFiled: date(row.date_filed),
            slug: text(row.slug),
            precedentialStatus: text(row.precedential_status),
            citationCount: int(row.citation_count) ?? 0,
            judges: text(row.judges),
          },
        ],
      };
    case 'opinions':
      return {
        opinions: [
          {
            id: required(row, 'id', line),
            clusterId: required(row, 'cluster_id', line),
            type: text(row.type),
            authorStr: text(row.author_str),
            downloadUrl: text(row.download_url),
          },
        ],
      };
    case 'citations':
      return {
        citations: [
          {
            clusterId: required(row, 'cluster_id', line),
            volume: text(row.volume),
            reporter: text(row.reporter),
            page: text(row.page),
            type: int(row.type) ?? 0,
          },
        ],
      };
    case 'opinionsCited':
      return {
        opinionsCited: [
          {
            citingOpinionId: required(row, 'citing_opinion_id', line),
            citedOpinionId: required(row, 'cited_opinion_id', line),
            depth: int(row.depth) ?? 1,
          },
        ],
      };
  }
}

export interface BulkFileReport {
  file: string;
  table: BulkTable;
  rows: number;
}

const BATCH_ROWS = 2_000;

function merge(into: Required<ReplicaBatch>, batch: ReplicaBatch): void {
  for (const [k, rows] of Object.entries(batch) as Array<[keyof ReplicaBatch, unknown[]]>) (into[k] as unknown[]).push(...rows);
}

const emptyBatch = (): Required<ReplicaBatch> => ({
  courts: [],
  dockets: [],
  clusters: [],
  citations: [],
  opinions: [],
  opinionsCited: [],
});

/** Streams one bulk file into the replica; returns what it read. Rows already there are updated in place (upserts). */
export async function loadBulkFile(store: CaseLawStore, path: string, onProgress?: (rows: number) => void): Promise<BulkFileReport> {
  let input: Readable = createReadStream(path);
  if (path.endsWith('.gz')) input = input.pipe(createGunzip());
  else if (path.endsWith('.bz2'))
    throw new Error(`${path}: decompress CourtListener's .bz2 files first (bunzip2 -k ${basename(path)}); Node has no bzip2`);
  const parser = input.pipe(
    parse({ columns: true, escape: '\\', quote: '"', bom: true, relax_column_count: false, skip_empty_lines: true }),
  );
  let table = tableOfFile(path);
  let rows = 0;
  let pending = emptyBatch();
  let pendingRows = 0;
  try {
    for await (const row of parser as AsyncIterable<Row>) {
      if (!table) {
        table = tableOfHeader(Object.keys(row));
        if (!table)
          throw new Error(
            `${path}: neither its name nor its header (${Object.keys(row).join(', ')}) says which CourtListener table it holds`,
          );
      }
      rows++;
      merge(pending, rowToBatch(table, row, rows + 1));
      if (++pendingRows >= BATCH_ROWS) {
        await store.write(pending);
        pending = emptyBatch();
        pendingRows = 0;
        onProgress?.(rows);
      }
    }
  } catch (err) {
    input.destroy();
    throw new Error(`${path}: ${(err as Error).message}`, { cause: err });
  }
  if (pendingRows) await store.write(pending);
  if (!table) throw new Error(`${path}: no rows`);
  return { file: path, table, rows };
}

/** Every file, courts first (then dockets, clusters, …), and the replica's dataAsOf moved to the newest file date. */
export async function loadBulkFiles(
  store: CaseLawStore,
  paths: readonly string[],
  log: (line: string) => void = () => undefined,
): Promise<BulkFileReport[]> {
  const order: BulkTable[] = ['courts', 'dockets', 'clusters', 'citations', 'opinions', 'opinionsCited'];
  const sorted = [...paths].sort(
    (a, b) => order.indexOf(tableOfFile(a) ?? 'opinionsCited') - order.indexOf(tableOfFile(b) ?? 'opinionsCited'),
  );
  const reports: BulkFileReport[] = [];
  for (const path of sorted) {
    const began = Date.now();
    const report = await loadBulkFile(store, path);
    log(
      `  ${basename(path)}: ${report.rows.toLocaleString('en-US')} ${report.table} rows in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    reports.push(report);
  }
  const newest = paths
    .map(dateOfFile)
    .filter((d): d is string => d !== null)
    .sort()
    .at(-1);
  if (newest) await store.setDataAsOf(newest);
  return reports;
}
