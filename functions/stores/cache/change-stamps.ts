/**
 * How a cache knows whether a store may have changed. A stamp is an opaque number that moves whenever a write to
 * the table starts or ends; `null` means "do not trust or fill a cache now" (a write is in flight, or the store is
 * closed). Two equal non-null stamps taken before and after a read prove that no write overlapped it.
 */
export interface ChangeStamps {
  stamp(table: string): number | null;
}

/**
 * Stamps for a store written only through this process (the SQLite search index: every write goes through its
 * caching adapter, which announces it here). The SQLite stores stamp themselves (`PRAGMA data_version`: database.ts).
 */
export class WriteTracker implements ChangeStamps {
  /** Each table's write generation and writes in flight. */
  private readonly tables = new Map<string, { generation: number; inFlight: number }>();
  /** Tables whose store is gone: they never stamp again. */
  private readonly closed = new Set<string>();

  begin(table: string): void {
    const t = this.tableOf(table);
    t.generation++;
    t.inFlight++;
  }

  end(table: string): void {
    const t = this.tableOf(table);
    t.generation++;
    t.inFlight = Math.max(0, t.inFlight - 1);
  }

  /** The store behind `table` is gone: nothing may be answered from memory any more (it must fail as the store does). */
  close(table: string): void {
    this.closed.add(table);
  }

  stamp(table: string): number | null {
    if (this.closed.has(table)) return null;
    const t = this.tableOf(table);
    return t.inFlight > 0 ? null : t.generation;
  }

  private tableOf(table: string): { generation: number; inFlight: number } {
    let t = this.tables.get(table);
    if (!t) {
      t = { generation: 0, inFlight: 0 };
      this.tables.set(table, t);
    }
    return t;
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
