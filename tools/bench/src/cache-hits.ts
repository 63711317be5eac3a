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

/** One way of counting a hit's CPU and a miss's added CPU, the same things counted on both sides. */
interface HitCpu {
  /** µs per hit. */
  perHit: number;
  /** µs a miss adds: through the gateway − direct. */
  missAdded: number;
  /** perHit ÷ missAdded. */
  ratio: number;
}

export interface CacheHitsResult {
  /**
   * The run's own processes (services, simulator, nats-server, its PostgreSQL backends and Redis)
   * per hit; the load generator and the rest of the machine are on neither side. The goal's figure.
   */
  cpuMicrosPerHit: number;
  /** The same processes' µs a miss adds over the provider alone (through the gateway − direct). */
  missAddedCpuMicros: number;
  /** cpuMicrosPerHit ÷ missAddedCpuMicros; the goal is below 1/3. */
  ratio: number;
  goalMet: boolean;
  /**
   * The whole machine's busy CPU less the load generator's own, on both sides (the kernel's
   * loopback work is in it, and anything else the machine ran: valid idle only).
   */
  machine: HitCpu;
  /**
   * What the bench compared before: the machine's CPU per hit with the load generator's in it,
   * against a miss's added CPU from which direct's subtraction had taken it out.
   */
  machineWithLoadGenerator: HitCpu;
  /** A hit's mean latency at 1 connection (all of it is the gateway's: nothing upstream). */
  hitLatencyMs: number;
  /** Hits per second at `connections` connections. */
  hitsPerSecond: number;
}

function hitCpu(perHit: number, missAdded: number): HitCpu {
  const ratio = missAdded > 0 ? perHit / missAdded : Number.POSITIVE_INFINITY;
  return { perHit, missAdded, ratio: Math.round(ratio * 1000) / 1000 };
}

export function cacheHits(direct: TargetResult, gateway: TargetResult, cached: TargetResult): CacheHitsResult {
  const cpu = (target: TargetResult) => target.throughput.cpuMicrosPerRequest;
  const processes = (target: TargetResult) => cpu(target).total ?? 0;
  const machine = (target: TargetResult) => cpu(target).machine ?? processes(target);
  const withoutLoadGenerator = (target: TargetResult) => machine(target) - (cpu(target).loadGenerator ?? 0);
  const own = hitCpu(processes(cached), processes(gateway) - processes(direct));
  return {
    cpuMicrosPerHit: own.perHit,
    missAddedCpuMicros: own.missAdded,
    ratio: own.ratio,
    goalMet: own.ratio < HIT_CPU_GOAL_RATIO,
    machine: hitCpu(withoutLoadGenerator(cached), withoutLoadGenerator(gateway) - withoutLoadGenerator(direct)),
    machineWithLoadGenerator: hitCpu(machine(cached), machine(gateway) - machine(direct)),
    hitLatencyMs: cached.latency.latencyMs.mean,
    hitsPerSecond: cached.throughput.requestsPerSecond,
  };
}

export function formatCacheHits(result: CacheHitsResult): string {
  const line = (what: string, figures: HitCpu) =>
    `  ${what}: ${figures.perHit} µs per hit vs ${figures.missAdded} µs a miss adds (×${figures.ratio})`;
  return [
    `Response-cache hits: ${result.hitsPerSecond.toFixed(1)}/s, ${result.hitLatencyMs.toFixed(3)} ms mean at 1 connection; ` +
      `goal < 1/3 of a miss's added CPU: ${result.goalMet ? 'met' : 'not met'}.`,
    line('the run’s processes (the goal’s figure)', hitCpu(result.cpuMicrosPerHit, result.missAddedCpuMicros)),
    line('machine less the load generator, both sides', result.machine),
    line('machine, load generator in the hit only (the earlier figure)', result.machineWithLoadGenerator),
  ].join('\n');
}
