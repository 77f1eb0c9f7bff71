import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { startDynalite } from '#stores/dynamodb/dynalite.ts';
import { type TableKind, tableNames } from '#stores/dynamodb/tables.ts';
import type { SqliteDatabase } from '#stores/sqlite/database.ts';

/**
 * The upgrade of a data dir made before the embedded stores moved to SQLite (issue 30): its keys, meters, usage
 * records, ops state, filing-format records and law lived in dynalite's LevelDB (`dynamodb/`). At the first start of
 * this release they are copied, item by item, into the new SQLite files, once:
 *
 *  1. the SQLite files are built in `store.upgrading/` (removed first: a run cut off midway starts over);
 *  2. `store.upgrading/` is renamed `store/` (one rename: a data dir holds either no `store/` or a whole one);
 *  3. `dynamodb/` is renamed `dynamodb.before-sqlite/` (kept for a way back; nothing reads it again).
 *
 * A start that finds `dynamodb/` and no `store/` (re)does the upgrade; one that finds both finishes step 3. The
 * search index (`search/`) and the case-law replica (`postgres/`) were SQLite and PGlite already and stay as they are.
 */

/** The tables of the old layout (the names the embedded stores gave them). */
const OLD_TABLES = tableNames('asof');
const SCAN_PAGE = 500;
const PROGRESS_EVERY_MS = 2_000;

/** What takes the items of one old table: each importer writes those it recognizes and says how many. */
export interface ItemImporter {
  name: string;
  db: SqliteDatabase;
  tables: readonly TableKind[];
  importItems(db: SqliteDatabase, table: TableKind, items: readonly Record<string, unknown>[]): number;
}

export interface UpgradeReport {
  /** Items read from each old table, and how many of them no importer took (they are not carried over). */
  tables: Record<TableKind, { items: number; imported: number; unrecognized: number }>;
  ms: number;
}

export const STORE_DIR = 'store';
const UPGRADING_DIR = 'store.upgrading';
const OLD_DIR = 'dynamodb';
const KEPT_OLD_DIR = 'dynamodb.before-sqlite';

/** Whether this data dir still holds the old layout and must be upgraded before its stores open. */
export function needsUpgrade(dataDir: string): boolean {
  return existsSync(join(dataDir, OLD_DIR));
}

/**
 * Upgrades the data dir if it holds the old layout; null when there was nothing to do. `openStores(dir)` opens the
 * new SQLite files in `dir` and returns the importers on them (closed by the returned `close`).
 */
export async function upgradeDataDir(
  dataDir: string,
  openStores: (dir: string) => { importers: ItemImporter[]; close(): void },
  log: (line: string) => void,
): Promise<UpgradeReport | null> {
  const old = join(dataDir, OLD_DIR);
  if (!existsSync(old)) return null;
  const store = join(dataDir, STORE_DIR);
  if (existsSync(store)) {
    // Step 3 was cut off: the new files are whole.
    await rename(old, join(dataDir, KEPT_OLD_DIR));
    return null;
  }
  const started = Date.now();
  const upgrading = join(dataDir, UPGRADING_DIR);
  await rm(upgrading, { recursive: true, force: true });
  log(`asof: upgrading ${dataDir} to SQLite stores: copying the keys, meters, ops state and law from ${old}`);
  const dynalite = await startDynalite({ path: old }).catch((err: unknown) => {
    throw new Error(`cannot open ${old} to upgrade it: is an older asof still serving this data dir? (${(err as Error).message})`, {
      cause: err,
    });
  });
  const doc = createDocumentClient(dynalite.access);
  const opened = openStores(upgrading);
  let report: UpgradeReport;
  try {
    report = await copyTables(doc, opened.importers, log);
  } finally {
    opened.close();
    doc.destroy();
    await dynalite.close();
  }
  await rename(upgrading, store);
  await rename(old, join(dataDir, KEPT_OLD_DIR));
  report.ms = Date.now() - started;
  const moved = Object.entries(report.tables)
    .map(([table, t]) => `${t.imported.toLocaleString('en-US')} ${table} items`)
    .join(', ');
  log(`asof: upgraded in ${(report.ms / 1000).toFixed(1)} s: ${moved} moved across (the law too; nothing is re-read)`);
  for (const [table, t] of Object.entries(report.tables)) {
    if (t.unrecognized) log(`asof: upgrade: ${t.unrecognized} items of the old ${table} table were of no known kind and were left behind`);
  }
  log(`asof: the old store is kept in ${join(dataDir, KEPT_OLD_DIR)}; delete it once you no longer need the previous release`);
  return report;
}

async function copyTables(
  doc: ReturnType<typeof createDocumentClient>,
  importers: readonly ItemImporter[],
  log: (line: string) => void,
): Promise<UpgradeReport> {
  const tables = {} as UpgradeReport['tables'];
  let lastProgress = Date.now();
  for (const table of Object.keys(OLD_TABLES) as TableKind[]) {
    const counts = { items: 0, imported: 0, unrecognized: 0 };
    tables[table] = counts;
    const takers = importers.filter((i) => i.tables.includes(table));
    let start: ScanCommandOutput['LastEvaluatedKey'];
    do {
      const page = await scanPage(doc, OLD_TABLES[table], start);
      if (page === null) break; // the old data dir never had this table
      const items = page.Items ?? [];
      let taken = 0;
      for (const importer of takers) taken += importer.importItems(importer.db, table, items);
      counts.items += items.length;
      counts.imported += taken;
      counts.unrecognized += Math.max(0, items.length - taken);
      start = page.LastEvaluatedKey;
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        log(`asof: upgrading: ${counts.items.toLocaleString('en-US')} items of the ${table} table copied so far`);
      }
    } while (start);
  }
  return { tables, ms: 0 };
}

async function scanPage(
  doc: ReturnType<typeof createDocumentClient>,
  tableName: string,
  start: ScanCommandOutput['LastEvaluatedKey'],
): Promise<ScanCommandOutput | null> {
  try {
    return await doc.send(new ScanCommand({ TableName: tableName, Limit: SCAN_PAGE, ...(start && { ExclusiveStartKey: start }) }));
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException') return null;
    throw err;
  }
}
