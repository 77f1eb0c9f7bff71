/**
 * A least-recently-used map, bounded in bytes, holding values read from one store table. It never answers with a
 * value the store might no longer hold: every entry was read while the table's stamp stayed the same, and the whole
 * map is dropped as soon as the stamp moves.
 */
export class StampedCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private bytes = 0;
  private validAt: number | null = null;

  constructor(
    private readonly stamp: () => number | null,
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: K): V | undefined {
    if (!this.current()) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key); // re-inserted last: most recently used
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, read from the store after `readStart` was taken, unless the store may have changed since. */
  set(key: K, value: V, readStart: number | null): void {
    if (readStart === null || !this.current() || this.validAt !== readStart) return;
    const bytes = this.sizeOf(value);
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /** Reads through the cache: a hit, or `load` from the store, kept if nothing changed meanwhile. */
  async through(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const readStart = this.stamp();
    const value = await load();
    this.set(key, value, readStart);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when the entries may be used; drops them (and starts over at the new stamp) when the stamp has moved. */
  private current(): boolean {
    const now = this.stamp();
    if (now !== this.validAt) {
      this.entries.clear();
      this.bytes = 0;
      this.validAt = now;
    }
    return now !== null;
  }
}
