import { randomUUID } from 'node:crypto';
import type { ChatCallContext } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';

/**
 * `gen-<ms in base 36>-<20 hex>`: time-ordered, 80 random bits (the UUID's first and last groups). randomUUID draws from a cached
 * entropy pool; randomBytes per call was ~2 % of inference's CPU under load.
 */
export function newGenerationId(): string {
  const random = randomUUID();
  return `gen-${Date.now().toString(36)}-${random.slice(0, 8)}${random.slice(24)}`;
}

/** The call context of one attempt: the workspace's key (BYOK), or the endpoint's own gateway key, over the provider's. */
export function callContextFor(attempt: RouteAttempt, base: ChatCallContext): ChatCallContext {
  const { apiKey } = attempt.credential;
  return apiKey === undefined ? base : { ...base, apiKey };
}
