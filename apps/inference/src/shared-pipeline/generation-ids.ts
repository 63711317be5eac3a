import type { ChatCallContext } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';

/** One shape of generation id for inference and the gateway's cache hits (libs/usage). */
export { newGenerationId } from '@gw/usage';

/** The call context of one attempt: the workspace's key (BYOK), or the endpoint's own gateway key, over the provider's. */
export function callContextFor(attempt: RouteAttempt, base: ChatCallContext): ChatCallContext {
  const { apiKey } = attempt.credential;
  return apiKey === undefined ? base : { ...base, apiKey };
}
