import type { StoredFormatRecord } from '#formats/model.ts';
import type { FormatStore } from '#formats/ports.ts';
import type { ChangeStamps } from './change-stamps.ts';
import { StampedCache } from './stamped-cache.ts';

/** The few format records from memory while their table has not changed (lookups of rules read them for `topics`). */
export class CachingFormatStore implements FormatStore {
  private readonly all: StampedCache<'all', StoredFormatRecord[]>;
  private readonly pins: StampedCache<'pins', string[]>;

  constructor(
    private readonly base: FormatStore,
    options: { stamps: ChangeStamps; table: string },
  ) {
    this.all = new StampedCache(
      () => options.stamps.stamp(options.table),
      1,
      () => 1,
    );
    this.pins = new StampedCache(
      () => options.stamps.stamp(options.table),
      1,
      () => 1,
    );
  }

  listPinnedRows(): Promise<string[]> {
    return this.pins.through('pins', () => this.base.listPinnedRows());
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
