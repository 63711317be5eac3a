import type { Target } from './measure.ts';
import type { TargetResult } from './report.ts';

/** Issue 34's goal: a response-cache hit costs less than a third of the CPU a miss adds to the provider's. */
const HIT_CPU_GOAL_RATIO = 1 / 3;

/**
 * The gateway's chat request opted in to the response cache with a day's TTL:
 * the probe stores the answer, every measured request is a hit (no provider call).
 */
export function cacheHitsTarget(gateway: Target): Target {
  return {
    ...gateway,
    name: 'cached',
    label: 'gateway, response-cache hits',
    headers: { ...gateway.headers, 'x-service-cache': 'true', 'x-service-cache-ttl': '86400' },
  };
}

export interface CacheHitsResult {
  /** Machine CPU µs per hit, at `connections` connections. */
  cpuMicrosPerHit: number;
  /** Machine CPU µs the gateway adds to a miss: through the gateway − direct. */
  missAddedCpuMicros: number;
  /** cpuMicrosPerHit ÷ missAddedCpuMicros; the goal is below 1/3. */
  ratio: number;
  goalMet: boolean;
  /** A hit's mean latency at 1 connection (all of it is the gateway's: nothing upstream). */
  hitLatencyMs: number;
  /** Hits per second at `connections` connections. */
  hitsPerSecond: number;
}

export function cacheHits(direct: TargetResult, gateway: TargetResult, cached: TargetResult): CacheHitsResult {
  const machine = (target: TargetResult) =>
    target.throughput.cpuMicrosPerRequest.machine ?? target.throughput.cpuMicrosPerRequest.total ?? 0;
  const cpuMicrosPerHit = machine(cached);
  const missAddedCpuMicros = machine(gateway) - machine(direct);
  const ratio = missAddedCpuMicros > 0 ? cpuMicrosPerHit / missAddedCpuMicros : Number.POSITIVE_INFINITY;
  return {
    cpuMicrosPerHit,
    missAddedCpuMicros,
    ratio: Math.round(ratio * 1000) / 1000,
    goalMet: ratio < HIT_CPU_GOAL_RATIO,
    hitLatencyMs: cached.latency.latencyMs.mean,
    hitsPerSecond: cached.throughput.requestsPerSecond,
  };
}

export function formatCacheHits(result: CacheHitsResult): string {
  return (
    `Response-cache hits: ${result.hitsPerSecond.toFixed(1)}/s, ${result.hitLatencyMs.toFixed(3)} ms mean at 1 connection, ` +
    `${result.cpuMicrosPerHit} µs machine CPU per hit vs ${result.missAddedCpuMicros} µs a miss adds ` +
    `(×${result.ratio}; goal < 1/3: ${result.goalMet ? 'met' : 'not met'}).`
  );
}
