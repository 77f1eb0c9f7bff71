import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SearchDocument, SearchHit, SearchIndex, SearchQuery } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import { SqliteSearchIndex, type SqliteSearchIndexOptions } from './search-index.ts';

/**
 * The SQLite search index of a data dir, repaired without a restart: the index is derived data (every version it holds
 * is in the version store), so a file found damaged or gone (a StoreUnavailableError of reason `damaged`, raised by
 * sqlite-workers.ts) is set aside and rebuilt from the version store in the background, by the same build a first
 * start runs. One repair at a time, started by the damage seen, never by a request as such: while it runs, searches are
 * refused at once (503 with Retry-After) and writes wait for it; repairs start at most once per `spacingMs`, and a
 * failed one is tried again later, each time waiting twice as long (at most `maxBackoffMs`).
 */

export interface RepairOptions {
  /** How long after the damage is seen the rebuild starts. Default 0. */
  delayMs?: number;
  /** A rebuild starts at most this often: a file damaged again and again is not rebuilt in a loop. Default 10 s. */
  spacingMs?: number;
  /** The longest wait before another try after failed rebuilds. Default 5 minutes. */
  maxBackoffMs?: number;
}

/** Fills a new, empty index from the version store (functions/local/search-build.ts). */
export type Rebuild = (fresh: SqliteSearchIndex) => Promise<unknown>;

/** What the index's owner is told: damage was seen (a rebuild is due), a rebuild starts, the index answers again. */
export type RepairEvent = { kind: 'damaged'; error: StoreUnavailableError } | { kind: 'rebuilding' } | { kind: 'repaired'; ms: number };

const DEFAULTS: Required<RepairOptions> = { delayMs: 0, spacingMs: 10_000, maxBackoffMs: 300_000 };

/** Removes an index's file with its WAL and shared memory (which a new file would otherwise read), keeping its folder. */
async function removeIndexFiles(file: string): Promise<void> {
  await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true })));
  await mkdir(dirname(file), { recursive: true });
}

/**
 * Opens the index; one found damaged as it opens (say, while the server was stopped) is replaced by a new, empty one,
 * which its owner fills as on a first start (it is not marked built).
 */
async function openOrReplace(file: string, options: SqliteSearchIndexOptions, log: (line: string) => void): Promise<SqliteSearchIndex> {
  try {
    return await SqliteSearchIndex.open(file, options);
  } catch (err) {
    if (!isDamaged(err)) throw err;
    log(`asof: the search index is damaged or missing (${err.message}); making a new one`);
    await removeIndexFiles(file);
    return SqliteSearchIndex.open(file, options);
  }
}

export const isDamaged = (err: unknown): err is StoreUnavailableError =>
  err instanceof StoreUnavailableError && err.store === 'search' && err.reason === 'damaged';

export class RepairingSearchIndex implements SearchIndex {
  /** Rebuilds started since the index opened. */
  repairs = 0;
  private rebuild: Rebuild | null = null;
  private readonly listeners: ((event: RepairEvent) => void)[] = [];
  private repair: Promise<void> | null = null;
  private lastStart = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private closing = false;
  /** Ends the wait before a rebuild at once (close). */
  private wake: (() => void) | null = null;
  /** The new index a rebuild is filling. */
  private building: SqliteSearchIndex | null = null;
  private readonly timing: Required<RepairOptions>;

  private constructor(
    private current: SqliteSearchIndex,
    private readonly file: string,
    private readonly options: SqliteSearchIndexOptions,
    repair: RepairOptions,
    private readonly log: (line: string) => void,
  ) {
    this.timing = { ...DEFAULTS, ...repair };
  }

  static async open(
    file: string,
    options: SqliteSearchIndexOptions & { repair?: RepairOptions; log?: (line: string) => void } = {},
  ): Promise<RepairingSearchIndex> {
    const { repair = {}, log = () => undefined, ...index } = options;
    return new RepairingSearchIndex(await openOrReplace(file, index, log), file, index, repair, log);
  }

  /** How a damaged index is filled again; until this is set, damage is reported (503) but not repaired. */
  rebuildWith(rebuild: Rebuild): void {
    this.rebuild = rebuild;
  }

