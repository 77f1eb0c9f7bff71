import { Worker } from 'node:worker_threads';
import type { Reply as ThreadReply } from './pglite-thread.mjs';

/*
 * PostgreSQL's default 128 MB of shared buffers is allocated and touched at start: about 120 MB of resident memory
 * for a sample index of 2 MB. 32 MB holds the sample many times over; beyond it, reads come from the operating
 * system's file cache (measured in bench/RESULTS.md at 300,000 versions).
 */
export const PGLITE_SETTINGS = ['shared_buffers=32MB'];

/** The part of a PGlite instance the SQL client uses: a PGlite itself, or one running in a thread of its own. */
export interface PgliteLike {
  readonly closed: boolean;
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(text: string): Promise<unknown>;
  close(): Promise<void>;
}

/** How one statement is run by a PGlite in its own thread. */
export interface StatementOptions {
  /**
   * Fail with StatementTimeoutError this long after the call, time spent waiting for the thread included. A statement
   * still running then is stopped by restarting the thread (see PgliteThread). Default: no deadline.
   */
  timeoutMs?: number;
  /** `probe`: ahead of every waiting statement that is not a probe (the health probe never waits behind users). */
  priority?: 'probe';
}

/** A statement did not finish by its deadline (SQLSTATE 57014, as PostgreSQL's statement_timeout reports it). */
class StatementTimeoutError extends Error {
  override readonly name = 'StatementTimeoutError';
  readonly code = '57014';
  constructor(readonly timeoutMs: number) {
    super(`the statement took longer than ${timeoutMs} ms`);
  }
}

/** Too many statements are already waiting for the thread (SQLSTATE 53000, insufficient resources). */
class StatementQueueFullError extends Error {
  override readonly name = 'StatementQueueFullError';
  readonly code = '53000';
  constructor(readonly waiting: number) {
    super(`${waiting} statements are already waiting for the database`);
  }
}

/**
 * A statement waited so long that what is left of its budget would likely not let it finish (SQLSTATE 53000, as a
 * full queue): it is answered without running, rather than started and stopped by a restart that stalls every other.
 */
class StatementStartedTooLateError extends Error {
  override readonly name = 'StatementStartedTooLateError';
  readonly code = '53000';
  constructor(readonly waitedMs: number) {
    super(`the statement waited ${Math.round(waitedMs)} ms for the database, more than half its time budget`);
  }
}

/** A statement with a budget starts only while at least this share of it is left (see StatementStartedTooLateError). */
const START_WITHIN_SHARE_OF_BUDGET = 0.5;

export interface PgliteThreadOptions {
  /** Statements waiting for the thread at once, probes aside; one more fails at once (StatementQueueFullError). Default 64. */
  maxWaiting?: number;
  /** How long close() lets the statement in flight finish before it terminates the thread. Default 2 000 ms. */
  closeGraceMs?: number;
  /** Told when the thread was restarted to stop a statement past its deadline, once the new one is ready (the operator's log). */
  onRestart?: (restart: { restarts: number; reopenMs: number }) => void;
}

interface ThreadMessage {
  kind: 'query' | 'exec';
  text: string;
  params?: unknown[];
}

interface Statement {
  message: ThreadMessage;
  probe: boolean;
  submittedAt: number;
  /** Past this (performance.now()), the statement is answered without running; undefined: no budget. */
  startBy: number | undefined;
  settle(outcome: { reply: ThreadReply } | { error: Error }): void;
}

const revive = (e: NonNullable<ThreadReply['error']>): Error =>
  Object.assign(new Error(e.message), { name: e.name, code: e.code, detail: e.detail });

const CLOSE_ID = -1;

