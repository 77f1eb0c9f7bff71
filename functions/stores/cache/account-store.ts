import type { AccountStore, ApiKeyRecord } from '#accounts/ports.ts';
import type { ChangeStamps } from './change-stamps.ts';
import { StampedCache } from './stamped-cache.ts';

export interface CachingAccountStoreOptions {
  stamps: ChangeStamps;
  table: string;
  /** Budget in bytes (an entry is about 1 KB). Default 8 MiB. */
  maxBytes?: number;
}

/**
 * An AccountStore that answers `findByHash` (the read behind every keyed request) from memory while the accounts
 * table has not changed. A key created, revoked or changed by anyone is seen at the next request: the write moves the
 * table's stamp. Unknown hashes are remembered too, so a repeated unknown key costs one store read per change.
 */
export class CachingAccountStore implements AccountStore {
  private readonly byHash: StampedCache<string, ApiKeyRecord | null>;

  constructor(
    private readonly base: AccountStore,
    options: CachingAccountStoreOptions,
  ) {
    this.byHash = new StampedCache(
      () => options.stamps.stamp(options.table),
      options.maxBytes ?? 8 * 1024 * 1024,
      () => 1024,
    );
  }

  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.byHash.through(hash, () => this.base.findByHash(hash));
  }

  createKey(record: ApiKeyRecord): Promise<void> {
    return this.base.createKey(record);
  }

  getById(id: string): Promise<ApiKeyRecord | null> {
    return this.base.getById(id);
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.base.listKeys();
  }

  revoke(id: string, at: string): Promise<ApiKeyRecord | null> {
    return this.base.revoke(id, at);
  }

  ping(): Promise<void> {
    return this.base.ping();
  }
}