  /** Told when damage is seen and when the index answers again (the local server probes the corpus then). */
  onRepair(listener: (event: RepairEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Whether a repair is due or running: searches are refused until it is done. */
  get repairing(): boolean {
    return this.repair !== null;
  }

  /** The open index itself (tests and benchmarks that work below the port). */
  get index(): SqliteSearchIndex {
    return this.current;
  }

  get workers(): SqliteSearchIndex['workers'] {
    return this.current.workers;
  }

  get answeredBy(): SqliteSearchIndex['answeredBy'] {
    return this.current.answeredBy;
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    return this.read((index) => index.search(query));
  }

  count(): Promise<number> {
    return this.read((index) => index.count());
  }

  ping(): Promise<void> {
    return this.read((index) => index.ping());
  }

  isBuilt(): Promise<boolean> {
    return this.write((index) => index.isBuilt());
  }

  markBuilt(): Promise<void> {
    return this.write((index) => index.markBuilt());
  }

  upsert(docs: readonly SearchDocument[]): Promise<void> {
    return this.write((index) => index.upsert(docs));
  }

  setValidTo(id: string, validTo: string): Promise<void> {
    return this.write((index) => index.setValidTo(id, validTo));
  }

  remove(ids: readonly string[]): Promise<void> {
    return this.write((index) => index.remove(ids));
  }

  refresh(): Promise<void> {
    return this.write((index) => index.refresh());
  }

  async close(): Promise<void> {
    this.closing = true;
    this.wake?.();
    // A rebuild in progress fails at its next write.
    await this.building?.close();
    await this.repair;
    await this.current.close();
  }

  /** A read: refused while a repair is due or running; one that finds damage starts the repair. */
  private async read<T>(work: (index: SqliteSearchIndex) => Promise<T>): Promise<T> {
    if (this.repair) throw this.beingRebuilt();
    const index = this.current;
    try {
      return await work(index);
    } catch (err) {
      // Damage of an index already replaced is old news.
      if (isDamaged(err) && index === this.current) this.damaged(err);
      throw err;
    }
  }

  /**
   * A write waits for a repair due or running, then goes to the index; one that finds damage waits for the repair and
   * is written again on the new index (the rebuild may have read the version store before the write's versions).
   */
  private async write<T>(work: (index: SqliteSearchIndex) => Promise<T>): Promise<T> {
    await this.repair;
    const index = this.current;
    try {
      return await work(index);
    } catch (err) {
      if (!isDamaged(err) || !this.rebuild || this.closing) throw err;
      if (index === this.current) this.damaged(err);
      await this.repair;
      return work(this.current);
    }
  }

  private beingRebuilt(): StoreUnavailableError {
    return new StoreUnavailableError('search', 'The search index is damaged or missing and is being rebuilt.', { reason: 'damaged' });
  }

  /** Damage seen: a repair is due, unless one already is (whatever the number of requests that find it). */
  private damaged(error: StoreUnavailableError): void {
    if (this.repair || !this.rebuild || this.closing) return;
    this.log(`asof: the search index is damaged or missing (${error.message}); rebuilding it from the version store`);
    // Told repaired once no longer repairing: a listener that reads the index at once finds it answering.
    this.repair = this.repairLoop(this.rebuild)
      .finally(() => {
        this.repair = null;
      })
      .then((ms) => {
        if (ms !== null) this.tell({ kind: 'repaired', ms });
      });
    this.tell({ kind: 'damaged', error });
  }

  /** Rebuilds until one succeeds (its time in ms) or the index closes (null), each start spaced from the last. */
  private async repairLoop(rebuild: Rebuild): Promise<number | null> {
    while (!this.closing) {
      const backoff = this.failures === 0 ? 0 : Math.min(this.timing.maxBackoffMs, this.timing.spacingMs * 2 ** this.failures);
      const at = Math.max(performance.now() + this.timing.delayMs, this.lastStart + Math.max(this.timing.spacingMs, backoff));
      await this.until(at);
      if (this.closing) return null;
      this.lastStart = performance.now();
      this.repairs++;
      this.tell({ kind: 'rebuilding' });
      try {
        await this.rebuildFile(rebuild);
        this.failures = 0;
        const ms = Math.round(performance.now() - this.lastStart);
        this.log(`asof: search index rebuilt in ${ms} ms`);
        return ms;
      } catch (err) {
        this.failures++;
        this.log(`asof: rebuilding the search index failed (${err instanceof Error ? err.message : String(err)}); trying again later`);
      }
    }
    return null;
  }

  /** Closes the damaged index, removes its files (its folder made again if that went too) and fills a new one. */
  private async rebuildFile(rebuild: Rebuild): Promise<void> {
    await this.current.close().catch(() => undefined);
    await removeIndexFiles(this.file);
    const fresh = await SqliteSearchIndex.open(this.file, this.options);
    this.building = fresh;
    try {
      if (this.closing) throw new Error('the index is closing');
      await rebuild(fresh);
      await fresh.markBuilt();
    } catch (err) {
      await fresh.close();
      throw err;
    } finally {
      this.building = null;
    }
    this.current = fresh;
  }

  private until(at: number): Promise<void> {
    const ms = at - performance.now();
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => {
      this.wake = null;
    });
  }

  private tell(event: RepairEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
