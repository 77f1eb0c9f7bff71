import { describe, expect, it } from 'vitest';
import { Semaphore } from '#shared/semaphore.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('Semaphore', () => {
  it('runs at most its limit at once, the others in the order they asked, and frees a place on failure', async () => {
    const gate = new Semaphore(2);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const task = (i: number) =>
      gate.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await tick();
        running--;
        if (i === 1) throw new Error('task 1 failed');
        return i;
      });

    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map(task));

    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([0, 'task 1 failed', 2, 3, 4]);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new Semaphore(0)).toThrow(/positive integer \(got 0\)/);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
