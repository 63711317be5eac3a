import type { UsageRecordedEvent } from '@gw/contracts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { keyUsageAt, type KeyCounters } from '../usage/key-usage.js';
import type { CountOutcome } from '../usage/usage-counter.js';
import { periodStart, toDateString } from '../usage/usage-periods.js';

type KeyRow = KeyCounters & { hash: string };

interface WorkspaceRow {
  id: string;
  creditsTotal: Prisma.Decimal;
  usageTotal: Prisma.Decimal;
}

/** What one key adds in one set of periods (events of a batch rarely straddle a midnight). */
interface KeyGroup {
  keyHash: string;
  day: string;
  week: string;
  month: string;
  cost: Prisma.Decimal;
  byok: Prisma.Decimal;
}

const ZERO = new Prisma.Decimal(0);
const DAY_MS = 24 * 3600 * 1000;

/**
 * The counting before the one SQL statement, through Prisma's transaction: kept only as the reference the
 * equivalence spec (usage-counter.int-spec.ts) compares `UsageCounter`'s one statement against.
 *
 * Counts generations exactly once, a batch per transaction: the batch goes
 * into the ledger with one INSERT ... ON CONFLICT DO NOTHING, and only the rows that insert
 * returned are added to their keys' counters and their workspaces' usage, summed per key and
 * period. One transaction does all of it or nothing, so a crash at any point leaves nothing
 * half-counted, and a redelivered event finds its ledger row and adds nothing. Rows are locked
 * keys first (in hash order), then workspaces (in id order), so batches cannot deadlock.
 */
export class PrismaUsageCounter {
  constructor(private readonly prisma: PrismaClient) {}

  /** One event: what tests and the replay of a single generation use. */
  async count(event: UsageRecordedEvent, now = new Date()): Promise<{ counted: boolean; keysToRefresh: string[] }> {
    const outcome = await this.countBatch([event], now);
    return { counted: outcome.counted.length === 1, keysToRefresh: outcome.keysToRefresh };
  }

  async countBatch(events: UsageRecordedEvent[], now = new Date()): Promise<CountOutcome> {
    // Lines of a batch are charged with their batch, by its one `batch_charge` event.
    const charged = events.filter((event) => !event.batchId);
    const unique = [...new Map(charged.map((event) => [event.generationId, event])).values()];
    if (unique.length === 0) return { counted: [], keysToRefresh: [] };
    return this.prisma.$transaction(async (tx) => {
      const inserted = await tx.$queryRaw<Array<{ generation_id: string }>>`
        INSERT INTO usage_ledger (generation_id, workspace_id, key_hash, cost, upstream_cost, is_byok, generated_at)
        VALUES ${Prisma.join(
          unique.map(
            (event) => Prisma.sql`(${event.generationId}, ${event.workspaceId}::uuid, ${event.keyHash}, ${event.cost}::numeric,
              ${event.upstreamCost}::numeric, ${event.isByok}, ${new Date(event.createdAt)})`,
          ),
        )}
        ON CONFLICT (generation_id) DO NOTHING
        RETURNING generation_id`;
      const countedIds = new Set(inserted.map((row) => row.generation_id));
      const counted = unique.filter((event) => countedIds.has(event.generationId));
      if (counted.length === 0) return { counted: [], keysToRefresh: [] };

      const keyRows: KeyRow[] = [];
      for (const group of groupByKeyAndPeriod(counted)) keyRows.push(...(await addToKey(tx, group)));
      const workspaceCost = sumBy(
        counted,
        (event) => event.workspaceId,
        (event) => new Prisma.Decimal(event.cost),
      );
      const workspaceRows: WorkspaceRow[] = [];
      for (const [workspaceId, cost] of [...workspaceCost].sort(([a], [b]) => a.localeCompare(b))) {
        workspaceRows.push(
          ...(await tx.$queryRaw<WorkspaceRow[]>`
            UPDATE workspaces SET usage_total = usage_total + ${cost}::numeric WHERE id = ${workspaceId}::uuid
            RETURNING id, credits_total AS "creditsTotal", usage_total AS "usageTotal"`),
        );
      }
      const keysToRefresh = new Set<string>();
      for (const key of keyRows) if (keyUsageAt(key, now).limitReached) keysToRefresh.add(key.hash);
      for (const workspace of workspaceRows) {
        // Republished once, when this batch took the balance from above 0 to 0 or below.
        const balance = workspace.creditsTotal.minus(workspace.usageTotal);
        if (balance.lte(0) && balance.plus(workspaceCost.get(workspace.id)!).gt(0)) {
          const keys = await tx.apiKey.findMany({ where: { workspaceId: workspace.id, disabled: false }, select: { hash: true } });
          for (const key of keys) keysToRefresh.add(key.hash);
        }
      }
      return { counted: counted.map((event) => event.generationId), keysToRefresh: [...keysToRefresh] };
    });
  }
}

