import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError, type UnavailableReason } from '#shared/errors.ts';
import type { SqlTimeouts, StatementBudget } from '#stores/postgres/sql-client.ts';
import { DEFAULT_SQL_TIMEOUTS } from '#stores/postgres/sql-client.ts';
import type { buildImpactLists, searchTopK } from './impact-lists.mjs';
import type { Reply } from './sqlite-thread.mjs';

/** Parameters of one statement: positional (`?`) or named (`@name`). */
export type SqlParams = readonly unknown[] | Record<string, unknown>;

/** A statement with a budget starts only while at least this share of it is left (as in PgliteThread). */
const START_WITHIN_SHARE_OF_BUDGET = 0.5;

/**
 * The procedures of impact-lists.mjs: several statements (named in `sql`) and the logic between them, in the thread.
 * Their JSDoc types are the types of a call's statements, parameters and result.
 */
interface Procedures {
  buildImpactLists: typeof buildImpactLists;
  searchTopK: typeof searchTopK;
}
export type ProcedureName = keyof Procedures;

interface Message {
  kind: 'all' | 'batch' | 'exec' | 'sleep' | 'call';
  /** Several only in a batch (each runs in turn with the same parameters) or a call (by name). */
  sql: string | readonly string[] | Readonly<Record<string, string>>;
  params?: SqlParams | Readonly<Record<string, unknown>>;
  rows?: readonly SqlParams[];
  procedure?: ProcedureName;
}

interface Job {
  message: Message;
  probe: boolean;
  submittedAt: number;
  /** Past this (performance.now()), the statement is answered without running; undefined: no budget. */
  startBy: number | undefined;
  settle(outcome: { reply: Reply } | { error: Error }): void;
}

interface Slot {
  worker: Worker;
  running: { id: number; job: Job } | null;
  /** The statement sets (see setIdOf) this thread was sent and keeps. */
  sets: Set<number>;
  /** Removes the lane's listeners from the thread. */
  detach: () => void;
}

const unavailable = (reason: UnavailableReason, message: string, cause?: unknown) =>
  new StoreUnavailableError('search', `The search index ${message}.`, { reason, ...(cause !== undefined && { cause }) });

/**
 * SQLite's codes (extended ones included) that say the file is damaged or gone, not that the statement was wrong:
 * corrupt pages, not a database, a file that cannot be opened or read, one moved under its connection; and the
 * thread's own code for a file removed, replaced or truncated under an open connection (sqlite-thread.mjs).
 */
const DAMAGE_CODE = /^(SQLITE_(CORRUPT|NOTADB|CANTOPEN|IOERR|READONLY_DBMOVED)|ASOF_FILE_GONE)/;
/** A layout table missing: the file was replaced by another database (or emptied of ours). */
const MISSING_TABLE = /^no such table: (main\.)?search_/;

/** Whether a SQLite failure means the file is damaged or gone (the index must be rebuilt), by its code or message. */
export function isDamage(e: { code?: string | undefined; message: string }): boolean {
  return DAMAGE_CODE.test(e.code ?? '') || (e.code === 'SQLITE_ERROR' && MISSING_TABLE.test(e.message));
}

/** A failure from a thread as an Error here: a damaged or missing file is the store's fault, StoreUnavailableError. */
const revive = (e: NonNullable<Reply['error']>): Error => {
  const err = Object.assign(new Error(e.message), { name: e.name, code: e.code });
  return isDamage(e) ? unavailable('damaged', `is damaged or missing (${e.code}: ${e.message})`, err) : err;
};

export interface LaneOptions {
  file: string;
  readonly: boolean;
  /** Threads, each with its own connection. */
  threads: number;
  pragmas: readonly string[];
  /** Statements waiting at once, probes aside; one more is answered "busy" at once. */
  maxWaiting: number;
  /** Told when a thread was replaced to give up a statement past its budget. */
  onRestart?: (restart: { restarts: number }) => void;
}

const CLOSE_ID = -1;

/**
 * A procedure's statements (a record of SQL texts, the same object on every call) go to each thread once, then by
 * number: a search's are about 4 KB, copied over the port on every search otherwise.
 */
const setIds = new WeakMap<object, number>();
let nextSetId = 0;
function setIdOf(sql: object): number {
  let id = setIds.get(sql);
  if (id === undefined) {
    id = nextSetId++;
    setIds.set(sql, id);
  }
  return id;
}

