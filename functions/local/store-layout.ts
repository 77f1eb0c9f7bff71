import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a data dir keeps its SQLite stores, and the folder of the layout before them (dynalite's LevelDB). Apart from
 * the upgrade (upgrade-data-dir.ts) so that a start can tell whether it needs the upgrade without loading it.
 */
export const STORE_DIR = 'store';
export const OLD_LAYOUT_DIR = 'dynamodb';

/** Whether this data dir still holds the old layout and must be upgraded before its stores open. */
export const holdsOldLayout = (dataDir: string): boolean => existsSync(join(dataDir, OLD_LAYOUT_DIR));
