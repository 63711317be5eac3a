import { GatewayError } from '@gw/errors';
import { Prisma } from '../generated/prisma/client.js';
import type { SpendLease } from './spend-lease.js';

/** How a top-up ended: added to the lease, refused by management for `minimum`, or failed otherwise. */
export type TopUpOutcome =
  { kind: 'granted' } | { kind: 'refused'; minimum: Prisma.Decimal; error: GatewayError } | { kind: 'failed'; error: unknown };

/**
 * Decides each queued call after a top-up, in arrival order: runs if its worst case fits; management's
 * 402 if it lacks at least the minimum just refused; else waits for the next top-up (first come first served).
 */
export function decideWaiters(lease: SpendLease, outcome: TopUpOutcome, now: number): void {
  const queue = lease.waiting.splice(0);
  if (outcome.kind === 'failed') {
    for (const waiter of queue) waiter.reject(outcome.error);
    return;
  }
  if (lease.retired) {
    for (const waiter of queue) waiter.redirect();
    return;
  }
  for (const waiter of queue) {
    const ticket = lease.waiting.length === 0 ? lease.take(waiter.worst, now) : undefined;
    if (ticket) waiter.resolve(ticket);
    else if (outcome.kind === 'refused' && waiter.worst.minus(Prisma.Decimal.max(0, lease.free)).gte(outcome.minimum))
      waiter.reject(refusalOf(outcome.error, waiter.worst));
    else lease.waiting.push(waiter);
  }
}

/** Management's 402 named the part the lease lacked; the caller's names its whole worst case. */
function refusalOf(error: GatewayError, worst: Prisma.Decimal): GatewayError {
  return new GatewayError(error.status, error.message, {
    errorType: error.errorType,
    metadata: { ...error.metadata, reserved_cost: Number(worst) },
  });
}
