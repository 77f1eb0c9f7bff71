/**
 * How a cache knows whether a store may have changed. A stamp is an opaque number that moves whenever a write to
 * the table starts or ends; `null` means "do not trust or fill a cache now" (a write is in flight, or the store is
 * closed). Two equal non-null stamps taken before and after a read prove that no write overlapped it.
 */
export interface ChangeStamps {
  stamp(table: string): number | null;
}

interface TableState {
  generation: number;
  inFlight: number;
  closed: boolean;
}

/**
 * Stamps for stores whose every write is seen in this process: the embedded DynamoDB (its server reports each write
 * request it admits, from any client: see `admitSignedOnly` in dynalite.ts) and the embedded PostgreSQL (written only through this
 * process's adapters).
 */
export class WriteTracker implements ChangeStamps {
  private readonly tables = new Map<string, TableState>();
  /** Set by closeAll: every table, named before or after, is closed. */
  private allClosed = false;

  private of(table: string): TableState {
    let state = this.tables.get(table);
    if (!state) {
      state = { generation: 0, inFlight: 0, closed: this.allClosed };
      this.tables.set(table, state);
    }
    return state;
  }

  /** A write to `table` is about to be applied. */
  begin(table: string): void {
    const s = this.of(table);
    s.inFlight++;
    s.generation++;
  }

  /** A write that `begin` announced has been applied (or has failed). */
  end(table: string): void {
    const s = this.of(table);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.generation++;
  }

  /** The store behind `table` is gone: nothing may be answered from memory any more (it must fail as the store does). */
  close(table: string): void {
    const s = this.of(table);
    s.closed = true;
    s.generation++;
  }

  /** The whole store is gone (every table it holds). */
  closeAll(): void {
    this.allClosed = true;
    for (const table of this.tables.keys()) this.close(table);
  }

  stamp(table: string): number | null {
    const s = this.of(table);
    return s.closed || s.inFlight > 0 ? null : s.generation;
  }

  /** Runs a write of this process's own, announced around it. */
  async around<T>(table: string, write: () => Promise<T>): Promise<T> {
    this.begin(table);
    try {
      return await write();
    } finally {
      this.end(table);
    }
  }
}

/**
 * Stamps for stores written by other processes that this one cannot observe (DynamoDB, from a Lambda function): the
 * stamp moves every `windowMs`, so a value is answered from memory for at most that long after it was read. Only for
 * data that changes rarely and where a short delay is harmless (the filing-format records, changed by an ingest).
 */
export class TimeWindowStamps implements ChangeStamps {
  constructor(
    private readonly windowMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  stamp(): number {
    return Math.floor(this.clock() / this.windowMs);
  }
}
