import type { SpendReleasedEvent, SpendReserveRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type pg from 'pg';
import { Prisma } from '../generated/prisma/client.js';
import { periodStart, toDateString } from '../usage/usage-periods.js';

/** The migration's `spend_reserve` function: the checks and the hold under the workspace row's lock. */
const RESERVE_SQL = `SELECT refused, granted::text FROM spend_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

const RELEASE_SQL = `UPDATE spend_reservations SET amount = amount - $3, released = true WHERE id = $1 AND workspace_id = $2 AND NOT released`;

type Refusal =
  'insufficient_credits' | 'key_limit_reached' | 'workspace_budget_reached' | 'member_budget_reached' | 'guardrail_limit_reached';

const REFUSALS: Record<Refusal, string> = {
  insufficient_credits: 'The workspace has not enough credits left for this request at its max_tokens; add credits or lower max_tokens',
  key_limit_reached:
    'This API key has not enough of its spend limit left for this request at its max_tokens; raise the limit or lower max_tokens',
  workspace_budget_reached: "The workspace's budget for this period has not enough left for this request at its max_tokens",
  member_budget_reached: "This member's budget for this period has not enough left for this request at its max_tokens",
  guardrail_limit_reached: "A guardrail's spend limit on this key or member has not enough left for this request at its max_tokens",
};

/**
 * Spend reserved before generating calls, in management's database beside
 * the counters it is checked against: a replica's lease is topped up under the workspace row's
 * lock, the lock the usage count also takes, so holds and settled spend are read as of one commit.
 * The count takes each event's cost off its lease in the same statement that adds it to the counters.
 */
export class SpendReservations {
  constructor(private readonly pool: pg.Pool) {}

  /** Adds between `minimum` and `wanted` to the lease and returns how much, or throws the 402 of the limit `minimum` does not fit in. */
  async reserve(request: SpendReserveRequest, now = new Date()): Promise<string> {
    const periods = (['daily', 'weekly', 'monthly'] as const).map((cadence) => toDateString(periodStart(cadence, now)));
    const { rows } = await this.pool.query<{ refused: Refusal | null; granted: string | null }>({
      name: 'spend-reserve',
      text: RESERVE_SQL,
      values: [
        request.reservationId,
        request.workspaceId,
        request.keyHash,
        request.minimum,
        request.wanted,
        request.ttlSeconds,
        ...periods,
      ],
    });
    const row = rows[0];
    if (row?.refused || !row?.granted) throw refusal(row?.refused ?? 'insufficient_credits', request.minimum);
    return new Prisma.Decimal(row.granted).toFixed();
  }

  /** The lease is retired: what its calls will not settle is free at once. Repeating it changes nothing. */
  async release(event: SpendReleasedEvent): Promise<void> {
    await this.pool.query({ name: 'spend-release', text: RELEASE_SQL, values: [event.reservationId, event.workspaceId, event.unused] });
  }
}

function refusal(reason: Refusal, amount: string): GatewayError {
  return new GatewayError(402, REFUSALS[reason], { errorType: 'payment_required', metadata: { reason, reserved_cost: Number(amount) } });
}
