import { describe, expect, it } from 'vitest';
import { cacheHits, cacheHitsTarget } from './cache-hits.ts';
import type { Target } from './measure.ts';
import type { TargetResult } from './report.ts';

function result(machineCpu: number, latencyMean = 1, requestsPerSecond = 100): TargetResult {
  return {
    throughput: { requestsPerSecond, cpuMicrosPerRequest: { total: machineCpu, machine: machineCpu }, latencyMs: { mean: 1 } },
    latency: { latencyMs: { mean: latencyMean } },
  } as unknown as TargetResult;
}

describe('cache hits in the bench', () => {
  it('asks the gateway request for the cache with a day’s TTL', () => {
    const gateway = { name: 'gateway', headers: { authorization: 'Bearer k' }, body: '{}' } as unknown as Target;
    const cached = cacheHitsTarget(gateway);
    expect(cached.name).toBe('cached');
    expect(cached.headers).toEqual({ authorization: 'Bearer k', 'x-service-cache': 'true', 'x-service-cache-ttl': '86400' });
    expect(cached.body).toBe('{}');
  });

  it('compares the CPU of a hit with what a miss adds to the provider’s', () => {
    // A miss adds 900 µs over direct (1,200 − 300); a hit costing 250 µs is under a third of it.
    expect(cacheHits(result(300), result(1_200), result(250, 0.4, 900))).toEqual({
      cpuMicrosPerHit: 250,
      missAddedCpuMicros: 900,
      ratio: 0.278,
      goalMet: true,
      hitLatencyMs: 0.4,
      hitsPerSecond: 900,
    });
    expect(cacheHits(result(300), result(1_200), result(400)).goalMet).toBe(false);
  });
});
