import { type Stats, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '#shared/errors.ts';
import type { ChangeStamps } from '#stores/cache/change-stamps.ts';
import type { CheckpointedDatabase } from './checkpointer.ts';
import { isDamage } from './sqlite-workers.ts';

/**
 * One SQLite database file of the embedded stores (better-sqlite3), opened by every process that uses the data dir:
 * the server, `asof keys`, `asof ingest` in a second terminal, `asof mcp`. WAL mode lets readers go on while one
 * connection writes; a write waits for another process's transaction up to `busyTimeoutMs`, then fails as the store
 * being busy (503), never as a wrong answer. Statements run synchronously on the caller's thread: every statement a
 * request runs is a bounded read by an index (a point read, or LIMIT n), so none holds the event loop for long.
 */

type StoreName = StoreUnavailableError['store'];

/** A store's tables: `steps[n]` brings them from version n to n + 1 (0: the tables do not exist yet). */
export interface SqliteSchema {
  /** Unique per database: the stores sharing a file each keep their own version. */
  name: string;
  steps: readonly (readonly string[])[];
}

export interface SqliteDatabaseOptions {
  /** Named in StoreUnavailableError when the file fails (busy, damaged, closed). */
  store: StoreName;
  /** What the messages call the file's store, when it holds more than `store` (default: `store`). */
  label?: string;
  schemas: readonly SqliteSchema[];
  /** How long a write waits for another connection's transaction before failing busy (default 5,000 ms). */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** SQLite's codes for a lock another connection holds past the busy timeout. */
const BUSY_CODE = /^SQLITE_(BUSY|LOCKED)/;

/** How often a read looks whether the file is still the one opened (a write and a ping always look). */
const FILE_CHECK_INTERVAL_MS = 1_000;
const SQLITE_HEADER_BYTES = 100;

/**
 * The automatic checkpoint of a connection whose checkpoints a thread of their own runs (checkpointer.ts): far past
 * where that thread keeps the WAL, so that only a thread stalled or gone lets a commit here checkpoint.
 */
const BACKSTOP_CHECKPOINT_PAGES = 16_000;
/** A WAL grown past this (under a long read, or a large ingest batch) is cut back to it when it starts over. */
const WAL_SIZE_LIMIT_BYTES = 64 * 2 ** 20;

export class SqliteDatabase implements ChangeStamps, CheckpointedDatabase {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly dataVersion: Database.Statement;
  private closed = false;
  /** Moves on every write of this connection and whenever `PRAGMA data_version` says another one committed. */
  private generation = 0;
  private lastDataVersion = -1;
  /**
   * The file as opened (null in memory): on Linux a connection to a file removed or replaced under it goes on
   * reading the old inode and writing where no other process looks, so the file's identity is checked.
   */
  private opened: Stats | null = null;
  private lastFileCheck = 0;
  /** Writes waiting for the group of their turn (writeGrouped). */
  private readonly grouped: { work: () => unknown; resolve(value: unknown): void; reject(error: unknown): void }[] = [];

  private constructor(
    db: Database.Database,
    readonly file: string,
    private readonly store: StoreName,
    private readonly label: string = store,
  ) {
    this.db = db;
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /**
   * Opens (creating on first use) `file`, or a private in-memory database for `:memory:`, and brings its schemas up.
   * A file that is not a database (damaged, or another kind of file) fails as StoreUnavailableError.
   */
  static open(file: string, options: SqliteDatabaseOptions): SqliteDatabase {
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
    } catch (err) {
      throw openFailure(options.store, file, err);
    }
    try {
      db.pragma('journal_mode = WAL');
      // WAL with NORMAL: a commit survives a crash of the process (not of the machine, the last few may roll back).
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      const opened = new SqliteDatabase(db, file, options.store, options.label);
      opened.migrate(options.schemas);
      if (file !== ':memory:' && file !== '') opened.opened = statSync(file);
      return opened;
    } catch (err) {
      db.close();
      throw openFailure(options.store, file, err);
    }
  }

  /** A statement prepared once per connection. */
  prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.run(() => this.db.prepare(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** CheckpointedDatabase: a thread of its own now checkpoints this file; commits here checkpoint only as a backstop. */
  handOffCheckpoints(): void {
    this.run(() => this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`));
  }

  /** Runs reads; a failure of the file (busy, damaged, closed, removed) is StoreUnavailableError, others pass through. */
  read<T>(work: () => T): T {
    return this.run(() => {
      if (performance.now() - this.lastFileCheck >= FILE_CHECK_INTERVAL_MS) this.checkFile();
      return work();
    });
  }

  /** Runs `work` in one immediate transaction (all of it or nothing), failures mapped as `read` maps them. */
  write<T>(work: () => T): T {
    return this.run(() => {
      this.checkFile();
      try {
        return this.db.transaction(work).immediate();
      } finally {
        this.generation++;
      }
    });
  }

  /**
   * Runs `work` as `write` would, but in one transaction with the other grouped writes queued in the same turn of the
   * event loop: each in a savepoint of its own (a work that throws undoes only itself and rejects only its call), all
   * committed at once. Under load a commit (its WAL frames, its locks) is then paid once per turn, not once per call.
   * A failure of the file (busy, damaged) rejects the whole group.
   */
  writeGrouped<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.grouped.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.grouped.length === 1) setImmediate(() => this.flushGrouped());
    });
  }

  private flushGrouped(): void {
    const group = this.grouped.splice(0);
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      this.write(() => {
        for (const { work } of group) {
          try {
            outcomes.push({ value: this.db.transaction(work)() });
          } catch (error) {
            outcomes.push({ error });
          }
        }
      });
    } catch (error) {
      for (const g of group) g.reject(error);
      return;
    }
    group.forEach((g, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) g.reject(this.mapped(outcome.error));
      else g.resolve(outcome.value);
    });
  }

  /** ChangeStamps: moves whenever this database may have changed; null once closed. */
  stamp(): number | null {
    if (this.closed) return null;
    try {
      const now = this.dataVersion.get() as number;
      if (now !== this.lastDataVersion) {
        this.lastDataVersion = now;
        this.generation++;
      }
      return this.generation;
    } catch {
      return null;
    }
  }

  ping(): void {
    this.run(() => {
      this.checkFile();
      this.prepare('SELECT 1').get();
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }

  private run<T>(work: () => T): T {
    if (this.closed) throw new StoreUnavailableError(this.store, `The ${this.label} store is closed.`);
    try {
      return work();
    } catch (err) {
      throw this.mapped(err);
    }
  }

  /** Throws StoreUnavailableError (damaged) when the file at the path is no longer the database this connection reads. */
  private checkFile(): void {
    this.lastFileCheck = performance.now();
    if (!this.opened) return;
    const now = statSync(this.file, { throwIfNoEntry: false });
    const gone = !now
      ? 'was removed'
      : now.ino !== this.opened.ino || now.dev !== this.opened.dev
        ? 'was replaced'
        : now.size < SQLITE_HEADER_BYTES && this.opened.size >= SQLITE_HEADER_BYTES
          ? 'was truncated'
          : null;
    if (gone) {
      throw new StoreUnavailableError(this.store, `The ${this.label} store is damaged or missing: ${this.file} ${gone}.`, {
        reason: 'damaged',
      });
    }
  }

  private mapped(err: unknown): unknown {
    if (!(err instanceof Error) || err instanceof StoreUnavailableError) return err;
    const code = (err as { code?: string }).code;
    if (BUSY_CODE.test(code ?? '')) {
      return new StoreUnavailableError(this.store, `The ${this.label} store is busy with another process's write.`, {
        reason: 'busy',
        cause: err,
      });
    }
    if (isDamage({ code, message: err.message }) || (!this.db.open && !this.closed)) {
      return new StoreUnavailableError(this.store, `The ${this.label} store is damaged or missing (${code}: ${err.message}).`, {
        reason: 'damaged',
        cause: err,
      });
    }
    return err;
  }

  private migrate(schemas: readonly SqliteSchema[]): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS asof_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT');
    const versionOf = this.db.prepare('SELECT version FROM asof_schema WHERE name = ?').pluck();
    const setVersion = this.db.prepare(
      'INSERT INTO asof_schema (name, version) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version',
    );
    for (const schema of schemas) {
      // Each step in a transaction of its own: two processes opening a new file at once take turns, and the second
      // finds the step done.
      this.db
        .transaction(() => {
          const at = (versionOf.get(schema.name) as number | undefined) ?? 0;
          if (at > schema.steps.length) {
            throw new Error(
              `${this.file}: the ${schema.name} tables are at version ${at}, newer than this asof knows (${schema.steps.length})`,
            );
          }
          for (const step of schema.steps.slice(at)) for (const sql of step) this.db.exec(sql);
          if (at < schema.steps.length) setVersion.run(schema.name, schema.steps.length);
        })
        .immediate();
    }
  }
}

/** A file that cannot be opened as a database: busy or damaged as StoreUnavailableError, anything else as it came. */
function openFailure(store: StoreName, file: string, err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const code = (err as { code?: string }).code;
  if (BUSY_CODE.test(code ?? '')) {
    return new StoreUnavailableError(store, `The ${store} store is busy with another process's write.`, { reason: 'busy', cause: err });
  }
  if (isDamage({ code, message: err.message })) {
    return new StoreUnavailableError(store, `The ${store} store at ${file} is damaged or missing (${code}: ${err.message}).`, {
      reason: 'damaged',
      cause: err,
    });
  }
  return err;
}
