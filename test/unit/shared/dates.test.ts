import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isCalendarDate, localMidnight, secondsToNextUtcDay, secondsToNextUtcMonth } from '#shared/dates.ts';

describe('isCalendarDate', () => {
  it.each(['2019-03-01', '2024-02-29', '1947-07-30', '9999-12-31'])('accepts %s', (d) => expect(isCalendarDate(d)).toBe(true));
  it.each(['2019-02-30', '2023-02-29', '2019-13-01', '2019-3-1', '20190301', '2019-03-01T00:00:00Z', '', ' 2019-03-01'])(
    'rejects %j',
    (d) => expect(isCalendarDate(d)).toBe(false),
  );
});

describe('localMidnight', () => {
  it('writes the zone offset in force that day, across DST changes', () => {
    expect(localMidnight('2024-03-09', 'America/New_York')).toBe('2024-03-09T00:00:00-05:00');
    expect(localMidnight('2024-03-10', 'America/New_York')).toBe('2024-03-10T00:00:00-05:00'); // DST starts 02:00
    expect(localMidnight('2024-03-11', 'America/New_York')).toBe('2024-03-11T00:00:00-04:00');
    expect(localMidnight('2024-11-03', 'America/New_York')).toBe('2024-11-03T00:00:00-04:00'); // DST ends 02:00
    expect(localMidnight('2024-11-04', 'America/New_York')).toBe('2024-11-04T00:00:00-05:00');
    expect(localMidnight('2026-03-07', 'America/Chicago')).toBe('2026-03-07T00:00:00-06:00');
  });

  it('names the same instant as local midnight, for any date', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), (d) => {
        const date = d.toISOString().slice(0, 10);
        const iso = localMidnight(date, 'America/New_York');
        const local = new Intl.DateTimeFormat('en-CA', {
          timeZone: 'America/New_York',
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
        }).format(new Date(iso));
        expect(local).toBe(`${date}, 00:00`);
      }),
    );
  });
});

describe('windows', () => {
  it('counts seconds to the next UTC day and month', () => {
    const now = new Date('2024-02-29T23:59:30Z');
    expect(secondsToNextUtcDay(now)).toBe(30);
    expect(secondsToNextUtcMonth(now)).toBe(30);
    expect(secondsToNextUtcDay(new Date('2024-03-01T00:00:00Z'))).toBe(86_400);
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
  });
});
