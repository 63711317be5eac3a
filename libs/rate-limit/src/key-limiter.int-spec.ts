import { randomUUID } from 'node:crypto';
import '@gw/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KeyLimiter, type KeyLimitsDecision } from './key-limiter.js';
import { LimiterStore } from './limiter-store.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function held(decision: KeyLimitsDecision) {
  if (!decision.slot?.allowed) throw new Error(`expected a held slot, got ${JSON.stringify(decision)}`);
  return decision.slot.lease;
}

/**
 * The per-key limiter of the gateway on the real Redis: the semantics of
 * the rate window followed by the concurrency semaphore, shared by two stores standing for two
 * replicas, in one Redis command per request (counted with MONITOR).
 */
describe('KeyLimiter: the window and the in-flight slot in one Redis command', () => {
  let replicaA: LimiterStore;
  let replicaB: LimiterStore;
  const options = (name: string, leaseTtlMs = 10_000) => ({
    rateName: `${name}-rpm`,
    durationSeconds: 60,
    concurrencyName: `${name}-conc`,
    leaseTtlMs,
  });

  beforeAll(async () => {
    const storeOptions = { redisUrl: inject('redisUrl'), keyPrefix: inject('redisKeyPrefix') };
    replicaA = new LimiterStore(storeOptions);
    replicaB = new LimiterStore(storeOptions);
    expect(await replicaA.ready()).toBe(true);
    expect(await replicaB.ready()).toBe(true);
  });

  afterAll(async () => {
    await replicaA.close();
    await replicaB.close();
  });

  it('counts the window across replicas and refuses past it with the rest of the window, taking no slot', async () => {
    const key = randomUUID();
    const [a, b] = [new KeyLimiter(replicaA, options('km-rate')), new KeyLimiter(replicaB, options('km-rate'))];
    const decisions = [await a.acquire(key, 3, 10), await b.acquire(key, 3, 10), await a.acquire(key, 3, 10), await b.acquire(key, 3, 10)];
    expect(decisions.map((d) => d.rate.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.rate.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.map((d) => d.rate.limit)).toEqual([3, 3, 3, 3]);
    const refused = decisions[3]!;
    expect(refused.slot).toBeUndefined();
    expect(refused.rate.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.rate.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.rate.resetAt).toBeGreaterThan(Date.now() + 58_000);
    expect(refused.rate.degraded).toBe(false);
    // The three allowed requests hold three slots; the refused one took none.
    const slots = await replicaA.redis.zcard(`semaphore:conc:km-rate-conc:${key}`);
    expect(slots).toBe(3);
    for (const decision of decisions.slice(0, 3)) await held(decision).release();
    expect(await replicaA.redis.zcard(`semaphore:conc:km-rate-conc:${key}`)).toBe(0);
  });

  it('holds at most the concurrency limit across replicas; a concurrency refusal counts in the window; a release frees a slot once', async () => {
    const key = randomUUID();
    const [a, b] = [new KeyLimiter(replicaA, options('km-conc')), new KeyLimiter(replicaB, options('km-conc'))];
    const first = await a.acquire(key, 100, 2);
    const second = await b.acquire(key, 100, 2);
    const third = await a.acquire(key, 100, 2);
    expect([first.slot?.allowed, second.slot?.allowed, third.slot?.allowed]).toEqual([true, true, false]);
    expect(third.rate).toMatchObject({ allowed: true, remaining: 97 });
    expect(third.slot).toMatchObject({ allowed: false, limit: 2, retryAfterSeconds: 1, degraded: false });
    const lease = held(first);
    await lease.release();
    await lease.release(); // idempotent: must not free a second slot
    expect((await b.acquire(key, 100, 2)).slot?.allowed).toBe(true);
    expect((await b.acquire(key, 100, 2)).slot?.allowed).toBe(false);
    expect((await a.acquire(key, 100, 2)).rate.remaining).toBe(94); // six requests, every one counted
  });

  it('takes a per-key limit over another on the same counter, as RequestRateLimiter does', async () => {
    const key = randomUUID();
    const limiter = new KeyLimiter(replicaA, options('km-override'));
    expect((await limiter.acquire(key, 2, 10)).rate.allowed).toBe(true);
    expect((await limiter.acquire(key, 2, 10)).rate.allowed).toBe(true);
    expect((await limiter.acquire(key, 2, 10)).rate).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect((await limiter.acquire(key, 1, 10)).rate).toMatchObject({ allowed: false, limit: 1 });
    expect((await limiter.acquire(key, 10, 10)).rate).toMatchObject({ allowed: true, limit: 10, remaining: 5 });
  });

  it('opens a new window after the duration', async () => {
    const key = randomUUID();
    const limiter = new KeyLimiter(replicaA, { ...options('km-window'), durationSeconds: 1 });
    expect((await limiter.acquire(key, 1, 10)).rate.allowed).toBe(true);
    expect((await limiter.acquire(key, 1, 10)).rate.allowed).toBe(false);
    await sleep(1_100);
    expect((await limiter.acquire(key, 1, 10)).rate.allowed).toBe(true);
  });

  it('decides the acquires of one loop turn, sent in one pipeline, exactly as the same acquires one after the other', async () => {
    const together = new KeyLimiter(replicaA, options('km-turn'));
    const alone = new KeyLimiter(replicaB, options('km-seq'));
    const summary = ({ rate, slot }: KeyLimitsDecision) => [rate.allowed, rate.remaining, rate.retryAfterSeconds > 0, slot?.allowed];
    const key = randomUUID();
    const pipelines = vi.spyOn(replicaA.redis, 'pipeline');
    try {
      // 9 requests of one key, 6 per minute and 3 in flight: 3 held, 3 refused for concurrency (counted), 3 by the window.
      const concurrent = await Promise.all(Array.from({ length: 9 }, () => together.acquire(key, 6, 3)));
      expect(pipelines).toHaveBeenCalledTimes(1); // one write, one round trip
      const sequential: KeyLimitsDecision[] = [];
      for (let n = 0; n < 9; n++) sequential.push(await alone.acquire(key, 6, 3));
      expect(concurrent.map(summary)).toEqual(sequential.map(summary));
      expect(concurrent.map(({ rate, slot }) => (!rate.allowed ? 'rate' : slot?.allowed ? 'held' : 'concurrency'))).toEqual([
        ...Array(3).fill('held'),
        ...Array(3).fill('concurrency'),
        ...Array(3).fill('rate'),
      ]);
      // Redis holds what it held for the sequential calls.
      expect(await replicaA.redis.get(`rate:km-turn-rpm:${key}`)).toBe(await replicaA.redis.get(`rate:km-seq-rpm:${key}`));
      expect(await replicaA.redis.zcard(`semaphore:conc:km-turn-conc:${key}`)).toBe(3);
      expect(await replicaA.redis.zcard(`semaphore:conc:km-seq-conc:${key}`)).toBe(3);
      await Promise.all(
        [...concurrent, ...sequential].flatMap((decision) => (decision.slot?.allowed ? [decision.slot.lease.release()] : [])),
      );
      expect(await replicaA.redis.zcard(`semaphore:conc:km-turn-conc:${key}`)).toBe(0);
    } finally {
      pipelines.mockRestore();
      together.close();
      alone.close();
    }
  });

  it('sends a turn’s releases before its acquires: a slot given back frees it for a request of the same turn', async () => {
    const limiter = new KeyLimiter(replicaA, options('km-order'));
    const key = randomUUID();
    const first = held(await limiter.acquire(key, 10, 1));
    const [, next, refused] = await Promise.all([first.release(), limiter.acquire(key, 10, 1), limiter.acquire(key, 10, 1)]);
    expect(next.slot?.allowed).toBe(true);
    expect(refused.slot?.allowed).toBe(false);
    await held(next).release();
  });

  it('sends one command per acquire, and one per key for the releases of a loop turn (MONITOR)', async () => {
    const key = randomUUID();
    const limiter = new KeyLimiter(replicaA, options('km-trips'));
    const warm = await limiter.acquire(randomUUID(), 5, 5); // the script is loaded (EVALSHA from now on)
    await held(warm).release();
    const monitor = await new Redis(inject('redisUrl')).monitor();
    const commands: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.includes(key))) commands.push([args[0]!.toLowerCase(), ...args.slice(1)]);
    });
    try {
      await sleep(50);
      const first = await limiter.acquire(key, 5, 5);
      await sleep(100); // MONITOR reports on its own connection
      expect(commands.map(([name]) => name)).toEqual(['evalsha']);
      const second = await limiter.acquire(key, 5, 5);
      await Promise.all([held(first).release(), held(second).release()]);
      await sleep(100);
      expect(commands.map(([name]) => name)).toEqual(['evalsha', 'evalsha', 'zrem']);
      expect(commands[2]!.length).toBe(4); // zrem <set> <lease> <lease>
      expect(await replicaA.redis.zcard(`semaphore:conc:km-trips-conc:${key}`)).toBe(0);
    } finally {
      monitor.disconnect();
    }
  });

  it('frees the slots of a holder that stopped renewing (a crashed replica) after the lease TTL', async () => {
    const key = randomUUID();
    const crashed = new LimiterStore({ redisUrl: inject('redisUrl'), keyPrefix: inject('redisKeyPrefix') });
    expect(await crashed.ready()).toBe(true);
    const dead = new KeyLimiter(crashed, options('km-lease', 600));
    expect((await dead.acquire(key, 100, 1)).slot).toMatchObject({ allowed: true, degraded: false });
    crashed.redis.disconnect(); // no release, no renewal from now on
    const survivor = new KeyLimiter(replicaA, options('km-lease', 600));
    expect((await survivor.acquire(key, 100, 1)).slot?.allowed).toBe(false);
    await sleep(800);
    const after = await survivor.acquire(key, 100, 1);
    expect(after.slot?.allowed).toBe(true);
    await held(after).release();
    dead.close();
  });

  it('keeps a live holder’s leases past the TTL by renewing them, and stops renewing once none is held', async () => {
    const key = randomUUID();
    const limiter = new KeyLimiter(replicaA, options('km-renew', 400));
    const leases = [held(await limiter.acquire(key, 100, 2)), held(await limiter.acquire(key, 100, 2))];
    expect(limiter.heldCount).toBe(2);
    await sleep(1_000);
    expect((await limiter.acquire(key, 100, 2)).slot?.allowed).toBe(false);
    for (const lease of leases) await lease.release();
    expect(limiter.heldCount).toBe(0);
    expect((await limiter.acquire(key, 100, 2)).slot?.allowed).toBe(true);
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
      const decision = await new KeyLimiter(down, options('km-down')).acquire('k', 1, 1);
      // Bounded (an unbounded client queues the command until Redis returns); how soon is the machine's, logged.
      console.log(`unreachable Redis failed open after ${Date.now() - started} ms`);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(decision.rate).toMatchObject({ allowed: true, degraded: true });
      expect(decision.slot).toMatchObject({ allowed: true, degraded: true });
      expect(events).toEqual(['km-down-rpm']);
      expect(down.unavailableCount).toBe(1);
    } finally {
      down.redis.disconnect();
    }
  });
});
