import { WorkerLane } from './sqlite-workers.ts';

/**
 * WAL checkpoints of the SQLite files a long-running process writes (the server, an ingest), run off its main thread.
 * SQLite checkpoints inside the commit that grows the WAL past `wal_autocheckpoint` pages, on the committing thread:
 * copying the pages back into the file and syncing both, which the request (a metered lookup's charge) waited for.
 * Here each file gets a connection of its own in a worker thread that runs `PRAGMA wal_checkpoint(PASSIVE)` on a
 * timer: a PASSIVE checkpoint takes no lock a writer or a reader waits for, and copies what no reader still needs,
 * so the next writer starts the WAL over. The main connection keeps an automatic checkpoint only far past where the
 * timer keeps the WAL (SqliteDatabase.handOffCheckpoints), so a stalled or dead thread still leaves the WAL bounded.
 */

/** What the main connection's checkpoints become once this thread runs them. */
export interface CheckpointedDatabase {
  readonly file: string;
  /** Raises the connection's automatic checkpoint to a backstop far past where the thread keeps the WAL. */
  handOffCheckpoints(): void;
}

export interface CheckpointerOptions {
  /** How often each file's WAL is checkpointed (default 250 ms). */
  intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 250;
const CHECKPOINT = 'PRAGMA wal_checkpoint(PASSIVE)';

export class WalCheckpointer {
  private readonly timer: NodeJS.Timeout;
  private readonly running = new Set<WorkerLane>();
  private closed = false;

  private constructor(
    private readonly lanes: readonly WorkerLane[],
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.tick(), intervalMs).unref();
  }

  /** One thread per file (files in memory have no WAL and are left out); each database hands its checkpoints over. */
  static async start(databases: readonly CheckpointedDatabase[], options: CheckpointerOptions = {}): Promise<WalCheckpointer> {
    const onDisk = databases.filter((db) => db.file !== ':memory:' && db.file !== '');
    const opened = await Promise.allSettled(
      onDisk.map((db) => WorkerLane.open({ file: db.file, readonly: false, threads: 1, pragmas: [], maxWaiting: 1 })),
    );
    const lanes = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed) {
      await Promise.all(lanes.map((lane) => lane.close()));
      throw failed.reason;
    }
    for (const db of onDisk) db.handOffCheckpoints();
    return new WalCheckpointer(lanes, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  }

  /** Checkpoints every file now (what the timer does), resolved when all are done; a failed one is left to the next. */
  async checkpoint(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => this.checkpointOn(lane)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }

  private tick(): void {
    for (const lane of this.lanes) if (!this.running.has(lane)) void this.checkpointOn(lane);
  }

  private async checkpointOn(lane: WorkerLane): Promise<void> {
    if (this.closed) return;
    this.running.add(lane);
    try {
      await lane.run({ kind: 'all', sql: CHECKPOINT, params: [] });
    } catch {
      // A file damaged, replaced or busy: the stores' own connections report that; the next tick tries again.
    } finally {
      this.running.delete(lane);
    }
  }
}
