import type { MeterStore, UsageRecord } from './ports.ts';

export interface UsageLogOptions {
  /** Written at the latest this long after a call. Default 250 ms. */
  flushMs?: number;
  /** Written at once when this many are waiting (one BatchWriteItem). Default 25. */
  batch?: number;
  /** Kept while the store cannot be written; beyond it the oldest are dropped (and reported). Default 10,000. */
  maxPending?: number;
  onError?: (err: unknown, pending: number, dropped: number) => void;
}

/**
 * Usage records written behind the responses, in batches: a call does not wait for its record. The counters that
 * decide admission are written before the call, exactly; a record is the call's detail for the usage report, so a
 * process that dies loses at most the records of its last `flushMs`. `flush()` writes everything now (shutdown,
 * the end of a Lambda invocation, tests).
 */
export class UsageLog {
  private pending: UsageRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushMs: number;
  private readonly batch: number;
  private readonly maxPending: number;

  constructor(
    private readonly store: Pick<MeterStore, 'record'>,
    private readonly options: UsageLogOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 250;
    this.batch = options.batch ?? 25;
    this.maxPending = options.maxPending ?? 10_000;
  }

  add(record: UsageRecord): void {
    this.pending.push(record);
    if (this.pending.length >= this.batch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes every record added so far; resolves when they are written (or kept for a later try). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const taken = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      if (!taken.length) return;
      try {
        await this.store.record(taken);
      } catch (err) {
        const kept = [...taken, ...this.pending];
        const dropped = Math.max(0, kept.length - this.maxPending);
        this.pending = kept.slice(dropped);
        this.options.onError?.(err, this.pending.length, dropped);
        if (!this.timer && this.pending.length) {
          this.timer = setTimeout(() => void this.flush(), this.flushMs * 4);
          this.timer.unref();
        }
      }
    });
    return this.writing;
  }
}
