import type { StoredFormatRecord } from './model.ts';

/** The validated filing-format records. A handful of small items: reads return them all. */
export interface FormatStore {
  listRecords(): Promise<StoredFormatRecord[]>;
  putRecord(stored: StoredFormatRecord): Promise<void>;
  deleteRecord(id: string): Promise<void>;
}
