import type { StoredFormatRecord } from './model.ts';

/** The validated filing-format records (some tens of items, each a few KB). */
export interface FormatStore {
  listRecords(): Promise<StoredFormatRecord[]>;
  /**
   * The rule versions the records were read from (pinnedRowsOf of each record), without reading the records: every
   * lookup of a rule asks for them, and the records themselves are much larger.
   */
  listPinnedRows(): Promise<string[]>;
  putRecord(stored: StoredFormatRecord): Promise<void>;
  deleteRecord(id: string): Promise<void>;
}
