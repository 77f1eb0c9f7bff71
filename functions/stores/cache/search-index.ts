import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import type { WriteTracker } from './change-stamps.ts';
import { StampedCache } from './stamped-cache.ts';

export interface CachingSearchIndexOptions {
  /** The index is written only through this object, which announces its writes here. */
  tracker: WriteTracker;
  table: string;
  /** Budget in bytes for cached result lists. Default 16 MiB. */
  maxBytes?: number;
}

const hitBytes = (hits: SearchHit[]): number => 256 + hits.reduce((n, h) => n + 2 * (h.snippet.length + h.catchline.length) + 1024, 0);

/**
 * A SearchIndex that keeps the results of repeated queries until the index changes: the answer to the same query
 * against the same index is the same list. (OpenSearch's request cache does the same, invalidated on refresh.)
 * Only for an index written by nobody else: its writes pass through here and move the stamp.
 */
export class CachingSearchIndex implements SearchIndex {
  private readonly results: StampedCache<string, SearchHit[]>;
  private readonly tracker: WriteTracker;
  private readonly table: string;

  constructor(
    private readonly base: SearchIndex,
    options: CachingSearchIndexOptions,
  ) {
    this.tracker = options.tracker;
    this.table = options.table;
    this.results = new StampedCache(() => this.tracker.stamp(this.table), options.maxBytes ?? 16 * 1024 * 1024, hitBytes);
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    const key = JSON.stringify([query.q, query.jurisdictions, query.corpus, query.asOf, query.limit]);
    return this.results.through(key, () => this.base.search(query));
  }

  upsert(docs: readonly SearchDocument[]): Promise<void> {
    return this.tracker.around(this.table, () => this.base.upsert(docs));
  }

  setValidTo(id: string, validTo: string): Promise<void> {
    return this.tracker.around(this.table, () => this.base.setValidTo(id, validTo));
  }

  remove(ids: readonly string[]): Promise<void> {
    return this.tracker.around(this.table, () => this.base.remove(ids));
  }

  refresh(): Promise<void> {
    return this.base.refresh();
  }

  count(): Promise<number> {
    return this.base.count();
  }

  ping(): Promise<void> {
    return this.base.ping();
  }
}
