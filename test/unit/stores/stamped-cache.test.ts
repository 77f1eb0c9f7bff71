import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WriteTracker } from '#stores/cache/change-stamps.ts';
import { StampedCache } from '#stores/cache/stamped-cache.ts';

const T = 'versions';

function cacheOn(tracker: WriteTracker, maxBytes = 1_000) {
  return new StampedCache<string, string>(
    () => tracker.stamp(T),
    maxBytes,
    (v) => v.length,
  );
}

describe('WriteTracker', () => {
  it('gives no stamp while a write is in flight, and a new one after it', () => {
    const tracker = new WriteTracker();
    const before = tracker.stamp(T);

    tracker.begin(T);
    const during = tracker.stamp(T);
    tracker.end(T);
    const after = tracker.stamp(T);

    expect(before).not.toBeNull();
    expect(during).toBeNull();
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect(tracker.stamp('other')).not.toBeNull(); // tables are independent
  });

  it('gives no stamp for a table once closed, and goes on stamping the others', () => {
    const tracker = new WriteTracker();
    tracker.stamp('a');

    tracker.close('a');
    tracker.end('a');

    expect(tracker.stamp('a')).toBeNull();
    expect(tracker.stamp('b')).not.toBeNull();
  });

  it('ends an announced write even when it fails', async () => {
    const tracker = new WriteTracker();
    const before = tracker.stamp(T);

    await expect(tracker.around(T, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');

    expect(tracker.stamp(T)).not.toBeNull();
    expect(tracker.stamp(T)).not.toBe(before);
  });
});

describe('StampedCache', () => {
  it('answers what it was given while the stamp holds, and nothing once it moves', () => {
    const tracker = new WriteTracker();
    const cache = cacheOn(tracker);
    cache.set('k', 'v1', tracker.stamp(T));
    expect(cache.get('k')).toBe('v1');

    tracker.begin(T);
    expect(cache.get('k')).toBeUndefined(); // a write in flight: nothing is answered
    tracker.end(T);

    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('refuses a value read across a write, or read while one was in flight', () => {
    const tracker = new WriteTracker();
    const cache = cacheOn(tracker);

    const readStart = tracker.stamp(T);
    tracker.begin(T);
    tracker.end(T);
    cache.set('across', 'old', readStart);

    tracker.begin(T);
    const during = tracker.stamp(T);
    tracker.end(T);
    cache.set('during', 'mixed', during);

    expect(cache.get('across')).toBeUndefined();
    expect(cache.get('during')).toBeUndefined();
  });

  it('evicts the least recently used entries beyond its byte budget, and never keeps an oversized one', () => {
    const tracker = new WriteTracker();
    const cache = cacheOn(tracker, 10);
    const s = tracker.stamp(T);
    cache.set('a', 'aaaa', s);
    cache.set('b', 'bbbb', s);
    cache.get('a'); // a is now the most recent

    cache.set('c', 'cccc', s);
    cache.set('huge', 'x'.repeat(11), s);

    expect(cache.get('a')).toBe('aaaa');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBe('cccc');
    expect(cache.get('huge')).toBeUndefined();
  });

  it('through() loads once and then answers from memory', async () => {
    const tracker = new WriteTracker();
    const cache = cacheOn(tracker);
    let loads = 0;
    const load = async () => `value ${++loads}`;

    const first = await cache.through('k', load);
    const second = await cache.through('k', load);
    await tracker.around(T, async () => undefined);
    const third = await cache.through('k', load);

    expect([first, second, third]).toEqual(['value 1', 'value 1', 'value 2']);
  });

  it('never answers a value older than the last write, whatever the interleaving (property)', () => {
    let hits = 0;
    // A model: the "store" is a map written only between begin and end; reads take a stamp, read the store, and
    // offer the value to the cache later (possibly after other writes). Every cache hit must equal the store now.
    type Op =
      | { kind: 'write'; key: number; value: number; readDuring: boolean }
      | { kind: 'readStart'; key: number }
      | { kind: 'readEnd'; which: number }
      | { kind: 'get'; key: number };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), key: fc.nat(3), value: fc.nat(100), readDuring: fc.boolean() }),
      fc.record({ kind: fc.constant('readStart' as const), key: fc.nat(3) }),
      fc.record({ kind: fc.constant('readEnd' as const), which: fc.nat(5) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 80 }), (ops: Op[]) => {
        const tracker = new WriteTracker();
        const store = new Map<number, number>();
        const cache = new StampedCache<number, number | undefined>(
          () => tracker.stamp(T),
          1_000,
          () => 1,
        );
        const pending: Array<{ key: number; value: number | undefined; stamp: number | null }> = [];
        for (const o of ops) {
          if (o.kind === 'write') {
            tracker.begin(T);
            // a read that starts while the write is in flight sees either state; model the worst: the old one
            if (o.readDuring) pending.push({ key: o.key, value: store.get(o.key), stamp: tracker.stamp(T) });
            store.set(o.key, o.value);
            tracker.end(T);
          } else if (o.kind === 'readStart') {
            pending.push({ key: o.key, value: store.get(o.key), stamp: tracker.stamp(T) });
          } else if (o.kind === 'readEnd') {
            const [r] = pending.splice(o.which % Math.max(1, pending.length), 1);
            if (r) cache.set(r.key, r.value, r.stamp);
          } else {
            const hit = cache.get(o.key);
            if (hit !== undefined) {
              hits++;
              expect(hit).toBe(store.get(o.key));
            }
          }
        }
      }),
      { numRuns: 300 },
    );
    expect(hits).toBeGreaterThan(0); // the property was exercised on real hits, not only on misses
  });
});
