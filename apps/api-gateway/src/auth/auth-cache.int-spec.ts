import { EVENTS, SUBJECTS, type AuthResolveReply } from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { principalFixture } from '@gw/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { GatewayEnv } from '../env.js';
import { AuthCacheService } from './auth-cache.service.js';

const principal = (keyHash: string) => principalFixture(keyHash);

/**
 * The gateway's auth cache against a real nats-server, with a stand-in for management that
 * counts how often it is asked.
 */
describe('AuthCacheService', () => {
  let nats: ResilientNatsConnection;
  let cache: AuthCacheService;
  const replies = new Map<string, AuthResolveReply>();
  let lookups = 0;

  beforeAll(async () => {
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'auth-cache-spec' });
    nats.connection.subscribe(SUBJECTS.management.authResolve, {
      callback: (_error, message) => {
        lookups += 1;
        const { id, data } = message.json<{ id: string; data: { keyHash: string } }>();
        const response = replies.get(data.keyHash) ?? { principal: null, ttlSeconds: 5 };
        setTimeout(() => message.respond(JSON.stringify({ id, response, isDisposed: true })), 20);
      },
    });
    const env = Object.assign(new GatewayEnv(), { AUTH_CACHE_TTL_SECONDS: 60 });
    cache = new AuthCacheService(new RpcClient(nats, 2_000), nats, env);
    cache.onModuleInit();
    await nats.connection.flush();
  });

  afterAll(async () => {
    cache?.onModuleDestroy();
    await nats?.close();
  });

  beforeEach(() => {
    lookups = 0;
  });

  it('asks management once for many concurrent requests with the same key', async () => {
    replies.set('a'.repeat(64), { principal: principal('a'.repeat(64)), ttlSeconds: 60 });
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.resolve('a'.repeat(64))));
    expect(results.every((result) => result?.keyHash === 'a'.repeat(64))).toBe(true);
    expect(lookups).toBe(1);
    await cache.resolve('a'.repeat(64));
    expect(lookups).toBe(1);
  });

  it('remembers a refusal briefly, so bad keys do not reach management each time', async () => {
    expect(await cache.resolve('b'.repeat(64))).toBeNull();
    expect(await cache.resolve('b'.repeat(64))).toBeNull();
    expect(lookups).toBe(1);
  });

  it('keeps an entry no longer than management allows (a key about to expire)', async () => {
    replies.set('c'.repeat(64), { principal: principal('c'.repeat(64)), ttlSeconds: 0 });
    await cache.resolve('c'.repeat(64));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await cache.resolve('c'.repeat(64));
    expect(lookups).toBe(2);
  });

  it('drops an entry when management publishes keys.changed', async () => {
    replies.set('d'.repeat(64), { principal: principal('d'.repeat(64)), ttlSeconds: 60 });
    expect(await cache.resolve('d'.repeat(64))).not.toBeNull();
    replies.set('d'.repeat(64), { principal: null, ttlSeconds: 5 });
    expect(await cache.resolve('d'.repeat(64))).not.toBeNull(); // still cached
    nats.connection.publish(EVENTS.keysChanged, JSON.stringify({ pattern: EVENTS.keysChanged, data: { keyHashes: ['d'.repeat(64)] } }));
    await nats.connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await cache.resolve('d'.repeat(64))).toBeNull();
  });

  it('answers afresh when the key changes while its lookup is in flight', async () => {
    replies.set('e'.repeat(64), { principal: principal('e'.repeat(64)), ttlSeconds: 60 });
    const pending = cache.resolve('e'.repeat(64));
    await new Promise((resolve) => setTimeout(resolve, 5)); // the stand-in answers after 20 ms
    replies.set('e'.repeat(64), { principal: null, ttlSeconds: 5 });
    nats.connection.publish(EVENTS.keysChanged, JSON.stringify({ pattern: EVENTS.keysChanged, data: { keyHashes: ['e'.repeat(64)] } }));
    expect(await pending).toBeNull();
    expect(lookups).toBe(2);
  });

  it('never fails a request while its key keeps changing (events faster than lookups)', async () => {
    const hash = 'f'.repeat(64);
    replies.set(hash, { principal: principal(hash), ttlSeconds: 60 });
    const changed = JSON.stringify({ pattern: EVENTS.keysChanged, data: { keyHashes: [hash] } });
    const churn = setInterval(() => nats.connection.publish(EVENTS.keysChanged, changed), 3);
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 4));
          return cache.resolve(hash);
        }),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      expect(outcomes.every((outcome) => outcome.status === 'fulfilled' && outcome.value?.keyHash === hash)).toBe(true);
    } finally {
      clearInterval(churn);
    }
  });

  it('ignores a malformed event', async () => {
    nats.connection.publish(EVENTS.keysChanged, 'not json');
    await nats.connection.flush();
    expect(await cache.resolve('a'.repeat(64))).not.toBeNull();
  });
});
