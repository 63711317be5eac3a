import { randomBytes, randomUUID } from 'node:crypto';
import '@gw/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResponseCacheStore, responseCacheMetrics, type CacheEntry } from '@gw/usage';

const usage = { promptTokens: 3, completionTokens: 5, cachedTokens: 0, reasoningTokens: 0, estimated: false };

/** An entry whose compressed size is about `bytes` (base64 of random bytes compresses back to about them). */
function entry(bytes: number): Extract<CacheEntry, { kind: 'json' }> {
  const text = randomBytes(bytes).toString('base64');
  return {
    kind: 'json',
    text: JSON.stringify({ id: 'gen-1', content: text }),
    storedAt: Date.now(),
    generation: { id: 'gen-1', modelId: 'sim/x', providerId: 'p', upstreamModel: 'x', usage, charged: '0.001', isByok: false },
  };
}

/** The response cache's store on the real Redis: workspaces apart, entries compressed and bounded. */
describe('ResponseCacheStore', () => {
  let store: ResponseCacheStore;

  beforeAll(() => {
    store = new ResponseCacheStore({
      redisUrl: inject('redisUrl'),
      keyPrefix: inject('redisKeyPrefix'),
      maxEntryBytes: 8 * 1024,
      maxWorkspaceBytes: 20 * 1024,
      metrics: responseCacheMetrics('inference'),
      warn: () => undefined,
    });
  });

  afterAll(() => store.close());

  it('answers an entry to its workspace only', async () => {
    const [mine, theirs, key] = [randomUUID(), randomUUID(), randomUUID()];
    expect(await store.put(mine, key, entry(100), 60)).toBe(true);
    expect((await store.get(mine, key))?.generation.charged).toBe('0.001');
    expect(await store.get(theirs, key)).toBeUndefined();
  });

  it('keeps small entries as plain JSON and compresses large ones, reading both back', async () => {
    const [workspace, small, large] = [randomUUID(), randomUUID(), randomUUID()];
    const big = { ...entry(10), text: 'hello '.repeat(2_000) };
    expect(await store.put(workspace, small, entry(100), 60)).toBe(true);
    expect(await store.put(workspace, large, big, 60)).toBe(true);
    const stored = async (key: string) => (await store.redis.getBuffer(store.entryKey(workspace, key)))!;
    expect((await stored(small))[0]).toBe('{'.charCodeAt(0));
    expect([...(await stored(large)).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect((await store.get(workspace, small))?.generation.charged).toBe('0.001');
    expect(await store.get(workspace, large)).toMatchObject({ kind: 'json', text: big.text });
  });

  it('stores a compressible answer far over the entry bound, and refuses what does not compress under it', async () => {
    const workspace = randomUUID();
    const large = { ...entry(10), text: 'the same words again '.repeat(5_000) } as CacheEntry;
    expect(await store.put(workspace, 'compressible', large, 60)).toBe(true);
    expect(await store.put(workspace, 'noise', entry(16 * 1024), 60)).toBe(false);
    expect(await store.get(workspace, 'noise')).toBeUndefined();
  });

  it('keeps a workspace under its byte bound, dropping the entries nearest to expiry first', async () => {
    const workspace = randomUUID();
    // About 6 KiB each: three fit in 20 KiB, a fourth evicts the one that expires first.
    expect(await store.put(workspace, 'short', entry(6 * 1024), 30)).toBe(true);
    expect(await store.put(workspace, 'long-1', entry(6 * 1024), 600)).toBe(true);
    expect(await store.put(workspace, 'long-2', entry(6 * 1024), 600)).toBe(true);
    expect(await store.put(workspace, 'long-3', entry(6 * 1024), 600)).toBe(true);
    expect(await store.get(workspace, 'short')).toBeUndefined();
    for (const key of ['long-1', 'long-2', 'long-3']) expect(await store.get(workspace, key)).toBeDefined();
    // Another workspace's bound is its own.
    expect(await store.put(randomUUID(), 'short', entry(6 * 1024), 30)).toBe(true);
  });

  it('lets one request lead an identical one across replicas', async () => {
    const [workspace, key] = [randomUUID(), randomUUID()];
    expect(await store.lead(workspace, key, 'a', 5_000)).toBe(true);
    expect(await store.lead(workspace, key, 'b', 5_000)).toBe(false);
    expect(await store.isLed(workspace, key)).toBe(true);
    await store.unlead(workspace, key, 'b'); // not its lock
    expect(await store.isLed(workspace, key)).toBe(true);
    await store.unlead(workspace, key, 'a');
    expect(await store.isLed(workspace, key)).toBe(false);
  });
});
