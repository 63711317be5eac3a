import { GatewayError } from '@gw/errors';
import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { fetchAfterInvalidation } from './invalidated-fetch.js';

describe('fetchAfterInvalidation', () => {
  it('asks again when an invalidation deleted the entry while its fetch was in flight', async () => {
    let version = 0;
    let release!: () => void;
    const cache = new LRUCache<string, string>({
      max: 10,
      fetchMethod: async () => {
        version += 1;
        const mine = version;
        if (mine === 1) await new Promise<void>((resolve) => (release = resolve));
        return `v${mine}`;
      },
    });
    const answer = fetchAfterInvalidation(() => cache.fetch('key'));
    await Promise.resolve();
    cache.delete('key'); // the event arrives during the first lookup
    release();
    expect(await answer).toBe('v2');
  });

  it('passes a GatewayError on as the answer', async () => {
    const cache = new LRUCache<string, string>({
      max: 10,
      fetchMethod: async () => {
        throw new GatewayError(404, 'no such preset');
      },
    });
    await expect(fetchAfterInvalidation(() => cache.fetch('key'))).rejects.toMatchObject({ status: 404 });
  });
});
