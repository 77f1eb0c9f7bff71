import { type Corpus, refId, type SectionRef, type SectionVersion, type VersionSummary } from '#law/model.ts';
import type { EditionRecord, KeyHistory, NearbyKey, StoreWrite, VersionStore } from '#law/ports.ts';
import { localDateOf } from '#shared/dates.ts';
import type { ChangeStamps } from './change-stamps.ts';
import { StampedCache } from './stamped-cache.ts';

export interface CachingVersionStoreOptions {
  /** Stamps of the table the store writes to. */
  stamps: ChangeStamps;
  table: string;
  /** Budget for section texts (bytes, approximately). Default 64 MiB. */
  maxTextBytes?: number;
  /** Budget for version lists and small answers. Default 16 MiB. */
  maxListBytes?: number;
}

const SUMMARY_BYTES = 400;

/** The version `findInForce` answers, chosen from a key's list exactly as the store chooses it. */
function inForce(timeline: readonly VersionSummary[], date: string): VersionSummary | null {
  let latest: VersionSummary | null = null;
  for (const v of timeline) if (localDateOf(v.validFrom) <= date) latest = v;
  return latest && date < localDateOf(latest.validTo) ? latest : null;
}

/**
 * A VersionStore that answers the lookup reads (`findInForce`, `listVersions`, `nearbyKeys`, `carries`) from memory
 * while the store has not changed, and passes everything else through. A lookup on a warm key costs no store call; on
 * a cold key, one listing (without texts) and one point read. Writes, ingest reads and whole-store scans go to the
 * store itself.
 */
export class CachingVersionStore implements VersionStore {
  private readonly stamp: () => number | null;
  private readonly timelines: StampedCache<string, VersionSummary[]>;
  private readonly texts: StampedCache<string, SectionVersion | null>;
  private readonly neighbours: StampedCache<string, NearbyKey[]>;
  private readonly carried: StampedCache<string, boolean>;

  constructor(
    private readonly base: VersionStore,
    options: CachingVersionStoreOptions,
  ) {
    this.stamp = () => options.stamps.stamp(options.table);
    const lists = options.maxListBytes ?? 16 * 1024 * 1024;
    this.timelines = new StampedCache(this.stamp, lists, (t) => 100 + t.length * SUMMARY_BYTES);
    this.texts = new StampedCache(this.stamp, options.maxTextBytes ?? 64 * 1024 * 1024, (v) =>
      v ? 2 * (v.bodyText.length + v.historyNote.length + v.catchline.length) + 1024 : 100,
    );
    this.neighbours = new StampedCache(this.stamp, lists / 4, (keys) => 100 + keys.reduce((n, k) => n + 2 * k.key.length + 200, 0));
    this.carried = new StampedCache(this.stamp, 1024 * 1024, () => 100);
  }

  async findInForce(ref: SectionRef, date: string): Promise<SectionVersion | null> {
    const readStart = this.stamp();
    if (readStart === null) return this.base.findInForce(ref, date);
    const chosen = inForce(await this.listVersions(ref), date);
    const version = chosen
      ? await this.texts.through(`${refId(ref)}@${chosen.validFrom}`, () => this.base.getVersion(ref, chosen.validFrom))
      : null;
    // The list and the text must describe one state of the store; if a write came between them, ask the store.
    const consistent = this.stamp() === readStart && (chosen === null || version?.validTo === chosen.validTo);
    return consistent ? version : this.base.findInForce(ref, date);
  }

  listVersions(ref: SectionRef): Promise<VersionSummary[]> {
    return this.timelines.through(refId(ref), () => this.base.listVersions(ref));
  }

  async nearbyKeys(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<string[]> {
    return (await this.nearbyKeySummaries(jurisdiction, corpus, key, limit)).map((near) => near.key);
  }

  nearbyKeySummaries(jurisdiction: string, corpus: Corpus, key: string, limit: number): Promise<NearbyKey[]> {
    return this.neighbours.through(`${jurisdiction}#${corpus}#${limit}#${key}`, () =>
      this.base.nearbyKeySummaries(jurisdiction, corpus, key, limit),
    );
  }

  carries(jurisdiction: string, corpus?: Corpus): Promise<boolean> {
    return this.carried.through(`${jurisdiction}#${corpus ?? '*'}`, () => this.base.carries(jurisdiction, corpus));
  }

  getVersion(ref: SectionRef, validFrom: string): Promise<SectionVersion | null> {
    return this.base.getVersion(ref, validFrom);
  }

  getSummaries(wanted: readonly { ref: SectionRef; validFrom: string }[]): Promise<(VersionSummary | null)[]> {
    return this.base.getSummaries(wanted);
  }

  getHistories(jurisdiction: string, corpus: Corpus, keys: readonly string[]): Promise<Map<string, KeyHistory>> {
    return this.base.getHistories(jurisdiction, corpus, keys);
  }

  historiesWithPrefix(jurisdiction: string, corpus: Corpus, prefix: string): AsyncIterable<KeyHistory> {
    return this.base.historiesWithPrefix(jurisdiction, corpus, prefix);
  }

  putHistory(history: KeyHistory): Promise<void> {
    return this.base.putHistory(history);
  }

  putHistories(histories: readonly KeyHistory[]): Promise<string[]> {
    return this.base.putHistories(histories);
  }

  applyWrites(writes: readonly StoreWrite[]): Promise<void> {
    return this.base.applyWrites(writes);
  }

  putEdition(edition: EditionRecord): Promise<void> {
    return this.base.putEdition(edition);
  }

  listEditions(collection: string): Promise<EditionRecord[]> {
    return this.base.listEditions(collection);
  }

  scanHistories(): AsyncIterable<KeyHistory> {
    return this.base.scanHistories();
  }

  scanVersions(): AsyncIterable<SectionVersion> {
    return this.base.scanVersions();
  }

  ping(): Promise<void> {
    return this.base.ping();
  }
}
