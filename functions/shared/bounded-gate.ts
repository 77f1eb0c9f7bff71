/**
 * At most `running` tasks at once and `waiting` more in line, first come first served; one more than both is
 * refused at once rather than queued without end (what an answer "too busy" is made of).
 */
export class BoundedGate {
  private active = 0;
  private readonly line: Array<() => void> = [];

  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {}

  /** Runs `task` when a place is free; when the line is full too, answers `refused()` at once without running it. */
  async run<T>(task: () => Promise<T>, refused: () => T): Promise<T> {
    if (this.active < this.running) {
      this.active++;
    } else {
      if (this.line.length >= this.waiting) return refused();
      // The place is handed over by the task that ends (see finally): `active` stays as it was.
      await new Promise<void>((resolve) => this.line.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Tasks running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.line.length };
  }
}
