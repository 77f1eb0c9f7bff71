/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait their turn in the order they asked. Shared
 * by every request of a process, it bounds work that per-request bounds alone let grow with the number of requests
 * (each request's statute lookups, functions/caselaw/statutes.ts). A task that fails releases its place as one that
 * succeeds does.
 */
export class Semaphore {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
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

  /** Runs `task` once a place is free, and frees it when the task settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.limit) this.#running++;
    // The place is handed over by `release` (the count stays as it was), so no newcomer can take it first.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
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