/**
 * PGlite in a worker thread: a long query (a search over hundreds of thousands of versions, a reindex) runs beside the
 * event loop that answers lookups instead of inside it. Costs one message each way per statement.
 *
 * The queue is kept here, not in the thread: one statement at a time is posted to it, so a probe can go ahead of
 * waiting statements, a statement whose deadline passes while it waits is dropped without running, and the queue is
 * bounded. PGlite runs a statement synchronously inside WebAssembly, where neither statement_timeout nor a cancel
 * request can interrupt it; the only way to stop one is to terminate its thread. So a statement still running at
 * its deadline is answered with StatementTimeoutError, the thread is terminated and the data directory reopened
 * (PostgreSQL's crash recovery rolls back a write that was in flight; committed data is kept), and the statements
 * waiting meanwhile run on the new thread. An in-memory instance would lose its data that way: there the statement
 * is answered at its deadline but left to finish, and the statements behind it wait (each until its own deadline).
 */
export class PgliteThread implements PgliteLike {
  /** Times the thread was terminated and reopened to stop a statement past its deadline. */
  restarts = 0;
  private worker: Worker | null = null;
  private reopening: Promise<void> | null = null;
  private readonly waiting: Statement[] = [];
  private running: { id: number; statement: Statement } | null = null;
  private nextId = 0;
  private gone: Error | null = null;
  private closing: Promise<void> | null = null;
  private readonly maxWaiting: number;
  private readonly closeGraceMs: number;
  private readonly onRestart: PgliteThreadOptions['onRestart'];

  private constructor(
    private readonly dataDir: string | undefined,
    options: PgliteThreadOptions,
  ) {
    this.maxWaiting = options.maxWaiting ?? 64;
    this.closeGraceMs = options.closeGraceMs ?? 2_000;
    this.onRestart = options.onRestart;
  }

  static async open(dataDir?: string, options: PgliteThreadOptions = {}): Promise<PgliteThread> {
    const thread = new PgliteThread(dataDir, options);
    await thread.start();
    return thread;
  }

  get closed(): boolean {
    return this.gone !== null;
  }

  async query<T>(text: string, params?: unknown[], options?: StatementOptions): Promise<{ rows: T[] }> {
    const reply = await this.submit({ kind: 'query', text, ...(params && { params }) }, options);
    return { rows: (reply.rows ?? []) as T[] };
  }

  async exec(text: string, options?: StatementOptions): Promise<void> {
    await this.submit({ kind: 'exec', text }, options);
  }

  /**
   * Fails what waits, lets the statement in flight finish for up to `closeGraceMs`, then closes PGlite (flushing a
   * data directory) or, past the grace, terminates the thread (the next open recovers the data directory).
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async start(): Promise<void> {
    const worker = new Worker(new URL('./pglite-thread.mjs', import.meta.url), {
      workerData: { dataDir: this.dataDir, settings: PGLITE_SETTINGS },
    });
    this.worker = worker;
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (reply: ThreadReply) =>
        reply.ready ? resolve() : reject(revive(reply.error ?? { name: 'Error', message: 'PGlite failed to initialize' })),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`PGlite failed to initialize (its thread exited with code ${code})`)));
    });
    worker.on('message', (reply: ThreadReply) => this.onReply(worker, reply));
    // A thread terminated on purpose is no longer this.worker, and one that ends while closing is shutDown's: only
    // the unexpected end of the current thread closes the store.
    const ended = (reason: string) => worker === this.worker && !this.closing && this.fail(reason);
    worker.on('error', (err) => ended(`its thread failed: ${err.message}`));
    worker.on('exit', (code) => ended(`its thread exited with code ${code}`));
  }

  private submit(message: ThreadMessage, options: StatementOptions = {}): Promise<ThreadReply> {
    if (this.gone || this.closing) return Promise.reject(this.gone ?? new Error('PGlite is closing'));
    const probe = options.priority === 'probe';
    if (!probe && this.waiting.length >= this.maxWaiting) return Promise.reject(new StatementQueueFullError(this.waiting.length));
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const submittedAt = performance.now();
      const statement: Statement = {
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
        timer = setTimeout(() => this.expire(statement, timeoutMs), timeoutMs);
      }
      // Probes go after the probes already waiting and before everything else.
      const at = probe ? this.waiting.findIndex((s) => !s.probe) : -1;
      this.waiting.splice(at === -1 ? this.waiting.length : at, 0, statement);
      this.pump();
    });
  }

  /**
   * Posts the next waiting statement when the thread is idle. One that has waited past half its budget is answered
   * "too busy" instead: started that late it would likely be stopped, and stopping one costs a restart (~0.4 s) during
   * which nothing runs, so under overload most of the thread's time would go to restarts (bench/RESULTS.md § 7).
   */
  private pump(): void {
    while (!this.running && !this.reopening && this.worker && !this.gone) {
      const statement = this.waiting.shift();
      if (!statement) return;
      const now = performance.now();
      if (statement.startBy !== undefined && now > statement.startBy) {
        statement.settle({ error: new StatementStartedTooLateError(now - statement.submittedAt) });
        continue;
      }
      this.running = { id: this.nextId++, statement };
      this.worker.postMessage({ id: this.running.id, ...statement.message });
    }
  }

