import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { keyUsageAt, type KeyCounters } from './key-usage.js';

const d = (value: string | number) => new Prisma.Decimal(value);
const NOW = new Date('2026-03-11T15:00:00Z'); // a Wednesday; its week began Monday 2026-03-09

function counters(overrides: Partial<KeyCounters> = {}): KeyCounters {
  return {
    limit: null,
    limitReset: null,
    includeByokInLimit: false,
    usage: d('10'),
    byokUsage: d('4'),
    usageDaily: d('1'),
    byokUsageDaily: d('0.5'),
    dailyPeriodStart: new Date('2026-03-11T00:00:00Z'),
    usageWeekly: d('3'),
    byokUsageWeekly: d('1.5'),
    weeklyPeriodStart: new Date('2026-03-09T00:00:00Z'),
    usageMonthly: d('6'),
    byokUsageMonthly: d('2.5'),
    monthlyPeriodStart: new Date('2026-03-01T00:00:00Z'),
    ...overrides,
  };
}

describe('a key usage as of now', () => {
  it('reads buckets of the current periods as stored', () => {
    const usage = keyUsageAt(counters(), NOW);
    expect([usage.usageDaily, usage.usageWeekly, usage.usageMonthly].map(String)).toEqual(['1', '3', '6']);
    expect([usage.byokUsageDaily, usage.byokUsageWeekly, usage.byokUsageMonthly].map(String)).toEqual(['0.5', '1.5', '2.5']);
    expect(usage.limitRemaining).toBeNull();
    expect(usage.limitReached).toBe(false);
  });

  it('reads a bucket of a past period as 0, never as a stale number', () => {
    const usage = keyUsageAt(
      counters({
        dailyPeriodStart: new Date('2026-03-10T00:00:00Z'),
        weeklyPeriodStart: new Date('2026-03-02T00:00:00Z'),
        monthlyPeriodStart: new Date('2026-02-01T00:00:00Z'),
      }),
      NOW,
    );
    expect([usage.usageDaily, usage.usageWeekly, usage.usageMonthly, usage.byokUsageDaily].map(String)).toEqual(['0', '0', '0', '0']);
    expect(String(usage.usage)).toBe('10');
  });

  it('derives limit_remaining from the reset period, with BYOK only when the key says so', () => {
    expect(String(keyUsageAt(counters({ limit: d('5'), limitReset: 'weekly' }), NOW).limitRemaining)).toBe('2');
    expect(String(keyUsageAt(counters({ limit: d('5'), limitReset: 'weekly', includeByokInLimit: true }), NOW).limitRemaining)).toBe('0.5');
    expect(String(keyUsageAt(counters({ limit: d('5'), limitReset: 'daily' }), NOW).limitRemaining)).toBe('4');
    // No reset: all-time usage counts.
    expect(String(keyUsageAt(counters({ limit: d('12') }), NOW).limitRemaining)).toBe('2');
  });

  it('reaches the limit at equality, never goes below 0, and is free again in a new period', () => {
    const atLimit = keyUsageAt(counters({ limit: d('6'), limitReset: 'monthly' }), NOW);
    expect(atLimit.limitReached).toBe(true);
    expect(String(atLimit.limitRemaining)).toBe('0');
    const over = keyUsageAt(counters({ limit: d('1'), limitReset: 'monthly' }), NOW);
    expect(String(over.limitRemaining)).toBe('0');
    const nextMonth = keyUsageAt(counters({ limit: d('1'), limitReset: 'monthly' }), new Date('2026-04-01T00:00:00Z'));
    expect(nextMonth.limitReached).toBe(false);
    expect(String(nextMonth.limitRemaining)).toBe('1');
  });

  it('keeps decimals exact', () => {
    const usage = keyUsageAt(counters({ limit: d('0.3'), usage: d('0.1').plus(d('0.2')) }), NOW);
    expect(String(usage.limitRemaining)).toBe('0');
    expect(usage.limitReached).toBe(true);
  });
});
