import type { StoredFormatRecord } from './model.ts';

/** The validated filing-format records (some tens of items, each a few KB). */
export interface FormatStore {
  listRecords(): Promise<StoredFormatRecord[]>;
  /**
   * Whether a stored record was read from this rule version (`row`: `${refId}#${contentHash}`, as pinnedRowsOf gives
   * it), without reading the records: every lookup of a rule asks, so it stays one small read however many there are.
   */
  isPinned(row: string): Promise<boolean>;
  putRecord(stored: StoredFormatRecord): Promise<void>;
  deleteRecord(id: string): Promise<void>;
}
