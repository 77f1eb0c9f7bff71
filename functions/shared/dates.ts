/** Calendar dates (YYYY-MM-DD) and the offset-carrying timestamps that bound version validity. */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (rejects 2019-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** The calendar date of an ISO timestamp as written (its own offset), e.g. '2024-03-18T00:00:00-04:00' → '2024-03-18'. */
export const localDateOf = (isoWithOffset: string): string => isoWithOffset.slice(0, 10);

const utcDateOf = (instant: Date): string => instant.toISOString().slice(0, 10);

/** The YYYY-MM-DD a date or timestamp string starts with, or null when it does not start with one. */
export const leadingDate = (value: unknown): string | null =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return utcDateOf(new Date(Date.UTC(y, m - 1, d + days)));
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes east of UTC of `timeZone` at `instant`. */
function offsetMinutes(timeZone: string, instant: number): number {
  let fmt = offsetFormatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, fmt);
  }
  const name = fmt.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

const formatOffset = (minutes: number): string => {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
};

/** Local midnight of `date` in `timeZone`, written with that zone's offset: '2024-03-18T00:00:00-04:00'. */
export function localMidnight(date: string, timeZone: string): string {
  const key = `${timeZone} ${date}`;
  let found = midnights.get(key);
  if (found === undefined) {
    // Bounded: an ingest asks for the same few dates (its editions' and their versions') many times over.
    if (midnights.size >= MIDNIGHTS_KEPT) midnights.clear();
    found = computeLocalMidnight(date, timeZone);
    midnights.set(key, found);
  }
  return found;
}

/** localMidnight's answers (Intl's offsets are slow to ask for), by time zone and date. */
const midnights = new Map<string, string>();
const MIDNIGHTS_KEPT = 4_096;

function computeLocalMidnight(date: string, timeZone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(y, m - 1, d);
  // Two passes settle the offset on DST-change days (changes happen at 02:00 local, after midnight).
  let offset = offsetMinutes(timeZone, utcMidnight);
  offset = offsetMinutes(timeZone, utcMidnight - offset * 60_000);
  return `${date}T00:00:00${formatOffset(offset)}`;
}

/** Seconds from `now` until the next 00:00 UTC. */
export function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.ceil((next - now.getTime()) / 1000);
}

/** Seconds from `now` until the 1st of next month, 00:00 UTC. */
export function secondsToNextUtcMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.ceil((next - now.getTime()) / 1000);
}
