import { pinnedRowsOf, type StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { SqliteDatabase, SqliteSchema } from './database.ts';

/*
 * The filing-format records of law.sqlite: each record whole as JSON by its id, and one row per rule version it was
 * read from (pinnedRowsOf), so that isPinned (asked on every lookup of a rule) is one indexed point read whatever the
 * records hold. A put or delete changes the record and its pins in one transaction: they never disagree.
 */

export const FORMAT_STORE_SCHEMA: SqliteSchema = {
  name: 'law-formats',
  steps: [
    [
      'CREATE TABLE format_records (id TEXT PRIMARY KEY, stored TEXT NOT NULL) STRICT',
      'CREATE TABLE format_pins (pinned_row TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (pinned_row, id)) STRICT, WITHOUT ROWID',
      'CREATE INDEX format_pins_by_record ON format_pins (id)',
    ],
  ],
};

const SQL = {
  list: 'SELECT stored FROM format_records ORDER BY id',
  isPinned: 'SELECT 1 FROM format_pins WHERE pinned_row = ? LIMIT 1',
  putRecord: 'INSERT INTO format_records (id, stored) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET stored = excluded.stored',
  deleteRecord: 'DELETE FROM format_records WHERE id = ?',
  pin: 'INSERT INTO format_pins (pinned_row, id) VALUES (?, ?) ON CONFLICT DO NOTHING',
  unpinAll: 'DELETE FROM format_pins WHERE id = ?',
} as const;

/** The record and its pins, replacing what the store held under its id (the caller's transaction). */
function writeRecord(db: SqliteDatabase, stored: StoredFormatRecord): void {
  const id = stored.record.id;
  db.prepare(SQL.unpinAll).run(id);
  for (const row of new Set(pinnedRowsOf(stored.record))) db.prepare(SQL.pin).run(row, id);
  db.prepare(SQL.putRecord).run(id, JSON.stringify(stored));
}

export class SqliteFormatStore implements FormatStore {
  constructor(private readonly db: SqliteDatabase) {}

  async listRecords(): Promise<StoredFormatRecord[]> {
    const texts = this.db.read(() => this.db.prepare(SQL.list).pluck().all() as string[]);
    return texts.map((text) => JSON.parse(text) as StoredFormatRecord);
  }

  async isPinned(row: string): Promise<boolean> {
    return this.db.read(() => this.db.prepare(SQL.isPinned).get(row) !== undefined);
  }

  async putRecord(stored: StoredFormatRecord): Promise<void> {
    this.db.write(() => writeRecord(this.db, stored));
  }

  async deleteRecord(id: string): Promise<void> {
    this.db.write(() => {
      this.db.prepare(SQL.unpinAll).run(id);
      this.db.prepare(SQL.deleteRecord).run(id);
    });
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A record item as DynamoFormatStore wrote it (pk 'format-records', sk its id, { stored }), or null. */
function recordOf(item: Record<string, unknown>): StoredFormatRecord | null {
  if (item.pk !== 'format-records' || typeof item.sk !== 'string' || !isObject(item.stored)) return null;
  const record = item.stored.record;
  if (!isObject(record) || record.id !== item.sk || typeof record.jurisdiction !== 'string' || !Array.isArray(record.rules)) return null;
  return item.stored as unknown as StoredFormatRecord;
}

/**
 * Whether an item of the old `ops` table is one of DynamoFormatStore's pin items ('format-pins', 'format-pinned'):
 * not copied by importDynamoItems but written again from the records it takes, so an upgrade counts them as carried
 * over (rebuilt), not as items of no known kind.
 */
export function isRebuiltDynamoItem(table: 'versions' | 'accounts' | 'meters' | 'ops', item: Record<string, unknown>): boolean {
  return table === 'ops' && (item.pk === 'format-pins' || item.pk === 'format-pinned');
}

/**
 * Writes the format records of a page scanned from the old `ops` table (document-client items, as DynamoFormatStore
 * wrote them) into law.sqlite, in one transaction, and returns how many it took. Only the record items are taken:
 * a record's pins are written from the record itself, as putRecord writes them, so the old table's pin items
 * ('format-pins', 'format-pinned', which a put cut off midway may have left ahead of its record) are not read; nor
 * are the ops store's items beside them. A page imported again changes nothing.
 */
export function importDynamoItems(
  db: SqliteDatabase,
  table: 'versions' | 'accounts' | 'meters' | 'ops',
  items: readonly Record<string, unknown>[],
): number {
  if (table !== 'ops') return 0;
  const records = items.map(recordOf).filter((stored) => stored !== null);
  if (records.length) {
    db.write(() => {
      for (const stored of records) writeRecord(db, stored);
    });
  }
  return records.length;
}
