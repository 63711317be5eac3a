import { randomUUID } from 'node:crypto';
import '@gw/testing';
import { LimiterStore, RequestRateLimiter } from '@gw/rate-limit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InternTurns } from './intern-turns.js';

// Two stores stand for two replicas sharing the intern's counter in Redis.
describe('InternTurns on Redis', () => {
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

  it('allows exactly the limit of turns arriving together on two replicas, and refuses the rest until the window ends', async () => {
    const intern = randomUUID();
    const options = { name: 'intern-sign-spec', points: 5, durationSeconds: 60 };
    const a = new InternTurns(new RequestRateLimiter(replicaA, options), 5, 'intern-sign-spec');
    const b = new InternTurns(new RequestRateLimiter(replicaB, options), 5, 'intern-sign-spec');
    const decisions = await Promise.all([
      ...Array.from({ length: 4 }, () => a.consume(intern)),
      ...Array.from({ length: 4 }, () => b.consume(intern)),
    ]);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    for (const decision of decisions.filter((entry) => !entry.allowed)) {
      expect(decision).toMatchObject({ limit: 5, remaining: 0, degraded: false });
      expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(decision.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    // The counter is the shared limiter's own: a plain consume at the same limit sees the turns.
    expect((await new RequestRateLimiter(replicaA, options).consume(intern)).allowed).toBe(false);
    expect((await a.consume(intern)).allowed).toBe(false);
    // Another intern's turns are its own.
    expect((await a.consume(randomUUID())).allowed).toBe(true);
  });
});
