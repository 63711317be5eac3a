import { Inject, Injectable } from '@nestjs/common';
import type { UsageRecordedEvent } from '@gw/contracts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { keyUsageAt, type KeyCounters } from './key-usage.js';
import { periodStart, toDateString } from './usage-periods.js';

export interface RecordOutcome {
  /** False when this generation had been counted before (a redelivery): nothing changed. */
  counted: boolean;
  /** Keys whose cached principal is now stale: their key hit its limit, or the workspace ran dry. */
  keysToRefresh: string[];
}

interface RecordRow extends Partial<KeyCounters> {
  counted: boolean;
  hash: string | null;
  creditsTotal: Prisma.Decimal | null;
  usageTotal: Prisma.Decimal | null;
}

/**
 * Counts one generation, exactly once (docs/adr: usage-counting). One SQL statement inserts
 * the generation into the ledger ON CONFLICT DO NOTHING and, only when that insert happened,
 * adds to the key's counters and to the workspace's usage. A single statement is atomic: it
 * either does all three or nothing, so a crash at any point leaves nothing half-counted, and
 * a redelivered event finds its ledger row and changes nothing.
 */
@Injectable()
export class UsageRecorder {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaClient) {}

  async record(event: UsageRecordedEvent, now = new Date()): Promise<RecordOutcome> {
    const generatedAt = new Date(event.createdAt);
    const cost = new Prisma.Decimal(event.cost);
    // BYOK generations: the workspace pays the provider with its own key (upstreamCost) and
    // us only our fee (cost). byok_usage counts what went to the provider, as OpenRouter does.
    const byok = event.isByok ? new Prisma.Decimal(event.upstreamCost) : new Prisma.Decimal(0);
    const day = toDateString(periodStart('daily', generatedAt));
    const week = toDateString(periodStart('weekly', generatedAt));
    const month = toDateString(periodStart('monthly', generatedAt));
    const rows = await this.prisma.$queryRaw<RecordRow[]>`
      WITH ledger AS (
        INSERT INTO usage_ledger (generation_id, workspace_id, key_hash, cost, upstream_cost, is_byok, generated_at)
        VALUES (${event.generationId}, ${event.workspaceId}::uuid, ${event.keyHash}, ${cost}::numeric,
                ${new Prisma.Decimal(event.upstreamCost)}::numeric, ${event.isByok}, ${generatedAt})
        ON CONFLICT (generation_id) DO NOTHING
        RETURNING generation_id
      ),
      key_update AS (
        UPDATE api_keys SET
          usage = usage + ${cost}::numeric,
          byok_usage = byok_usage + ${byok}::numeric,
          ${bucketAssignments('daily', day, cost, byok)},
          ${bucketAssignments('weekly', week, cost, byok)},
          ${bucketAssignments('monthly', month, cost, byok)}
        WHERE hash = ${event.keyHash} AND EXISTS (SELECT 1 FROM ledger)
        RETURNING hash, "limit", limit_reset::text AS limit_reset, include_byok_in_limit, usage, byok_usage,
          usage_daily, byok_usage_daily, daily_period_start, usage_weekly, byok_usage_weekly, weekly_period_start,
          usage_monthly, byok_usage_monthly, monthly_period_start
      ),
      workspace_update AS (
        UPDATE workspaces SET usage_total = usage_total + ${cost}::numeric
        WHERE id = ${event.workspaceId}::uuid AND EXISTS (SELECT 1 FROM ledger)
        RETURNING credits_total, usage_total
      )
      SELECT EXISTS (SELECT 1 FROM ledger) AS counted,
        k.hash, k."limit", k.limit_reset AS "limitReset", k.include_byok_in_limit AS "includeByokInLimit",
        k.usage, k.byok_usage AS "byokUsage",
        k.usage_daily AS "usageDaily", k.byok_usage_daily AS "byokUsageDaily", k.daily_period_start AS "dailyPeriodStart",
        k.usage_weekly AS "usageWeekly", k.byok_usage_weekly AS "byokUsageWeekly", k.weekly_period_start AS "weeklyPeriodStart",
        k.usage_monthly AS "usageMonthly", k.byok_usage_monthly AS "byokUsageMonthly", k.monthly_period_start AS "monthlyPeriodStart",
        w.credits_total AS "creditsTotal", w.usage_total AS "usageTotal"
      FROM (SELECT 1) AS one
      LEFT JOIN key_update AS k ON true
      LEFT JOIN workspace_update AS w ON true`;
    const row = rows[0]!;
    if (!row.counted) return { counted: false, keysToRefresh: [] };
    return { counted: true, keysToRefresh: await this.keysToRefresh(event, row, cost, now) };
  }

  /**
   * A key at or past its limit is republished on every counted event (only generations in
   * flight when it crossed can still arrive); a workspace is republished once, when this
   * event took its balance from above 0 to 0 or below.
   */
  private async keysToRefresh(event: UsageRecordedEvent, row: RecordRow, cost: Prisma.Decimal, now: Date): Promise<string[]> {
    if (row.creditsTotal != null && row.usageTotal != null) {
      const balance = row.creditsTotal.minus(row.usageTotal);
      if (balance.lte(0) && balance.plus(cost).gt(0)) {
        const keys = await this.prisma.apiKey.findMany({ where: { workspaceId: event.workspaceId, disabled: false }, select: { hash: true } });
        return keys.map((key) => key.hash);
      }
    }
    if (row.hash && keyUsageAt(row as KeyCounters, now).limitReached) return [row.hash];
    return [];
  }
}

/**
 * The SET clauses of one period's buckets: add to a bucket of the event's period, restart a
 * bucket of an older period at this event, and leave a newer bucket alone (a late event of a
 * past period counts in the totals only).
 */
function bucketAssignments(cadence: 'daily' | 'weekly' | 'monthly', start: string, cost: Prisma.Decimal, byok: Prisma.Decimal): Prisma.Sql {
  const usage = Prisma.raw(`usage_${cadence}`);
  const byokUsage = Prisma.raw(`byok_usage_${cadence}`);
  const stamp = Prisma.raw(`${cadence}_period_start`);
  const bucket = Prisma.sql`${start}::date`;
  const add = (column: Prisma.Sql, amount: Prisma.Decimal) => Prisma.sql`${column} = CASE
      WHEN ${stamp} = ${bucket} THEN ${column} + ${amount}::numeric
      WHEN ${stamp} IS NULL OR ${stamp} < ${bucket} THEN ${amount}::numeric
      ELSE ${column} END`;
  return Prisma.sql`${add(usage, cost)}, ${add(byokUsage, byok)}, ${stamp} = GREATEST(COALESCE(${stamp}, ${bucket}), ${bucket})`;
}
