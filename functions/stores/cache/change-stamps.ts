/**
 * How a cache knows whether a store may have changed. A stamp is an opaque number that moves whenever a write to
 * the table starts or ends; `null` means "do not trust or fill a cache now" (a write is in flight, or the store is
 * closed). Two equal non-null stamps taken before and after a read prove that no write overlapped it.
 */
export interface ChangeStamps {
  stamp(table: string): number | null;
}

/** Slots of a WriteCounters: table names hash into them; two tables sharing one only cost each other cache hits. */
const SLOTS = 256;

function slotOf(table: string): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < table.length; i++) h = Math.imul(h ^ table.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SLOTS;
}

/**
 * Each table's write generation and writes in flight, in memory a worker thread shares: the embedded DynamoDB's
 * server, in a thread of its own, counts the writes it admits here, synchronously, before it applies them and
 * before its answer leaves, so a reader in another thread never sees a write's result with the old counters.
 */
export class WriteCounters {
  readonly buffer: SharedArrayBuffer;
  private readonly cells: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this.cells = new Int32Array(buffer);
  }

  /** A write to `table` is about to be applied. */
  begin(table: string): void {
    const at = slotOf(table) * 2;
    Atomics.add(this.cells, at + 1, 1);
    Atomics.add(this.cells, at, 1);
  }

  /** A write that `begin` announced has been applied (or has failed). */
  end(table: string): void {
    const at = slotOf(table) * 2;
    Atomics.add(this.cells, at, 1);
    for (let n = Atomics.load(this.cells, at + 1); n > 0; n = Atomics.load(this.cells, at + 1)) {
      if (Atomics.compareExchange(this.cells, at + 1, n, n - 1) === n) break;
    }
  }

  /** The table's generation, or null while a write to it is in flight. */
  read(table: string): number | null {
    const at = slotOf(table) * 2;
    return Atomics.load(this.cells, at + 1) > 0 ? null : Atomics.load(this.cells, at);
  }
}

/**
 * Stamps for stores whose every write is seen on this machine by this process: the embedded DynamoDB (its server
 * counts each write request it admits, from any client: see `admitSignedOnly` in dynalite-server.ts) and the
 * embedded PostgreSQL (written only through this process's adapters).
 */
export class WriteTracker implements ChangeStamps {
  readonly counters = new WriteCounters();
  /** Tables whose store is gone: they never stamp again. */
  private readonly closed = new Set<string>();
  /** Set by closeAll: every table, named before or after, is closed. */
  private allClosed = false;

  begin(table: string): void {
    this.counters.begin(table);
  }

  end(table: string): void {
    this.counters.end(table);
  }

  /** The store behind `table` is gone: nothing may be answered from memory any more (it must fail as the store does). */
  close(table: string): void {
    this.closed.add(table);
  }

  /** The whole store is gone (every table it holds). */
  closeAll(): void {
    this.allClosed = true;
  }

  stamp(table: string): number | null {
    return this.allClosed || this.closed.has(table) ? null : this.counters.read(table);
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