  private onReply(worker: Worker, reply: ThreadReply): void {
    if (worker !== this.worker || reply.id === undefined || reply.id !== this.running?.id) return;
    const { statement } = this.running;
    this.running = null;
    statement.settle(reply.error ? { error: revive(reply.error) } : { reply });
    this.pump();
  }

  private expire(statement: Statement, timeoutMs: number): void {
    statement.settle({ error: new StatementTimeoutError(timeoutMs) });
    const at = this.waiting.indexOf(statement);
    if (at !== -1) {
      this.waiting.splice(at, 1);
      return;
    }
    if (this.running?.statement === statement && this.dataDir !== undefined && !this.closing) this.reopen();
  }

  /** Stops the statement in flight the only way there is: a new thread on the same data directory. */
  private reopen(): void {
    const old = this.worker;
    this.worker = null;
    this.running = null;
    this.restarts++;
    const began = performance.now();
    this.reopening = (async () => {
      await old?.terminate();
      await this.start();
    })().then(
      () => {
        this.reopening = null;
        this.pump();
        this.onRestart?.({ restarts: this.restarts, reopenMs: performance.now() - began });
      },
      (err: unknown) => {
        this.reopening = null;
        this.fail(`it could not be reopened after stopping a statement: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  }

  /** The thread is gone for good: every statement, waiting or running, fails as a closed store. */
  private fail(reason: string): void {
    this.gone ??= new Error(`PGlite is closed (${reason})`);
    const running = this.running?.statement;
    this.running = null;
    for (const statement of [...(running ? [running] : []), ...this.waiting.splice(0)]) statement.settle({ error: this.gone });
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
  }

  private async shutDown(): Promise<void> {
    if (this.gone) return;
    const closing = new Error('PGlite is closing');
    for (const statement of this.waiting.splice(0)) statement.settle({ error: closing });
    const grace = sleep(this.closeGraceMs);
    await Promise.race([this.reopening, grace]);
    const worker = this.worker;
    if (worker) {
      // Queued behind the statement in flight in the thread's own message loop: answered once it ends and PGlite closed.
      const answered = new Promise<boolean>((resolve) => {
        worker.on('message', (reply: ThreadReply) => reply.id === CLOSE_ID && resolve(true));
        worker.once('exit', () => resolve(false));
      });
      worker.postMessage({ id: CLOSE_ID, kind: 'close' });
      await Promise.race([answered, grace.then(() => false)]);
    }
    this.fail('closed');
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** PGlite in a worker thread of its own (see PgliteThread). */
export function openPgliteThread(dataDir?: string, options: PgliteThreadOptions = {}): Promise<PgliteThread> {
  return PgliteThread.open(dataDir, options);
}
