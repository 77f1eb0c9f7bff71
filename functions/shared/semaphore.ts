/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait their turn in the order they asked. Shared
 * by every request of a process, it bounds work that per-request bounds alone let grow with the number of requests
 * (each request's statute lookups, functions/caselaw/statutes.ts; tool calls run in process, functions/http/mcp). With
 * a bound on the line (`maxWaiting`), one more task than both is refused at once rather than queued without end:
 * what an answer "too busy" is made of. A task that fails releases its place as one that succeeds does.
 */
export class Semaphore {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a semaphore's limit must be a positive integer (got ${limit})`);
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting for a place. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `task` once a place is free, and frees it when the task settles. When the line is full too, answers
   * `refused()` at once without running the task (a semaphore whose line is bounded needs it).
   */
  async run<T>(task: () => Promise<T>, refused?: () => T): Promise<T> {
    if (this.#running < this.limit) this.#running++;
    else {
      if (this.#waiting.length >= this.maxWaiting) {
        if (!refused) throw new Error(`the semaphore's line is full (${this.maxWaiting} waiting) and the task has no refusal`);
        return refused();
      }
      // The place is handed over by `release` (the count stays as it was), so no newcomer can take it first.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}
