import type { StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { ChangeStamps } from './change-stamps.ts';
import { StampedCache } from './stamped-cache.ts';

/** Bytes an answer of isPinned is counted for (its row, some 100 characters, and the map's own entry). */
const PINNED_ENTRY_BYTES = 256;

/** The few format records from memory while their table has not changed (lookups of rules read them for `topics`). */
export class CachingFormatStore implements FormatStore {
  private readonly all: StampedCache<'all', StoredFormatRecord[]>;
  private readonly pinned: StampedCache<string, boolean>;

  constructor(
    private readonly base: FormatStore,
    options: { stamps: ChangeStamps; table: string },
  ) {
    this.all = new StampedCache(
      () => options.stamps.stamp(options.table),
      1,
      () => 1,
    );
    this.pinned = new StampedCache(
      () => options.stamps.stamp(options.table),
      1024 * 1024,
      () => PINNED_ENTRY_BYTES,
    );
  }

  isPinned(row: string): Promise<boolean> {
    return this.pinned.through(row, () => this.base.isPinned(row));
  }

  listRecords(): Promise<StoredFormatRecord[]> {
    return this.all.through('all', () => this.base.listRecords());
  }

  putRecord(stored: StoredFormatRecord): Promise<void> {
    return this.base.putRecord(stored);
  }

  deleteRecord(id: string): Promise<void> {
    return this.base.deleteRecord(id);
  }
}
