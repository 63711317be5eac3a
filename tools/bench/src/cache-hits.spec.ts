import { describe, expect, it } from 'vitest';
import { cacheHits, cacheHitsTarget } from './cache-hits.ts';
import type { Target } from './measure.ts';
import type { TargetResult } from './report.ts';

function result(cpu: { total: number; machine: number; loadGenerator: number }, latencyMean = 1, requestsPerSecond = 100): TargetResult {
  return {
    throughput: { requestsPerSecond, cpuMicrosPerRequest: cpu, latencyMs: { mean: 1 } },
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

  it('counts the same things for a hit and for a miss: the run’s processes, or the machine less the load generator', () => {
    // Direct: the simulator 60 µs, the load generator 40. A miss adds 900 µs of the run's processes
    // (960 − 60); a hit's 250 are under a third of it.
    const direct = result({ total: 60, machine: 110, loadGenerator: 40 });
    const gateway = result({ total: 960, machine: 1_040, loadGenerator: 60 });
    const hits = cacheHits(direct, gateway, result({ total: 250, machine: 400, loadGenerator: 100 }, 0.4, 900));
    expect(hits).toMatchObject({
      cpuMicrosPerHit: 250,
      missAddedCpuMicros: 900,
      ratio: 0.278,
      goalMet: true,
      hitLatencyMs: 0.4,
      hitsPerSecond: 900,
    });
    // The machine less the load generator: 300 per hit against (1,040 − 60) − (110 − 40) = 910 per miss.
    expect(hits.machine).toEqual({ perHit: 300, missAdded: 910, ratio: 0.33 });
    // The earlier comparison kept the hit's load generator: 400 against 930.
    expect(hits.machineWithLoadGenerator).toEqual({ perHit: 400, missAdded: 930, ratio: 0.43 });
    expect(cacheHits(direct, gateway, result({ total: 400, machine: 400, loadGenerator: 0 })).goalMet).toBe(false);
  });
});
