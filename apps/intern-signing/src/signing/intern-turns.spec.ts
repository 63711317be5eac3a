import type { RateDecision, RequestRateLimiter } from '@gw/rate-limit';
import { metricsRegistry } from '@gw/metrics';
import { describe, expect, it } from 'vitest';
import { InternTurns } from './intern-turns.js';

/** The shared limiter's counter in memory: what rate-limiter-flexible's script does per key (INCRBY, never refusing here). */
class CountingLimiter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{ key: string; limit: number; points: number }> = [];
  down = false;

  async consume(key: string, limit: number, points = 1): Promise<RateDecision> {
    this.calls.push({ key, limit, points });
    const resetAt = Date.now() + 30_000;
    if (this.down) return { allowed: true, limit, remaining: limit, resetAt, retryAfterSeconds: 0, degraded: true };
    const count = (this.counts.get(key) ?? 0) + points;
    this.counts.set(key, count);
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt, retryAfterSeconds: 0, degraded: false };
  }
}

const refused = async () => {
  const line = (await metricsRegistry.metrics())
    .split('\n')
    .find((entry) => entry.startsWith('rate_limit_refusals_total{limiter="turns-spec"}'));
  return Number(line?.split(' ').at(-1) ?? 0);
};

describe('InternTurns', () => {
  it('counts the turns of one intern that arrive together in one call, each turn deciding by its own place in the window', async () => {
    const limiter = new CountingLimiter();
    const turns = new InternTurns(limiter as unknown as RequestRateLimiter, 3, 'turns-spec');
    const before = await refused();
    const first = await Promise.all([turns.consume('a'), turns.consume('a')]);
    expect(limiter.calls).toEqual([{ key: 'a', limit: expect.any(Number), points: 2 }]);
    expect(first.map((decision) => [decision.allowed, decision.remaining])).toEqual([
      [true, 2],
      [true, 1],
    ]);
    const second = await Promise.all([turns.consume('a'), turns.consume('a'), turns.consume('b')]);
    expect(limiter.calls.slice(1).map(({ key, points }) => [key, points])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(second.map((decision) => decision.allowed)).toEqual([true, false, true]);
    expect(second[1]).toMatchObject({ allowed: false, limit: 3, remaining: 0, degraded: false });
    expect(second[1]!.retryAfterSeconds).toBeGreaterThanOrEqual(29);
    expect(second[1]!.retryAfterSeconds).toBeLessThanOrEqual(30);
    // Every turn counted, refused or not, as one call per turn would have.
    expect(limiter.counts.get('a')).toBe(4);
    expect((await turns.consume('a')).allowed).toBe(false);
    expect(await refused()).toBe(before + 2);
  });

  it('lets every turn of a batch through when Redis cannot be asked (fail open)', async () => {
    const limiter = new CountingLimiter();
    limiter.down = true;
    const turns = new InternTurns(limiter as unknown as RequestRateLimiter, 1, 'turns-spec');
    const decisions = await Promise.all([turns.consume('a'), turns.consume('a')]);
    expect(decisions.map((decision) => [decision.allowed, decision.degraded])).toEqual([
      [true, true],
      [true, true],
    ]);
  });

  it('fails the turns of a batch when the limiter throws, and counts the next batch afresh', async () => {
    const limiter = new CountingLimiter();
    const turns = new InternTurns(limiter as unknown as RequestRateLimiter, 5, 'turns-spec');
    const consume = limiter.consume.bind(limiter);
    limiter.consume = () => Promise.reject(new Error('boom'));
    await expect(Promise.all([turns.consume('a'), turns.consume('a')])).rejects.toThrow('boom');
    limiter.consume = consume;
    expect((await turns.consume('a')).allowed).toBe(true);
  });
});
