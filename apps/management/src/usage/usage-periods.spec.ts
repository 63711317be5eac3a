import { describe, expect, it } from 'vitest';
import { isCurrentPeriod, nextPeriodStart, periodStart, toDateString } from './usage-periods.js';

const at = (iso: string) => new Date(iso);
const day = (date: Date) => toDateString(date);

describe('usage periods (UTC, weeks start Monday)', () => {
  it('starts a day at 00:00 UTC, whatever the time of day', () => {
    expect(periodStart('daily', at('2026-03-04T00:00:00.000Z')).toISOString()).toBe('2026-03-04T00:00:00.000Z');
    expect(periodStart('daily', at('2026-03-04T23:59:59.999Z')).toISOString()).toBe('2026-03-04T00:00:00.000Z');
    expect(nextPeriodStart('daily', at('2026-03-04T23:59:59.999Z')).toISOString()).toBe('2026-03-05T00:00:00.000Z');
  });

  it('starts a week on Monday, Sunday belonging to the week before', () => {
    // 2026-03-02 is a Monday, 2026-03-08 a Sunday.
    expect(day(periodStart('weekly', at('2026-03-02T00:00:00Z')))).toBe('2026-03-02');
    expect(day(periodStart('weekly', at('2026-03-05T12:00:00Z')))).toBe('2026-03-02');
    expect(day(periodStart('weekly', at('2026-03-08T23:59:59.999Z')))).toBe('2026-03-02');
    expect(day(periodStart('weekly', at('2026-03-09T00:00:00Z')))).toBe('2026-03-09');
    expect(day(nextPeriodStart('weekly', at('2026-03-08T23:59:59Z')))).toBe('2026-03-09');
  });

  it('crosses month and year boundaries for weeks', () => {
    // Thursday 1 January 2026: its week started on Monday 29 December 2025.
    expect(day(periodStart('weekly', at('2026-01-01T10:00:00Z')))).toBe('2025-12-29');
    expect(day(nextPeriodStart('weekly', at('2025-12-31T10:00:00Z')))).toBe('2026-01-05');
  });

  it('starts a month on its first day and resets on the next first day, February and leap years included', () => {
    expect(day(periodStart('monthly', at('2026-01-31T23:59:59Z')))).toBe('2026-01-01');
    expect(day(nextPeriodStart('monthly', at('2026-01-31T23:59:59Z')))).toBe('2026-02-01');
    expect(day(nextPeriodStart('monthly', at('2026-02-15T00:00:00Z')))).toBe('2026-03-01');
    expect(day(periodStart('monthly', at('2028-02-29T12:00:00Z')))).toBe('2028-02-01');
    expect(day(nextPeriodStart('monthly', at('2026-12-31T23:59:59.999Z')))).toBe('2027-01-01');
  });

  it('uses UTC, not the local time zone of an offset timestamp', () => {
    // 23:30 on the 4th in New York is already the 5th in UTC.
    expect(day(periodStart('daily', at('2026-03-04T23:30:00-05:00')))).toBe('2026-03-05');
    // 00:30 on Monday in Berlin is still Sunday in UTC: the week before.
    expect(day(periodStart('weekly', at('2026-03-09T00:30:00+01:00')))).toBe('2026-03-02');
  });

  it('treats a bucket of a past period, or none, as not current', () => {
    const now = at('2026-03-10T08:00:00Z');
    expect(isCurrentPeriod('daily', at('2026-03-10T00:00:00Z'), now)).toBe(true);
    expect(isCurrentPeriod('daily', at('2026-03-09T00:00:00Z'), now)).toBe(false);
    expect(isCurrentPeriod('weekly', at('2026-03-09T00:00:00Z'), now)).toBe(true);
    expect(isCurrentPeriod('monthly', at('2026-02-01T00:00:00Z'), now)).toBe(false);
    expect(isCurrentPeriod('monthly', null, now)).toBe(false);
  });
});
