import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#stores/dynamodb/client.ts';
import { checkLevelDbFree, LevelDbLockedError, type RunningDynalite, startDynalite } from '#stores/dynamodb/dynalite.ts';
import { type TableKind, tableNames } from '#stores/dynamodb/tables.ts';
import type { SqliteDatabase } from '#stores/sqlite/database.ts';
import { OLD_LAYOUT_DIR, STORE_DIR } from './store-layout.ts';

/**
 * The upgrade of a data dir made before the embedded stores moved to SQLite (issue 30): its keys, meters, usage
 * records, ops state, filing-format records and law lived in dynalite's LevelDB (`dynamodb/`). At the first start of
 * this release they are copied, item by item, into the new SQLite files, once:
 *
 *  1. the SQLite files are built in `store.upgrading/` (removed first: a run cut off midway starts over);
 *  2. `store.upgrading/` is renamed `store/` (one rename: a data dir holds either no `store/` or a whole one);
 *  3. `dynamodb/` is renamed `dynamodb.before-sqlite/` (kept for a way back; nothing reads it again).
 *
 * A start that finds `dynamodb/` and no `store/` (re)does the upgrade; one that finds both finishes step 3. Nothing is
 * touched while another process holds the old LevelDB (an older asof still serving the data dir). The
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
  /** Items it does not copy because it writes them again from others it takes (the format records' pin items). */
  rebuilt?(table: TableKind, item: Record<string, unknown>): boolean;
}

export interface UpgradeReport {
  /**
   * Items read from each old table: copied, rebuilt from copied ones (not copied themselves), and of no kind any
   * importer knows (not carried over).
   */
  tables: Record<TableKind, { items: number; imported: number; rebuilt: number; unrecognized: number }>;
  ms: number;
}

const UPGRADING_DIR = `${STORE_DIR}.upgrading`;
const KEPT_OLD_DIR = `${OLD_LAYOUT_DIR}.before-sqlite`;

/**
 * Upgrades the data dir if it holds the old layout; null when there was nothing to do. `openStores(dir)` opens the
 * new SQLite files in `dir` and returns the importers on them (closed by the returned `close`).
 */
export async function upgradeDataDir(
  dataDir: string,
  openStores: (dir: string) => { importers: ItemImporter[]; close(): void },
  log: (line: string) => void,
): Promise<UpgradeReport | null> {
  const old = join(dataDir, OLD_LAYOUT_DIR);
  if (!existsSync(old)) return null;
  const store = join(dataDir, STORE_DIR);
  if (existsSync(store)) {
    // Step 3 was cut off: the new files are whole. Not under a process still writing the old LevelDB, though.
    await checkLevelDbFree(old).catch((err: unknown) => {
      throw lockedFailure(old, err);
    });
    const kept = await keepOld(dataDir);
    log(`asof: finished the upgrade of ${dataDir} to SQLite stores: the old store is kept in ${kept}`);
    return null;
  }
  const started = Date.now();
  const upgrading = join(dataDir, UPGRADING_DIR);
  // The old LevelDB is opened (and its lock taken) before anything else is touched: a data dir an older asof still
  // serves is left exactly as it is, and of two new processes starting at once the second does not remove the
  // first one's `store.upgrading/` under it.
  let dynalite: RunningDynalite;
  try {
    dynalite = await startDynalite({ path: old });
  } catch (err) {
    throw lockedFailure(old, err);
  }
  let report: UpgradeReport;
  try {
    log(`asof: upgrading ${dataDir} to SQLite stores: copying the keys, meters, ops state and law from ${old}`);
    await rm(upgrading, { recursive: true, force: true });
    // SQLite creates its files, not their folder.
    await mkdir(upgrading, { recursive: true, mode: 0o700 });
    const doc = createDocumentClient(dynalite.access);
    try {
      const opened = openStores(upgrading);
      try {
        report = await copyTables(doc, opened.importers, log);
      } finally {
        opened.close();
      }
    } finally {
      doc.destroy();
    }
  } finally {
    await dynalite.close();
  }
  await rename(upgrading, store);
  await syncDir(dataDir);
  const kept = await keepOld(dataDir);
  report.ms = Date.now() - started;
  const moved = Object.entries(report.tables)
    .map(
      ([table, t]) =>
        `${t.imported.toLocaleString('en-US')} ${table} items${t.rebuilt ? ` (and ${t.rebuilt.toLocaleString('en-US')} rebuilt)` : ''}`,
    )
    .join(', ');
  log(`asof: upgraded in ${(report.ms / 1000).toFixed(1)} s: ${moved} moved across (the law moved across too: nothing is re-read)`);
  for (const [table, t] of Object.entries(report.tables)) {
    if (t.unrecognized) log(`asof: upgrade: ${t.unrecognized} items of the old ${table} table were of no known kind and were left behind`);
  }
  log(`asof: the old store is kept in ${kept}; delete it once you no longer need the previous release`);
  return report;
}

