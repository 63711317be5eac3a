import type { UsageRecordedEvent } from '@gw/contracts';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { Prisma } from '../generated/prisma/client.js';
import { BUDGET_SPEND_CTE } from './budget-spend-sql.js';
import { keyUsageAt, type KeyCounters } from './key-usage.js';
import { periodStart, toDateString } from './usage-periods.js';

export interface CountOutcome {
  /** Generations of the batch counted now; the others had been counted before (redeliveries). */
  counted: string[];
  /** Keys whose cached principal is now stale: their key hit its limit, or the workspace ran dry. */
  keysToRefresh: string[];
}

/** What the counter needs of a `pg.Pool` (management's, shared with Prisma's driver adapter). */
export interface UsageDatabase {
  query<R extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<R>>;
}

/** A limited key's counters after the statement, every number as text (exact decimals). */
interface KeyRowJson {
  hash: string;
  limit: string;
  limitReset: KeyCounters['limitReset'];
  includeByokInLimit: boolean;
  usage: string;
  byokUsage: string;
  usageDaily: string;
  byokUsageDaily: string;
  dailyPeriodStart: string | null;
  usageWeekly: string;
  byokUsageWeekly: string;
  weeklyPeriodStart: string | null;
  usageMonthly: string;
  byokUsageMonthly: string;
  monthlyPeriodStart: string | null;
}

