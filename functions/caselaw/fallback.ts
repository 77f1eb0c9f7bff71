/**
 * The paid fallback: citations the replica does not hold (404) are looked up with the case-law provider on the
 * service's shared token, within a per-request cap and the token's daily budget. What it finds is written back into
 * the replica (the next caller finds it locally). A provider that is down, slow, throttling or answering garbage
 * never fails the request: the citations stay 404 and `status` says what happened.
 */
import type { OpsStore } from '#ops/ports.ts';
import { type CitationRow, type ClusterRecord, formKey, type ReplicaBatch } from './ports.ts';
import type { ResolvedCitation } from './resolve.ts';

export type FallbackStatus = 'ok' | 'unavailable' | 'rate_limited' | 'skipped' | 'none';

export interface FallbackSummary {
  attempted: number;
  resolved: number;
  capped: number;
  backfilled: number;
  status: FallbackStatus;
}

/** One citation the provider resolved, in the replica's terms. */
export interface ProviderMatch {
  /** The normalised form the provider matched (`volume reporter page`). */
  normalized: string[];
  status: 200 | 300 | 404 | 400 | 429;
  clusters: ClusterRecord[];
}

export type ProviderAnswer =
  | { kind: 'ok'; matches: ProviderMatch[] }
  | { kind: 'rate_limited'; retryAt: Date | null }
  | { kind: 'unavailable'; reason: string };

/** The provider's citation lookup (CourtListener's /api/rest/v4/citation-lookup/ in production; a fake in tests). */
export interface CitationProvider {
  lookup(citations: ReadonlyArray<{ volume: string; reporter: string; page: string }>): Promise<ProviderAnswer>;
}

/** The shared token's daily request budget, counted exactly (OpsStore.takeQuota). */
export interface FallbackQuota {
  take(day: string, limit: number): Promise<{ granted: boolean; remaining: number }>;
  remaining(day: string, limit: number): Promise<number>;
}

export interface FallbackConfig {
  provider: CitationProvider | null;
  /** Requests a UTC day on the shared token. */
  dailyRequests: number;
  /** Citations looked up per request at most. */
  perRequestCap: number;
}

/** No provider: a requested fallback answers `unavailable`. */
export const NO_FALLBACK: FallbackConfig = { provider: null, dailyRequests: 0, perRequestCap: 0 };

export interface FallbackDeps {
  provider: CitationProvider | null;
  quota: FallbackQuota;
  /** Writes what the provider found into the replica. */
  backfill(batch: ReplicaBatch): Promise<void>;
  now: () => Date;
  /** Requests a day on the shared token. */
  dailyRequests: number;
  /** Citations looked up per request at most (the rest are `capped`). */
  perRequestCap: number;
}

export interface FallbackOutcome {
  summary: FallbackSummary;
  results: ResolvedCitation[];
  /** The shared token's requests left today, for `x-asof-fallback-remaining`. */
  remaining: number;
}

/** While the provider said to wait (429 with `wait_until`), nothing is sent. Per process. */
let quietUntil = 0;

export function resetFallbackPause(): void {
  quietUntil = 0;
}

export async function runFallback(deps: FallbackDeps, results: ResolvedCitation[], caller: { test: boolean }): Promise<FallbackOutcome> {
  const day = deps.now().toISOString().slice(0, 10);
  const missing = results.filter((r) => r.status === 404 && r.parsed.normalized.length > 0);
  const summary: FallbackSummary = { attempted: 0, resolved: 0, capped: 0, backfilled: 0, status: 'none' };
  const remainingNow = async () => deps.quota.remaining(day, deps.dailyRequests).catch(() => 0);
  const skip = async (status: FallbackStatus): Promise<FallbackOutcome> => {
    summary.status = status;
    summary.capped = missing.length;
    return { summary, results, remaining: await remainingNow() };
  };
  if (missing.length === 0) return { summary, results, remaining: await remainingNow() };
  if (caller.test) return skip('skipped'); // test keys never reach the paid provider
  if (!deps.provider) return skip('unavailable');
  if (deps.now().getTime() < quietUntil) return skip('rate_limited');

  let grant: { granted: boolean; remaining: number };
  try {
    grant = await deps.quota.take(day, deps.dailyRequests);
  } catch {
    return skip('unavailable');
  }
  if (!grant.granted) return { ...(await skip('rate_limited')), remaining: 0 };

  const attempt = missing.slice(0, deps.perRequestCap);
  summary.attempted = attempt.length;
  summary.capped = missing.length - attempt.length;
  const forms = attempt.map((r) => ({ volume: r.parsed.volume, reporter: r.parsed.editions![0]!.key, page: r.parsed.page }));
  const answer = await deps.provider.lookup(forms);
  if (answer.kind === 'rate_limited') {
    quietUntil = answer.retryAt?.getTime() ?? deps.now().getTime() + 60_000;
    summary.status = 'rate_limited';
    return { summary, results, remaining: grant.remaining };
  }
  if (answer.kind === 'unavailable') {
    summary.status = 'unavailable';
    return { summary, results, remaining: grant.remaining };
  }

  const byForm = new Map<string, ProviderMatch>();
  for (const m of answer.matches) for (const n of m.normalized) byForm.set(n, m);
  const found = new Map<number, ClusterRecord>();
  const updated = results.map((r) => {
    if (!attempt.includes(r)) return r;
    const match = r.parsed.normalized
      .map((n) => byForm.get(n))
      .find((m) => m && (m.status === 200 || m.status === 300) && m.clusters.length > 0);
    if (!match) return r;
    summary.resolved++;
    for (const c of match.clusters) {
      // The same case may come back under each of its parallel citations: keep every citation it came with.
      const seen = found.get(c.id);
      found.set(
        c.id,
        seen
          ? { ...c, citations: [...seen.citations, ...c.citations.filter((x) => !seen.citations.some((y) => formKey(y) === formKey(x)))] }
          : c,
      );
    }
    return {
      ...r,
      status: match.status as 200 | 300,
      errorMessage: match.status === 300 ? `${match.clusters.length} clusters match (found by the fallback provider).` : '',
      clusters: match.clusters,
    };
  });
  summary.status = 'ok';
  if (found.size) {
    try {
      await deps.backfill(backfillBatch([...found.values()]));
      summary.backfilled = found.size;
    } catch {
      summary.backfilled = 0; // the answer stands; the replica learns it next time
    }
  }
  return { summary, results: updated, remaining: grant.remaining };
}

function backfillBatch(clusters: ClusterRecord[]): ReplicaBatch {
  return {
    clusters: clusters.map(({ courtCitationString: _c, citations: _x, ...row }) => row),
    citations: clusters.flatMap((c) => c.citations.map((x: CitationRow) => ({ ...x, clusterId: c.id }))),
  };
}

/** The daily budget as a quota of the operations store, one counter per UTC day. */
export function opsQuota(ops: Pick<OpsStore, 'takeQuota' | 'quotaUsed'>): FallbackQuota {
  const name = (day: string) => `courtlistener-requests-${day}`;
  return {
    async take(day, limit) {
      const { granted, used } = await ops.takeQuota(name(day), 1, limit);
      return { granted: granted === 1, remaining: Math.max(0, limit - used) };
    },
    async remaining(day, limit) {
      return Math.max(0, limit - (await ops.quotaUsed(name(day))));
    },
  };
}
