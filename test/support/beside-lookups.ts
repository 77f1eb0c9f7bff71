/**
 * What a hostile request costs everyone else: while an attack runs, a second client keeps asking cheap lookups, one
 * after another, and the latencies it saw are returned (issue 29: p50 under 300 ms and no stall over 1.5 s). Build an
 * attack's bodies before calling this: work the test does itself on a shared event loop would be counted too. A key
 * admits at most 120 calls a minute (the edge limit): space the lookups (`everyMs`) or give them a key of their own
 * per attack, or they meet 429s.
 */

/** The bound every attack test holds the cheap lookups to. */
export const CHEAP_P50_MS = 300;
export const CHEAP_MAX_MS = 1_500;

export interface BesideLookups<T> {
  /** What the attack resolved to. */
  attack: T;
  /** Each cheap lookup's time to its whole answer, in the order asked. */
  latencies: number[];
  /** Their statuses: a cheap lookup must keep answering 200. */
  statuses: number[];
  p50: number;
  max: number;
}

export interface CheapLookup {
  /** The API base URL (…/v1). */
  url: string;
  key: string;
  /** Default `/law/lookup?jurisdiction=us&citation=1-1`: a section the sample carries, one DynamoDB read. */
  path?: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/**
 * Runs `attack` and, from its start until it settles (and at least `minMs`), cheap lookups every `everyMs` on their
 * own connection. A lookup still out when the attack ends is waited for: a stall at the very end is a stall too.
 */
export async function besideLookups<T>(
  cheap: CheapLookup,
  attack: () => Promise<T>,
  { everyMs = 50, minMs = 1_000 }: { everyMs?: number; minMs?: number } = {},
): Promise<BesideLookups<T>> {
  const latencies: number[] = [];
  const statuses: number[] = [];
  const target = `${cheap.url}${cheap.path ?? '/law/lookup?jurisdiction=us&citation=1-1'}`;
  let done = false;
  const started = performance.now();
  const prober = (async () => {
    while (!done || performance.now() - started < minMs) {
      const start = performance.now();
      const res = await fetch(target, { headers: { authorization: `Bearer ${cheap.key}` } });
      await res.arrayBuffer();
      latencies.push(performance.now() - start);
      statuses.push(res.status);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  try {
    const result = await attack();
    return await finish(result);
  } finally {
    done = true;
    await prober.catch(() => undefined);
  }

  async function finish(result: T): Promise<BesideLookups<T>> {
    done = true;
    await prober;
    return { attack: result, latencies, statuses, p50: median(latencies), max: Math.max(...latencies) };
  }
}
