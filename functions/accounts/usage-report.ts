import { secondsToNextUtcDay, secondsToNextUtcMonth } from '#shared/dates.ts';
import type { PlanBook } from './plans.ts';
import type { ApiKeyRecord, Ceilings, MeterStore } from './ports.ts';
import { windowsAt } from './windows.ts';

export interface RouteUsage {
  routeId: string;
  calls: number;
  units: number;
  /** HTTP status → calls */
  statuses: Record<string, number>;
}

/** What `asof keys usage ID` shows: a key's use today and this month, and what is left of each ceiling. */
export interface UsageReport {
  keyId: string;
  name: string;
  test: boolean;
  plan: string;
  ceilings: Ceilings;
  today: { date: string; units: number; calls: number; byRoute: RouteUsage[] };
  month: { month: string; units: number; days: { date: string; units: number }[] };
  remaining: { minute: number; day: number; month: number };
  /** Seconds until each window starts afresh. */
  resetsIn: { day: number; month: number };
}

/**
 * Today's calls come from the usage records (every keyed call, billed or not); the units come from the counters
 * that decide admission, so the remaining figures are exactly what the next call is checked against.
 */
export async function usageReport(store: MeterStore, plans: PlanBook, key: ApiKeyRecord, now: Date): Promise<UsageReport> {
  const windows = windowsAt(now);
  const date = now.toISOString().slice(0, 10);
  const [usage, month, records] = await Promise.all([
    store.usage(key.id, windows),
    store.month(key.id, windows.month),
    store.records(key.id, date),
  ]);
  const ceilings = plans.ceilingsOf(key);

  const byRoute = new Map<string, RouteUsage>();
  for (const r of records) {
    const row = byRoute.get(r.routeId) ?? { routeId: r.routeId, calls: 0, units: 0, statuses: {} };
    row.calls++;
    row.units += r.units;
    row.statuses[r.status] = (row.statuses[r.status] ?? 0) + 1;
    byRoute.set(r.routeId, row);
  }
  const left = (quota: number, used: number) => Math.max(0, quota - used);
  return {
    keyId: key.id,
    name: key.name,
    test: key.test,
    plan: key.plan,
    ceilings,
    today: {
      date,
      units: usage.day,
      calls: records.length,
      byRoute: [...byRoute.values()].sort((a, b) => a.routeId.localeCompare(b.routeId)),
    },
    month: {
      month: windows.month,
      units: month.units,
      days: Object.entries(month.days)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([day, units]) => ({ date: `${windows.month}-${day}`, units })),
    },
    remaining: {
      minute: left(ceilings.perMinute, usage.minute),
      day: left(ceilings.daily, usage.day),
      month: left(ceilings.monthly, usage.month),
    },
    resetsIn: { day: secondsToNextUtcDay(now), month: secondsToNextUtcMonth(now) },
  };
}