/** What goes over the port: a call's statements only if the thread does not hold them yet. */
function outgoing(slot: Slot, id: number, message: Message) {
  if (message.kind !== 'call' || typeof message.sql !== 'object' || Array.isArray(message.sql)) return { id, ...message };
  const sqlSet = setIdOf(message.sql);
  if (slot.sets.has(sqlSet)) return { id, kind: message.kind, procedure: message.procedure, params: message.params, sqlSet };
  slot.sets.add(sqlSet);
  return { id, ...message, sqlSet };
}

/**
 * A few SQLite connections, each in a worker thread, behind one queue: a statement goes to the first idle thread, so
 * a long search runs beside the event loop and beside the other searches. better-sqlite3 runs a statement
 * synchronously and cannot interrupt it (no sqlite3_interrupt, and the progress handler is compiled out), so a
 * statement still running at its deadline is answered 503 (timeout), its thread is terminated and a new one takes its
 * place at once: the old thread ends when SQLite hands control back to JavaScript, which a search over the index does
 * within its bounded cost (the `q` limits; bench/RESULTS.md gives the costliest search the API accepts).
 */
export class WorkerLane {
  restarts = 0;
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 0;
  private gone: Error | null = null;

  private constructor(private readonly options: LaneOptions) {}

  static async open(options: LaneOptions): Promise<WorkerLane> {
    const lane = new WorkerLane(options);
    try {
      const workers = await Promise.all(Array.from({ length: options.threads }, () => lane.startWorker()));
      for (const worker of workers) lane.adopt(worker);
    } catch (err) {
      await lane.close();
      throw err;
    }
    return lane;
  }

  get closed(): boolean {
    return this.gone !== null;
  }