interface CountRow {
  counted: string[];
  limited_keys: KeyRowJson[];
  dry_keys: string[];
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * One period's bucket of a key: add to a bucket of the batch's latest period, restart a bucket of
 * an older period at what that period adds, and leave a newer bucket alone (a late event of a
 * past period counts in the totals only). Applying the per-period sums one after the other,
 * oldest first (what the Prisma transaction's per-group UPDATEs did), ends in exactly this state: an older
 * group either added to a bucket the latest group then restarts, or to the latest's own period.
 */
const bucket = (cadence: 'daily' | 'weekly' | 'monthly', last: string, own: string, byok: string) => `
      usage_${cadence} = CASE
        WHEN a.${cadence}_period_start = s.${last} THEN a.usage_${cadence} + s.${own}
        WHEN a.${cadence}_period_start IS NULL OR a.${cadence}_period_start < s.${last} THEN s.${own}
        ELSE a.usage_${cadence} END,
      byok_usage_${cadence} = CASE
        WHEN a.${cadence}_period_start = s.${last} THEN a.byok_usage_${cadence} + s.${byok}
        WHEN a.${cadence}_period_start IS NULL OR a.${cadence}_period_start < s.${last} THEN s.${byok}
        ELSE a.byok_usage_${cadence} END,
      ${cadence}_period_start = GREATEST(COALESCE(a.${cadence}_period_start, s.${last}), s.${last})`;

/**
 * The whole count of a batch, one statement, so one round trip and one implicit
 * transaction:
 * 1. `inserted`: the events into the ledger, ON CONFLICT (generation_id) DO NOTHING: what it
 *    returns is what was never counted (a redelivery finds its row and adds nothing);
 * 2. `key_sums`: per key, the totals of those rows, and per cadence the latest period of the
 *    batch with what that period adds;
 * 3. the keys locked in hash order, then updated; only then (the `count(*)` sub-selects run
 *    first, to completion) the workspaces locked in id order, then updated: the lock order of
 *    every writer, so two replicas' statements cannot deadlock;
 * 4. the events' spend reservations lowered by their costs, and the workspace and member
 *    budget counters raised (budget-spend-sql.ts), last, under the workspace locks;
 * 5. returned: the counted ids, the limited keys' counters (the limit check needs `now`, done in
 *    JS by `keyUsageAt`) and the enabled keys of workspaces this batch ran dry.
 */
const COUNT_SQL = `
WITH ev AS (
  SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $6::boolean[],
      $7::timestamptz[], $8::date[], $9::date[], $10::date[], $11::uuid[])
    AS e(generation_id, workspace_id, key_hash, cost, upstream_cost, is_byok, generated_at, day, week, month, reservation_id)
), inserted AS (
  INSERT INTO usage_ledger (generation_id, workspace_id, key_hash, cost, upstream_cost, is_byok, generated_at)
  SELECT generation_id, workspace_id, key_hash, cost, upstream_cost, is_byok, generated_at FROM ev
  ON CONFLICT (generation_id) DO NOTHING
  RETURNING generation_id
), counted AS (
  SELECT ev.workspace_id, ev.key_hash, ev.cost, CASE WHEN ev.is_byok THEN ev.upstream_cost ELSE 0 END AS byok, ev.reservation_id,
    ev.day, ev.week, ev.month,
    max(ev.day) OVER k AS last_day, max(ev.week) OVER k AS last_week, max(ev.month) OVER k AS last_month
  FROM ev JOIN inserted USING (generation_id)
  WINDOW k AS (PARTITION BY ev.key_hash)
), key_sums AS (
  SELECT key_hash, last_day, last_week, last_month, sum(cost) AS cost, sum(byok) AS byok,
    sum(cost) FILTER (WHERE day = last_day) AS day_cost, sum(byok) FILTER (WHERE day = last_day) AS day_byok,
    sum(cost) FILTER (WHERE week = last_week) AS week_cost, sum(byok) FILTER (WHERE week = last_week) AS week_byok,
    sum(cost) FILTER (WHERE month = last_month) AS month_cost, sum(byok) FILTER (WHERE month = last_month) AS month_byok
  FROM counted GROUP BY key_hash, last_day, last_week, last_month
), locked_keys AS MATERIALIZED (
  SELECT hash FROM api_keys WHERE hash IN (SELECT key_hash FROM key_sums) ORDER BY hash COLLATE "C" FOR UPDATE
), updated_keys AS (
  UPDATE api_keys a SET
      usage = a.usage + s.cost,
      byok_usage = a.byok_usage + s.byok,${bucket('daily', 'last_day', 'day_cost', 'day_byok')},${bucket('weekly', 'last_week', 'week_cost', 'week_byok')},${bucket('monthly', 'last_month', 'month_cost', 'month_byok')}
  FROM key_sums s
  WHERE a.hash = s.key_hash AND (SELECT count(*) FROM locked_keys) >= 0
  RETURNING a.*
), workspace_sums AS (
  SELECT workspace_id, sum(cost) AS cost FROM counted GROUP BY workspace_id
), locked_workspaces AS MATERIALIZED (
  SELECT id FROM workspaces
  WHERE id IN (SELECT workspace_id FROM workspace_sums) AND (SELECT count(*) FROM updated_keys) >= 0
  ORDER BY id FOR UPDATE
), updated_workspaces AS (
  UPDATE workspaces w SET usage_total = w.usage_total + s.cost
  FROM workspace_sums s
  WHERE w.id = s.workspace_id AND (SELECT count(*) FROM locked_workspaces) >= 0
  RETURNING w.id, w.credits_total - w.usage_total AS balance, s.cost${BUDGET_SPEND_CTE}
), settled AS (
  UPDATE spend_reservations r SET amount = r.amount - s.cost
  FROM (SELECT reservation_id, sum(cost) AS cost FROM counted WHERE reservation_id IS NOT NULL GROUP BY reservation_id) s
  WHERE r.id = s.reservation_id AND (SELECT count(*) FROM updated_workspaces) >= 0
)
SELECT
  ARRAY(SELECT generation_id FROM inserted) AS counted,
  COALESCE((SELECT json_agg(json_build_object(
      'hash', hash, 'limit', "limit"::text, 'limitReset', limit_reset::text, 'includeByokInLimit', include_byok_in_limit,
      'usage', usage::text, 'byokUsage', byok_usage::text,
      'usageDaily', usage_daily::text, 'byokUsageDaily', byok_usage_daily::text, 'dailyPeriodStart', daily_period_start::text,
      'usageWeekly', usage_weekly::text, 'byokUsageWeekly', byok_usage_weekly::text, 'weeklyPeriodStart', weekly_period_start::text,
      'usageMonthly', usage_monthly::text, 'byokUsageMonthly', byok_usage_monthly::text,
      'monthlyPeriodStart', monthly_period_start::text))
    FROM updated_keys WHERE "limit" IS NOT NULL), '[]') AS limited_keys,
  -- Workspaces this batch took from above 0 to 0 or below: every enabled key, once.
  ARRAY(SELECT hash FROM api_keys WHERE NOT disabled AND workspace_id IN (
    SELECT id FROM updated_workspaces WHERE balance <= 0 AND balance + cost > 0)) AS dry_keys`;

/**
 * Counts generations exactly once, a batch per statement: the
 * prepared statement above on management's `pg` pool does the ledger insert and every counter
 * update in one round trip. A statement is atomic, so a crash at any point leaves nothing
 * half-counted, and a redelivered event finds its ledger row and adds nothing.
 */
export class UsageCounter {
  constructor(private readonly db: UsageDatabase) {}

  /** One event: what tests and the replay of a single generation use. */
  async count(event: UsageRecordedEvent, now = new Date()): Promise<{ counted: boolean; keysToRefresh: string[] }> {
    const outcome = await this.countBatch([event], now);
    return { counted: outcome.counted.length === 1, keysToRefresh: outcome.keysToRefresh };
  }

  async countBatch(events: UsageRecordedEvent[], now = new Date()): Promise<CountOutcome> {
    // Lines of a batch are charged with their batch, by its one `batch_charge` event.
    const charged = events.filter((event) => !event.batchId);
    // A generation twice in one batch is inserted (and counted) once: the last copy, as before.
    const unique = [...new Map(charged.map((event) => [event.generationId, event])).values()];
    if (unique.length === 0) return { counted: [], keysToRefresh: [] };
    const { rows } = await this.db.query<CountRow>({ name: 'management-count-usage', text: COUNT_SQL, values: columns(unique) });
    const [{ counted, limited_keys: limitedKeys, dry_keys: dryKeys }] = rows;
    if (counted.length === 0) return { counted: [], keysToRefresh: [] };
    const keysToRefresh = new Set<string>();
    for (const key of limitedKeys) if (keyUsageAt(toCounters(key), now).limitReached) keysToRefresh.add(key.hash);
    for (const hash of dryKeys) keysToRefresh.add(hash);
    // In the batch's order, like the ledger insert's input.
    const countedIds = new Set(counted);
    return {
      counted: unique.filter((event) => countedIds.has(event.generationId)).map((event) => event.generationId),
      keysToRefresh: [...keysToRefresh],
    };
  }
}

/** The statement's parameters: one array per column, the periods worked out once per UTC day. */
function columns(events: UsageRecordedEvent[]): unknown[] {
  const periodsOfDay = new Map<number, [string, string, string]>();
  const cols: unknown[][] = Array.from({ length: 11 }, () => new Array<unknown>(events.length));
  events.forEach((event, i) => {
    const generatedAt = new Date(event.createdAt);
    const utcDay = Math.floor(generatedAt.getTime() / DAY_MS);
    let periods = periodsOfDay.get(utcDay);
    if (!periods) {
      periods = [
        toDateString(periodStart('daily', generatedAt)),
        toDateString(periodStart('weekly', generatedAt)),
        toDateString(periodStart('monthly', generatedAt)),
      ];
      periodsOfDay.set(utcDay, periods);
    }
    cols[0][i] = event.generationId;
    cols[1][i] = event.workspaceId;
    cols[2][i] = event.keyHash;
    cols[3][i] = event.cost;
    cols[4][i] = event.upstreamCost;
    cols[5][i] = event.isByok;
    // Millisecond precision, as the ledger's timestamptz(3) and Prisma's Date had it.
    cols[6][i] = generatedAt.toISOString();
    [cols[7][i], cols[8][i], cols[9][i]] = periods;
    cols[10][i] = event.reservationId ?? null;
  });
  return cols;
}

const decimal = (value: string) => new Prisma.Decimal(value);
const date = (value: string | null) => (value === null ? null : new Date(`${value}T00:00:00.000Z`));

function toCounters(key: KeyRowJson): KeyCounters {
  return {
    limit: decimal(key.limit),
    limitReset: key.limitReset,
    includeByokInLimit: key.includeByokInLimit,
    usage: decimal(key.usage),
    byokUsage: decimal(key.byokUsage),
    usageDaily: decimal(key.usageDaily),
    byokUsageDaily: decimal(key.byokUsageDaily),
    dailyPeriodStart: date(key.dailyPeriodStart),
    usageWeekly: decimal(key.usageWeekly),
    byokUsageWeekly: decimal(key.byokUsageWeekly),
    weeklyPeriodStart: date(key.weeklyPeriodStart),
    usageMonthly: decimal(key.usageMonthly),
    byokUsageMonthly: decimal(key.byokUsageMonthly),
    monthlyPeriodStart: date(key.monthlyPeriodStart),
  };
}