/** The error of an old LevelDB that could not be opened, saying the likely cause when it is the lock. */
function lockedFailure(old: string, err: unknown): Error {
  const why =
    err instanceof LevelDbLockedError
      ? 'another process holds its lock: is an older asof still serving this data dir? Stop it and start again'
      : (err as Error).message;
  return new Error(`cannot open ${old} to upgrade it: ${why} (nothing was changed)`, { cause: err });
}

/**
 * Step 3: `dynamodb/` to `dynamodb.before-sqlite/`, or to the first free `dynamodb.before-sqlite-N/` when that is
 * taken (a data dir that went back to the previous release after an upgrade, which made a new `dynamodb/`, and came
 * forward again: a rename onto a folder that holds files fails). Returns the path it was kept at.
 */
async function keepOld(dataDir: string): Promise<string> {
  let kept = join(dataDir, KEPT_OLD_DIR);
  for (let n = 2; existsSync(kept); n++) kept = join(dataDir, `${KEPT_OLD_DIR}-${n}`);
  await rename(join(dataDir, OLD_LAYOUT_DIR), kept);
  await syncDir(dataDir);
  return kept;
}

/**
 * The data dir's entries made durable (fsync of the directory): the rename to `store/` is on disk before the old store
 * is renamed away, so that a power cut between the two leaves the state a next start finishes, never the reverse.
 */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function copyTables(
  doc: ReturnType<typeof createDocumentClient>,
  importers: readonly ItemImporter[],
  log: (line: string) => void,
): Promise<UpgradeReport> {
  const tables = {} as UpgradeReport['tables'];
  let lastProgress = Date.now();
  for (const table of Object.keys(OLD_TABLES) as TableKind[]) {
    const counts = { items: 0, imported: 0, rebuilt: 0, unrecognized: 0 };
    tables[table] = counts;
    const takers = importers.filter((i) => i.tables.includes(table));
    let start: ScanCommandOutput['LastEvaluatedKey'];
    do {
      const page = await scanPage(doc, OLD_TABLES[table], start);
      if (page === null) break; // the old data dir never had this table
      const items = page.Items ?? [];
      let taken = 0;
      for (const importer of takers) taken += importer.importItems(importer.db, table, items);
      const rebuilt = items.filter((item) => takers.some((i) => i.rebuilt?.(table, item))).length;
      counts.items += items.length;
      counts.imported += taken;
      counts.rebuilt += rebuilt;
      counts.unrecognized += Math.max(0, items.length - taken - rebuilt);
      start = page.LastEvaluatedKey;
      if (start && Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        log(`asof: upgrading: ${counts.items.toLocaleString('en-US')} items of the ${table} table copied so far`);
      }
    } while (start);
    const rebuilt = counts.rebuilt ? `, ${counts.rebuilt.toLocaleString('en-US')} rebuilt from them` : '';
    log(
      `asof: upgrading: the ${table} table copied (${counts.imported.toLocaleString('en-US')} of ${counts.items.toLocaleString('en-US')} items${rebuilt})`,
    );
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
