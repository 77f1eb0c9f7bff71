import { COLLECTIONS } from '#law/collections.ts';
import type { SearchIndex, VersionStore } from '#law/ports.ts';
import { StoreUnavailableError } from '#shared/errors.ts';
import type { HealthVerdict, OpsStore } from './ports.ts';

/** The probe runs at most this often, however often the endpoint is called. */
export const PROBE_INTERVAL_SECONDS = 300;
/** A verdict older than this is reported as unknown. */
const VERDICT_MAX_AGE_SECONDS = 900;
export const SERVICE_NAME = 'asof';

export interface HealthRecord {
  ok: boolean;
  status: 'healthy' | 'unhealthy' | 'unknown';
  reason: string;
  checkedSecondsAgo: number;
  service: string;
  timestamp: string;
}

export interface HealthDeps {
  versions: VersionStore;
  search: SearchIndex;
  ops: OpsStore;
  now: () => Date;
}

/** Process liveness: never touches a store. */
export const liveness = (now: Date): HealthRecord => ({
  ok: true,
  status: 'healthy',
  reason: 'ok',
  checkedSecondsAgo: 0,
  service: SERVICE_NAME,
  timestamp: now.toISOString(),
});

/**
 * Probe whether law can be served (both stores answer and some corpus is carried) and record the verdict. A store that
 * cannot answer is `<store>_unreachable`, one whose files are damaged or missing (being rebuilt) `<store>_damaged`.
 * Skips (returning the standing verdict) when the last probe is younger than PROBE_INTERVAL_SECONDS, unless forced.
 */
export async function probeCorpus(deps: HealthDeps, options: { force?: boolean } = {}): Promise<HealthVerdict> {
  const now = deps.now();
  if (!options.force) {
    const last = await deps.ops.getHealthVerdict().catch(() => null);
    if (last && now.getTime() - Date.parse(last.checkedAt) < PROBE_INTERVAL_SECONDS * 1000) return last;
  }
  let verdict: HealthVerdict;
  try {
    await deps.versions.ping();
    await deps.search.ping();
    const carried = await anyCarried(deps.versions);
    verdict = { checkedAt: now.toISOString(), reachable: carried, detail: carried ? 'ok' : 'empty_corpus' };
  } catch (err) {
    verdict = {
      checkedAt: now.toISOString(),
      reachable: false,
      detail:
        err instanceof StoreUnavailableError ? `${err.store}_${err.reason === 'damaged' ? 'damaged' : 'unreachable'}` : 'probe_failed',
    };
  }
  await deps.ops.putHealthVerdict(verdict).catch(() => undefined);
  return verdict;
}

/** Some collection's jurisdiction holds data: bounded queries, never a scan. */
async function anyCarried(versions: VersionStore): Promise<boolean> {
  for (const j of new Set(COLLECTIONS.map((c) => c.jurisdiction))) if (await versions.carries(j)) return true;
  return false;
}

/** The corpus health answer: the standing verdict, judged by its age; an unreachable store is unhealthy at once. */
export async function corpusHealth(deps: Pick<HealthDeps, 'ops' | 'now'>): Promise<HealthRecord> {
  const now = deps.now();
  const base = { service: SERVICE_NAME, timestamp: now.toISOString() };
  let verdict: HealthVerdict | null;
  try {
    verdict = await deps.ops.getHealthVerdict();
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    return { ...base, ok: false, status: 'unhealthy', reason: 'store_unreachable', checkedSecondsAgo: 0 };
  }
  if (!verdict) return { ...base, ok: false, status: 'unknown', reason: 'no_recent_probe', checkedSecondsAgo: -1 };
  const age = Math.max(0, Math.floor((now.getTime() - Date.parse(verdict.checkedAt)) / 1000));
  if (age > VERDICT_MAX_AGE_SECONDS) return { ...base, ok: false, status: 'unknown', reason: 'no_recent_probe', checkedSecondsAgo: age };
  if (!verdict.reachable) return { ...base, ok: false, status: 'unhealthy', reason: verdict.detail, checkedSecondsAgo: age };
  return { ...base, ok: true, status: 'healthy', reason: 'ok', checkedSecondsAgo: age };
}
