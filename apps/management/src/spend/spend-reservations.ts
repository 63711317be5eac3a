import type { SpendReleasedEvent, SpendReserveRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type pg from 'pg';
import { Prisma } from '../generated/prisma/client.js';
import { keyUsageAt } from '../usage/key-usage.js';
import { toCounters, type KeyRowJson } from '../usage/usage-counter.js';

/** The key's counters as the count returns them, its limit null when it has none. */
type HeldKey = Omit<KeyRowJson, 'limit'> & { limit: string | null };

const LOCK_WORKSPACE_SQL = `SELECT (credits_total - usage_total)::text AS balance FROM workspaces WHERE id = $1 FOR UPDATE`;

/** Read after the workspace lock, so every count and hold of the workspace before it is committed. */
const HELD_SQL = `
SELECT
  (SELECT json_build_object(
      'hash', hash, 'limit', "limit"::text, 'limitReset', limit_reset::text, 'includeByokInLimit', include_byok_in_limit,
      'usage', usage::text, 'byokUsage', byok_usage::text,
      'usageDaily', usage_daily::text, 'byokUsageDaily', byok_usage_daily::text, 'dailyPeriodStart', daily_period_start::text,
      'usageWeekly', usage_weekly::text, 'byokUsageWeekly', byok_usage_weekly::text, 'weeklyPeriodStart', weekly_period_start::text,
      'usageMonthly', usage_monthly::text, 'byokUsageMonthly', byok_usage_monthly::text,
      'monthlyPeriodStart', monthly_period_start::text)
    FROM api_keys WHERE hash = $2 AND workspace_id = $1) AS key,
  COALESCE(sum(GREATEST(amount, 0)), 0)::text AS held_workspace,
  COALESCE(sum(GREATEST(amount, 0)) FILTER (WHERE key_hash = $2), 0)::text AS held_key
FROM spend_reservations WHERE workspace_id = $1 AND expires_at > now()`;

/** The new hold, and the workspace's holds that are over (lapsed, or released and settled) gone. */
const HOLD_SQL = `
WITH gone AS (
  DELETE FROM spend_reservations WHERE workspace_id = $2 AND (expires_at <= now() OR (released AND amount <= 0))
)
INSERT INTO spend_reservations (id, workspace_id, key_hash, amount, expires_at)
VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`;

const RELEASE_SQL = `UPDATE spend_reservations SET amount = amount - $3, released = true WHERE id = $1 AND workspace_id = $2 AND NOT released`;

/**
 * Spend reserved before a generating call (docs/adr/0093), in management's database beside the
 * counters it is checked against: a hold is taken under the workspace row's lock, the lock the
 * usage count also takes, so the holds and the settled spend are read as of one commit. The count
 * takes each event's cost off its hold in the same statement that adds it to the counters.
 */
export class SpendReservations {
  constructor(private readonly pool: pg.Pool) {}

  async reserve(request: SpendReserveRequest, now = new Date()): Promise<void> {
    const amount = new Prisma.Decimal(request.amount);
    const client = await this.pool.connect();
    let done = false;
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ balance: string }>({ name: 'spend-lock-workspace', text: LOCK_WORKSPACE_SQL, values: [request.workspaceId] });
      const held = await client.query<{ key: HeldKey | null; held_workspace: string; held_key: string }>({
        name: 'spend-held',
        text: HELD_SQL,
        values: [request.workspaceId, request.keyHash],
      });
      const balance = locked.rows[0] ? new Prisma.Decimal(locked.rows[0].balance) : new Prisma.Decimal(0);
      const { key, held_workspace: heldWorkspace, held_key: heldKey } = held.rows[0]!;
      if (balance.minus(heldWorkspace).lt(amount)) throw refusal('insufficient_credits', amount);
      const limitRemaining = key?.limit ? keyUsageAt(toCounters({ ...key, limit: key.limit }), now).limitRemaining : null;
      if (!key || (limitRemaining !== null && limitRemaining.minus(heldKey).lt(amount))) throw refusal('key_limit_reached', amount);
      await client.query({
        name: 'spend-hold',
        text: HOLD_SQL,
        values: [request.reservationId, request.workspaceId, request.keyHash, request.amount, request.ttlSeconds],
      });
      await client.query('COMMIT');
      done = true;
    } finally {
      if (!done) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  /** The call ended: what its events will not settle is free at once. Repeating it changes nothing. */
  async release(event: SpendReleasedEvent): Promise<void> {
    await this.pool.query({ name: 'spend-release', text: RELEASE_SQL, values: [event.reservationId, event.workspaceId, event.unused] });
  }
}

function refusal(reason: 'insufficient_credits' | 'key_limit_reached', amount: Prisma.Decimal): GatewayError {
  const message =
    reason === 'insufficient_credits'
      ? 'The workspace has not enough credits left for this request at its max_tokens; add credits or lower max_tokens'
      : 'This API key has not enough of its spend limit left for this request at its max_tokens; raise the limit or lower max_tokens';
  return new GatewayError(402, message, {
    errorType: 'payment_required',
    metadata: { reason, reserved_cost: amount.toNumber() },
  });
}
