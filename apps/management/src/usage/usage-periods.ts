import type { LimitReset } from '@gw/contracts';

/*
 * Spend-limit periods. Every period starts at 00:00 UTC: a day, a week starting on Monday,
 * a calendar month. Buckets are keyed by their period's first day, so "is this bucket
 * current?" is a date comparison and a bucket of a past period reads as 0.
 */

const DAY_MS = 24 * 3600 * 1000;

/** 00:00 UTC of the first day of the period that contains `at`. */
export function periodStart(cadence: LimitReset, at: Date): Date {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const day = at.getUTCDate();
  if (cadence === 'daily') return new Date(Date.UTC(year, month, day));
  if (cadence === 'monthly') return new Date(Date.UTC(year, month, 1));
  // getUTCDay: Sunday 0 ... Saturday 6; days since Monday: Monday 0 ... Sunday 6.
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(year, month, day - sinceMonday));
}

/** 00:00 UTC of the first day of the next period: when a limit of this cadence resets. */
export function nextPeriodStart(cadence: LimitReset, at: Date): Date {
  const start = periodStart(cadence, at);
  if (cadence === 'daily') return new Date(start.getTime() + DAY_MS);
  if (cadence === 'weekly') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** True when a bucket stamped with `bucketStart` belongs to the period containing `at`. */
export function isCurrentPeriod(cadence: LimitReset, bucketStart: Date | null, at: Date): boolean {
  return bucketStart !== null && bucketStart.getTime() === periodStart(cadence, at).getTime();
}

/** `YYYY-MM-DD` of a period start, for SQL `date` parameters. */
export function toDateString(date: Date): string {
  return date.toISOString().slice(0, 10);
}
