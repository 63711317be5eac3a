import { randomUUID } from 'node:crypto';
import '@gw/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LimiterStore } from './limiter-store.js';
import { RequestRateLimiter } from './request-rate.limiter.js';

// Two stores stand for two replicas: the counters must be shared through Redis, not held
// in either process.
describe('rate limiters on Redis', () => {
  let replicaA: LimiterStore;
  let replicaB: LimiterStore;

  beforeAll(async () => {
    const options = { redisUrl: inject('redisUrl'), keyPrefix: inject('redisKeyPrefix') };
    replicaA = new LimiterStore(options);
    replicaB = new LimiterStore(options);
    expect(await replicaA.ready()).toBe(true);
    expect(await replicaB.ready()).toBe(true);
  });

  afterAll(async () => {
    await replicaA.close();
    await replicaB.close();
  });

  it('counts requests per window across replicas and refuses past the limit', async () => {
    const key = randomUUID();
    const options = { name: 'spec-rpm', points: 3, durationSeconds: 60 };
    const [a, b] = [new RequestRateLimiter(replicaA, options), new RequestRateLimiter(replicaB, options)];
    const decisions = [await a.consume(key), await b.consume(key), await a.consume(key), await b.consume(key)];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    const refused = decisions[3]!;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.resetAt).toBeGreaterThan(Date.now());
    expect(refused.degraded).toBe(false);
  });

  it('takes a per-key limit over the default on the same counter', async () => {
    const key = randomUUID();
    const limiter = new RequestRateLimiter(replicaA, { name: 'spec-override', points: 1, durationSeconds: 60 });
    expect((await limiter.consume(key, 2)).allowed).toBe(true);
    expect((await limiter.consume(key, 2)).allowed).toBe(true);
    const third = await limiter.consume(key, 2);
    expect(third).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    // The default limit (1) sees the same count.
    expect((await limiter.consume(key)).allowed).toBe(false);
  });

  it('opens a new window after the duration', async () => {
    const key = randomUUID();
    const limiter = new RequestRateLimiter(replicaA, { name: 'spec-window', points: 1, durationSeconds: 1 });
    expect((await limiter.consume(key)).allowed).toBe(true);
    expect((await limiter.consume(key)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await limiter.consume(key)).allowed).toBe(true);
  });

  it('fails open with a report when Redis is unreachable, within the command bound', async () => {
    const events: string[] = [];
    const down = new LimiterStore({
      redisUrl: 'redis://127.0.0.1:1',
      keyPrefix: inject('redisKeyPrefix'),
      onUnavailable: (event) => events.push(event.limiter),
    });
    try {
      const started = Date.now();
      const rate = await new RequestRateLimiter(down, { name: 'spec-down-rpm', points: 1, durationSeconds: 60 }).consume('k');
      // Bounded (an unbounded client queues the command until Redis returns); how soon is the machine's, logged.
      console.log(`unreachable Redis failed open after ${Date.now() - started} ms`);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(rate).toMatchObject({ allowed: true, degraded: true });
      expect(events).toEqual(['spec-down-rpm']);
      expect(down.unavailableCount).toBe(1);
    } finally {
      down.redis.disconnect();
    }
  });
});