type Transaction = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/** Adds a group's sums to its key's total and period buckets; returns the key's counters after. */
function addToKey(tx: Transaction, group: KeyGroup): Promise<KeyRow[]> {
  const { cost, byok } = group;
  return tx.$queryRaw<KeyRow[]>`
    UPDATE api_keys SET
      usage = usage + ${cost}::numeric,
      byok_usage = byok_usage + ${byok}::numeric,
      ${bucketAssignments('daily', group.day, cost, byok)},
      ${bucketAssignments('weekly', group.week, cost, byok)},
      ${bucketAssignments('monthly', group.month, cost, byok)}
    WHERE hash = ${group.keyHash}
    RETURNING hash, "limit", limit_reset::text AS "limitReset", include_byok_in_limit AS "includeByokInLimit",
      usage, byok_usage AS "byokUsage",
      usage_daily AS "usageDaily", byok_usage_daily AS "byokUsageDaily", daily_period_start AS "dailyPeriodStart",
      usage_weekly AS "usageWeekly", byok_usage_weekly AS "byokUsageWeekly", weekly_period_start AS "weeklyPeriodStart",
      usage_monthly AS "usageMonthly", byok_usage_monthly AS "byokUsageMonthly", monthly_period_start AS "monthlyPeriodStart"`;
}

/**
 * Sums per key and period, in key-hash order (the lock order). BYOK generations: the
 * workspace pays the provider with its own key (upstreamCost) and us only our fee (cost);
 * byok_usage counts what went to the provider, as OpenRouter does.
 */
function groupByKeyAndPeriod(events: UsageRecordedEvent[]): KeyGroup[] {
  const groups = new Map<string, KeyGroup>();
  // Periods depend only on the UTC day, which a batch's events nearly always share: worked out once per day.
  const periodsOfDay = new Map<number, { day: string; week: string; month: string }>();
  for (const event of events) {
    const generatedAt = new Date(event.createdAt);
    const utcDay = Math.floor(generatedAt.getTime() / DAY_MS);
    let periods = periodsOfDay.get(utcDay);
    if (!periods) {
      periods = {
        day: toDateString(periodStart('daily', generatedAt)),
        week: toDateString(periodStart('weekly', generatedAt)),
        month: toDateString(periodStart('monthly', generatedAt)),
      };
      periodsOfDay.set(utcDay, periods);
    }
    const { day, week, month } = periods;
    const id = `${event.keyHash}|${day}|${week}|${month}`;
    const group = groups.get(id) ?? { keyHash: event.keyHash, day, week, month, cost: ZERO, byok: ZERO };
    group.cost = group.cost.plus(event.cost);
    if (event.isByok) group.byok = group.byok.plus(event.upstreamCost);
    groups.set(id, group);
  }
  // Oldest periods first within a key, so a bucket moves forward and never back within a batch.
  return [...groups.values()].sort((a, b) => a.keyHash.localeCompare(b.keyHash) || a.day.localeCompare(b.day));
}

function sumBy<T>(items: T[], keyOf: (item: T) => string, amountOf: (item: T) => Prisma.Decimal): Map<string, Prisma.Decimal> {
  const sums = new Map<string, Prisma.Decimal>();
  for (const item of items) sums.set(keyOf(item), (sums.get(keyOf(item)) ?? ZERO).plus(amountOf(item)));
  return sums;
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
