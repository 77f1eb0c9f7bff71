/** The edge limit: requests per minute per presented token, counted before any key is looked up. */
export const EDGE_LIMIT_PER_MINUTE = 120;

/**
 * The public site's pages that read the law (a section page, its comparison of two versions, a search): requests per
 * minute per client address, all such pages together. A person reading pages opens far fewer; a script fetching
 * diffs from many connections meets it within seconds. In AWS the site's web ACL counts the same paths per address.
 */
export const SITE_READS_PER_MINUTE = 60;

export interface EdgeVerdict {
  allowed: boolean;
  /** Requests this token has made in the current minute, this one included. */
  count: number;
}

/**
 * The edge rule of the API Gateway stage (a WAF rate rule keyed on the Authorization header), in process: a fixed
 * UTC-minute window per token, kept in memory and forgotten when the minute ends. It protects the key store, so it
 * never reads it: a flood of made-up tokens is refused here however many there are. Memory is bounded: past
 * `maxTokens` distinct tokens in one minute, new tokens are not tracked (each one is then refused by key lookup).
 */
export class EdgeLimiter {
  private minute = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly limit: number = EDGE_LIMIT_PER_MINUTE,
    private readonly maxTokens: number = 100_000,
  ) {}

  hit(token: string, now: Date): EdgeVerdict {
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.minute) {
      this.counts.clear();
      this.minute = minute;
    }
    const known = this.counts.get(token);
    if (known === undefined && this.counts.size >= this.maxTokens) return { allowed: true, count: 1 };
    const count = (known ?? 0) + 1;
    this.counts.set(token, count);
    return { allowed: count <= this.limit, count };
  }
}