  run(message: Message, options: { timeoutMs?: number; probe?: boolean } = {}): Promise<Reply> {
    if (this.gone) return Promise.reject(this.gone);
    const probe = options.probe === true;
    if (!probe && this.waiting.length >= this.options.maxWaiting) {
      return Promise.reject(unavailable('busy', `is too busy: ${this.waiting.length} statements are already waiting`));
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const submittedAt = performance.now();
      const job: Job = {
        message,
        probe,
        submittedAt,
        startBy: options.timeoutMs === undefined ? undefined : submittedAt + options.timeoutMs * START_WITHIN_SHARE_OF_BUDGET,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.reply);
        },
      };
      if (options.timeoutMs !== undefined) {
        const timeoutMs = options.timeoutMs;
        timer = setTimeout(() => this.expire(job, timeoutMs), timeoutMs);
      }
      const at = probe ? this.waiting.findIndex((j) => !j.probe) : -1;
      this.waiting.splice(at === -1 ? this.waiting.length : at, 0, job);
      this.pump();
    });
  }

  /** Fails what waits, lets each thread finish its statement and close its connection, then ends the lane. */
  async close(): Promise<void> {
    if (this.gone) return;
    this.gone = unavailable('unreachable', 'is closed');
    for (const job of this.waiting.splice(0)) job.settle({ error: this.gone });
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map(async ({ worker, running }) => {
        running?.job.settle({ error: this.gone! });
        const answered = new Promise<void>((resolve) => {
          worker.on('message', (reply: Reply) => reply.id === CLOSE_ID && resolve());
          worker.once('exit', () => resolve());
        });
        worker.postMessage({ id: CLOSE_ID, kind: 'close' });
        await Promise.race([answered, sleep(2_000)]);
        await worker.terminate();
      }),
    );
  }

  private async startWorker(): Promise<Worker> {
    const { file, readonly, pragmas } = this.options;
    const worker = new Worker(new URL('./sqlite-thread.mjs', import.meta.url), { workerData: { file, readonly, pragmas } });
    // Listeners are removed one by one, never all at once: a Worker keeps listeners of its own on itself.
    let onReady: (reply: Reply) => void = () => undefined;
    let onError: (err: Error) => void = () => undefined;
    let onExit: (code: number) => void = () => undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onReady = (reply) => (reply.ready ? resolve() : reject(revive(reply.error ?? { name: 'Error', message: 'SQLite failed to open' })));
        onError = reject;
        onExit = (code) => reject(new Error(`SQLite failed to open (its thread exited with code ${code})`));
        worker.once('message', onReady).once('error', onError).once('exit', onExit);
      });
    } catch (err) {
      void worker.terminate();
      throw err;
    } finally {
      worker.off('message', onReady).off('error', onError).off('exit', onExit);
    }
    return worker;
  }

  private adopt(worker: Worker): void {
    const slot: Slot = { worker, running: null, sets: new Set(), detach: () => undefined };
    this.slots.push(slot);
    // A thread that ends on its own (not replaced, not closing) takes its statement with it; the lane goes on with a
    // new thread in its place.
    const ended = () => {
      if (this.gone || !this.slots.includes(slot)) return;
      slot.running?.job.settle({ error: unavailable('unreachable', 'lost its thread') });
      this.replace(slot);
    };
    const onMessage = (reply: Reply) => this.onReply(slot, reply);
    worker.on('message', onMessage).on('error', ended).on('exit', ended);
    slot.detach = () => worker.off('message', onMessage).off('error', ended).off('exit', ended);
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      while (!slot.running && !this.gone) {
        const job = this.waiting.shift();
        if (!job) return;
        const now = performance.now();
        if (job.startBy !== undefined && now > job.startBy) {
          job.settle({ error: unavailable('busy', `is too busy: the statement waited ${Math.round(now - job.submittedAt)} ms`) });
          continue;
        }
        slot.running = { id: this.nextId++, job };
        slot.worker.postMessage(outgoing(slot, slot.running.id, job.message));
      }
    }
  }

  private onReply(slot: Slot, reply: Reply): void {
    if (reply.id === undefined || reply.id !== slot.running?.id) return;
    const { job } = slot.running;
    slot.running = null;
    job.settle(reply.error ? { error: revive(reply.error) } : { reply });
    this.pump();
  }

  private expire(job: Job, timeoutMs: number): void {
    job.settle({ error: unavailable('timeout', `did not answer in time (${timeoutMs} ms)`) });
    const at = this.waiting.indexOf(job);
    if (at !== -1) {
      this.waiting.splice(at, 1);
      return;
    }
    const slot = this.slots.find((s) => s.running?.job === job);
    if (slot && !this.gone) this.replace(slot);
  }

  /** Gives a thread up (it ends once its statement returns) and starts another in its place. */
  private replace(slot: Slot): void {
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.detach();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    this.restarts++;
    this.startWorker().then(
      (worker) => {
        if (this.gone) void worker.terminate();
        else {
          this.adopt(worker);
          this.options.onRestart?.({ restarts: this.restarts });
        }
      },
      (err: unknown) => {
        if (this.slots.length > 0 || this.gone) return;
        const damaged = err instanceof StoreUnavailableError && err.reason === 'damaged';
        this.gone = damaged
          ? err
          : unavailable('unreachable', `could not be reopened: ${err instanceof Error ? err.message : String(err)}`);
        for (const job of this.waiting.splice(0)) job.settle({ error: this.gone });
      },
    );
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export interface SqliteWorkersOptions {
  /** Threads that answer searches (each with a read-only connection). Default 2. */
  readers?: number;
  timeouts?: Partial<SqlTimeouts>;
  /** Statements waiting at once per lane. Default 64. */
  maxWaiting?: number;
  onRestart?: LaneOptions['onRestart'];
}

/**
 * SQLite's settings: WAL lets the readers read while the writer writes. No memory-mapped I/O: a mapped file truncated
 * under the process (by anyone) kills it with SIGBUS on the next read of a page past the new end; read through the
 * file, SQLite answers SQLITE_CORRUPT or SQLITE_IOERR instead, which the index repairs (repairing-index.ts).
 */
const COMMON_PRAGMAS = ['mmap_size = 0', 'cache_size = -32000', 'temp_store = memory'];
const WRITER_PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', ...COMMON_PRAGMAS];

/**
 * One SQLite database file in worker threads: one writer (writes run one at a time, as SQLite allows) and a few
 * readers; each statement has the deadline of its budget (the same budgets as the embedded PostgreSQL).
 */
export class SqliteWorkers {
  private constructor(
    private readonly writer: WorkerLane,
    private readonly readers: WorkerLane,
    private readonly timeouts: SqlTimeouts,
  ) {}

  /**
   * Opens (creating) `file`; `schema` runs on the writer. A new file's readers open after it (a read-only connection
   * needs the file); an existing file's open beside the writer, which is most of a start's time spent here.
   */
  static async open(
    file: string,
    schema: (writer: WorkerLane) => Promise<void>,
    options: SqliteWorkersOptions = {},
  ): Promise<SqliteWorkers> {
    const maxWaiting = options.maxWaiting ?? 64;
    const common = { file, maxWaiting, ...(options.onRestart && { onRestart: options.onRestart }) };
    const openReaders = () => WorkerLane.open({ ...common, readonly: true, threads: options.readers ?? 2, pragmas: COMMON_PRAGMAS });
    const openWriter = async () => {
      const writer = await WorkerLane.open({ ...common, readonly: false, threads: 1, pragmas: WRITER_PRAGMAS });
      await schema(writer).catch(async (err: unknown) => {
        await writer.close();
        throw err;
      });
      return writer;
    };
    const timeouts = { ...DEFAULT_SQL_TIMEOUTS, ...options.timeouts };
    if (!existsSync(file)) {
      const writer = await openWriter();
      const readers = await openReaders().catch(async (err: unknown) => {
        await writer.close();
        throw err;
      });
      return new SqliteWorkers(writer, readers, timeouts);
    }
    const [writer, readers] = await Promise.allSettled([openWriter(), openReaders()]);
    if (writer.status === 'fulfilled' && readers.status === 'fulfilled') return new SqliteWorkers(writer.value, readers.value, timeouts);
    await Promise.all([writer, readers].map((o) => (o.status === 'fulfilled' ? o.value.close() : undefined)));
    throw [writer, readers].map((o) => (o.status === 'rejected' ? o.reason : null)).find(Boolean);
  }

  get closed(): boolean {
    return this.readers.closed;
  }

  /** Times a reader thread was replaced to give up a statement past its budget. */
  get restarts(): number {
    return this.readers.restarts + this.writer.restarts;
  }

  /** A read on a reader thread. */
  async all<T>(sql: string, params: SqlParams = [], budget: StatementBudget = 'job'): Promise<T[]> {
    const reply = await this.readers.run({ kind: 'all', sql, params }, this.limits(budget));
    return (reply.rows ?? []) as T[];
  }

  /** A procedure of impact-lists.mjs on a reader thread (`lane` 'reader') or on the writer; what it returns. */
  async call<P extends ProcedureName>(
    procedure: P,
    sql: Parameters<Procedures[P]>[2],
    params: Parameters<Procedures[P]>[3],
    on: { lane: 'reader'; budget: StatementBudget } | { lane: 'writer' },
  ): Promise<ReturnType<Procedures[P]>> {
    const message = { kind: 'call', procedure, sql, params } as const;
    const reply =
      on.lane === 'reader' ? await this.readers.run(message, this.limits(on.budget)) : await this.writer.run(message, this.limits('job'));
    return reply.result as ReturnType<Procedures[P]>;
  }

  /** A read or write on the writer thread (sees what the writer wrote, before any reader does). */
  async writerAll<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    const reply = await this.writer.run({ kind: 'all', sql, params }, this.limits('job'));
    return (reply.rows ?? []) as T[];
  }

  /** `sql` (each statement in turn) once per parameter list, in one transaction on the writer; the rows changed. */
  async batch(sql: string | readonly string[], rows: readonly SqlParams[]): Promise<number> {
    if (rows.length === 0) return 0;
    const reply = await this.writer.run({ kind: 'batch', sql, rows }, this.limits('job'));
    return reply.changes ?? 0;
  }

  /** Holds a reader thread for `ms`, as a statement that long would (SQLite has no sleep(); for tests, like pg_sleep). */
  async sleep(ms: number, budget: StatementBudget = 'job'): Promise<void> {
    await this.readers.run({ kind: 'sleep', sql: '', params: { ms } }, this.limits(budget));
  }

  async exec(sql: string): Promise<void> {
    await this.writer.run({ kind: 'exec', sql }, this.limits('job'));
  }

  async close(): Promise<void> {
    await Promise.all([this.readers.close(), this.writer.close()]);
  }

  private limits(budget: StatementBudget) {
    return { timeoutMs: this.timeouts[budget], probe: budget === 'probe' };
  }
}
