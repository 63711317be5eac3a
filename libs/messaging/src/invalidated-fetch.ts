import { GatewayError } from '@gw/errors';

/**
 * A `cache.fetch()` of a cache that NATS events invalidate (auth, BYOK credentials, presets):
 * an event that deletes an entry while its fetch is in flight makes lru-cache abort that fetch
 * and reject with the abort reason, so the key is asked for once more and the answer reflects
 * the change. A GatewayError (the owner's refusal, a timeout) is the answer itself.
 */
export async function fetchAfterInvalidation<V>(fetch: () => Promise<V>): Promise<V> {
  try {
    return await fetch();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    return fetch();
  }
}
