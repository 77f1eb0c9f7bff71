/** The UTC windows a call is counted in: its minute (requests), its day and its month (billable units). */
export interface MeterWindows {
  /** `YYYY-MM` */
  month: string;
  /** `DD`, the day within `month` */
  day: string;
  /** `YYYY-MM-DDTHH:MM`: sorts in time order */
  minute: string;
}

export function windowsAt(now: Date): MeterWindows {
  const iso = now.toISOString();
  return { month: iso.slice(0, 7), day: iso.slice(8, 10), minute: iso.slice(0, 16) };
}

/** Seconds from `now` to the start of the next UTC minute (1–60). */
export const secondsToNextMinute = (now: Date): number => Math.ceil((60_000 - (now.getTime() % 60_000)) / 1000);

/** Length of the UTC month `now` is in, in seconds. */
export function secondsInMonth(now: Date): number {
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) / 1000;
}
