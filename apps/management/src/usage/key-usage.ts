import type { LimitReset } from '@gw/contracts';
import { Prisma, type ApiKey } from '../generated/prisma/client.js';
import { isCurrentPeriod } from './usage-periods.js';

type Decimal = Prisma.Decimal;
const ZERO = new Prisma.Decimal(0);

/** The counter columns of a key, as stored. */
export type KeyCounters = Pick<
  ApiKey,
  | 'limit'
  | 'limitReset'
  | 'includeByokInLimit'
  | 'usage'
  | 'byokUsage'
  | 'usageDaily'
  | 'byokUsageDaily'
  | 'dailyPeriodStart'
  | 'usageWeekly'
  | 'byokUsageWeekly'
  | 'weeklyPeriodStart'
  | 'usageMonthly'
  | 'byokUsageMonthly'
  | 'monthlyPeriodStart'
>;

/** A key's usage as of `now`: buckets of a past period read as 0 (they are never reset by a job). */
export interface KeyUsage {
  usage: Decimal;
  usageDaily: Decimal;
  usageWeekly: Decimal;
  usageMonthly: Decimal;
  byokUsage: Decimal;
  byokUsageDaily: Decimal;
  byokUsageWeekly: Decimal;
  byokUsageMonthly: Decimal;
  /** What counts against the limit in the current reset period; null without a limit. */
  limitRemaining: Decimal | null;
  limitReached: boolean;
}

export function keyUsageAt(key: KeyCounters, now: Date): KeyUsage {
  const current = (cadence: LimitReset, start: Date | null, value: Decimal) => (isCurrentPeriod(cadence, start, now) ? value : ZERO);
  const usage = {
    usage: key.usage,
    usageDaily: current('daily', key.dailyPeriodStart, key.usageDaily),
    usageWeekly: current('weekly', key.weeklyPeriodStart, key.usageWeekly),
    usageMonthly: current('monthly', key.monthlyPeriodStart, key.usageMonthly),
    byokUsage: key.byokUsage,
    byokUsageDaily: current('daily', key.dailyPeriodStart, key.byokUsageDaily),
    byokUsageWeekly: current('weekly', key.weeklyPeriodStart, key.byokUsageWeekly),
    byokUsageMonthly: current('monthly', key.monthlyPeriodStart, key.byokUsageMonthly),
  };
  if (key.limit === null) return { ...usage, limitRemaining: null, limitReached: false };
  const spent = spentAgainstLimit(key, usage);
  const remaining = key.limit.minus(spent);
  return { ...usage, limitRemaining: Prisma.Decimal.max(ZERO, remaining), limitReached: remaining.lte(0) };
}

/** Usage in the key's reset period (all time without one), plus BYOK usage when the key says so. */
function spentAgainstLimit(key: KeyCounters, usage: Omit<KeyUsage, 'limitRemaining' | 'limitReached'>): Decimal {
  const [own, byok] =
    key.limitReset === 'daily'
      ? [usage.usageDaily, usage.byokUsageDaily]
      : key.limitReset === 'weekly'
        ? [usage.usageWeekly, usage.byokUsageWeekly]
        : key.limitReset === 'monthly'
          ? [usage.usageMonthly, usage.byokUsageMonthly]
          : [usage.usage, usage.byokUsage];
  return key.includeByokInLimit ? own.plus(byok) : own;
}
