import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/**
 * Every inference entry point (chat, stream, embeddings, responses) calls this first, so a
 * key past its limit, a workspace without credits, or a management key never reaches a
 * provider (issue 3: 402 before any upstream call).
 */
export function assertMaySpend(principal: Principal): void {
  if (principal.keyKind === 'management') {
    // Management keys administer a workspace; they are not meant to spend its credits.
    throw GatewayError.forbidden('Management keys cannot run inference; use a standard API key');
  }
  if (principal.spendBlocked === 'key_limit_reached') {
    throw new GatewayError(402, 'This API key has reached its spend limit', {
      errorType: 'payment_required',
      metadata: { reason: 'key_limit_reached' },
    });
  }
  if (principal.spendBlocked === 'insufficient_credits') {
    throw new GatewayError(402, 'The workspace has no credits left; add credits to continue', {
      errorType: 'payment_required',
      metadata: { reason: 'insufficient_credits' },
    });
  }
}
