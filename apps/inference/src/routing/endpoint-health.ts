/** What the planner reads about an endpoint's recent behaviour. */
export interface EndpointHealthView {
  isHealthy(endpointKey: string): boolean;
  /** Smoothed milliseconds to the first byte (streams) or to the answer; undefined until measured. */
  latencyMs(endpointKey: string): number | undefined;
  /** Smoothed completion tokens per second; undefined until measured. */
  throughput(endpointKey: string): number | undefined;
}

/** One endpoint's state, for the health gauges (routing-metrics.ts). */
export interface EndpointHealthEntry {
  endpointKey: string;
  healthy: boolean;
  latencyMs?: number;
  throughput?: number;
  consecutiveFailures: number;
  coolingForMs: number;
}

interface EndpointStats {
  /** Epoch ms until which the provider asked not to be called (its `retry-after`). */
  coolingUntil?: number;
  latencyMs?: number;
  throughput?: number;
  consecutiveFailures: number;
  lastFailureAt: number;
}

/** Weight of the newest sample in the moving averages. */
const SMOOTHING = 0.2;
/** This many failures in a row mark an endpoint unhealthy ... */
const FAILURES_TO_UNHEALTHY = 3;
/** ... until this long has passed since the last one (then it gets a chance again). */
const UNHEALTHY_FOR_MS = 30_000;
/** Bound on remembered endpoints: the catalog is small, but keys come from operator data. */
const MAX_ENDPOINTS = 10_000;

/**
 * Per-endpoint latency, throughput and failure streaks, in the memory of one replica. It
 * feeds `provider.sort` (throughput / latency) and decides whether a sticky session may stay
 * on its endpoint. Each replica learns on its own: no shared state, no I/O on the hot path.
 */
export class EndpointHealthTracker implements EndpointHealthView {
  private readonly stats = new Map<string, EndpointStats>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The endpoint answered (or, for a stream, sent its response head) after `latencyMs`. */
  recordSuccess(endpointKey: string, latencyMs: number): void {
    const stats = this.entry(endpointKey);
    stats.consecutiveFailures = 0;
    stats.latencyMs = smooth(stats.latencyMs, latencyMs);
  }

  /** A generation finished: `completionTokens` in `generationMs`. */
  recordThroughput(endpointKey: string, completionTokens: number, generationMs: number): void {
    if (generationMs <= 0 || completionTokens <= 0) return;
    const stats = this.entry(endpointKey);
    stats.throughput = smooth(stats.throughput, (completionTokens * 1000) / generationMs);
  }

  recordFailure(endpointKey: string): void {
    const stats = this.entry(endpointKey);
    stats.consecutiveFailures += 1;
    stats.lastFailureAt = this.now();
  }

  /**
   * The provider answered 429/503 with a `retry-after`: routing skips this endpoint (with this
   * credential: limits are per account) until then. Keyed by `cooldownKeyOf` (route-types.ts).
   */
  coolDown(cooldownKey: string, retryAfterMs: number): void {
    const stats = this.entry(cooldownKey);
    stats.coolingUntil = Math.max(stats.coolingUntil ?? 0, this.now() + retryAfterMs);
  }

  /** Milliseconds left before the provider may be called again; 0 when it may be now. */
  coolingFor(cooldownKey: string): number {
    const until = this.stats.get(cooldownKey)?.coolingUntil;
    return until === undefined ? 0 : Math.max(until - this.now(), 0);
  }

  isHealthy(endpointKey: string): boolean {
    const stats = this.stats.get(endpointKey);
    if (!stats || stats.consecutiveFailures < FAILURES_TO_UNHEALTHY) return true;
    return this.now() - stats.lastFailureAt > UNHEALTHY_FOR_MS;
  }

  latencyMs(endpointKey: string): number | undefined {
    return this.stats.get(endpointKey)?.latencyMs;
  }

  throughput(endpointKey: string): number | undefined {
    return this.stats.get(endpointKey)?.throughput;
  }

  /**
   * Every endpoint measured so far (keys `<provider>/<upstream model>`; the cooldown entries of
   * BYOK credentials are left out: their ids must not become metric labels).
   */
  *endpoints(): IterableIterator<EndpointHealthEntry> {
    for (const [endpointKey, stats] of this.stats) {
      if (endpointKey.includes('|')) continue;
      yield {
        endpointKey,
        healthy: this.isHealthy(endpointKey),
        latencyMs: stats.latencyMs,
        throughput: stats.throughput,
        consecutiveFailures: stats.consecutiveFailures,
        coolingForMs: this.coolingFor(`${endpointKey}|gateway`),
      };
    }
  }

  private entry(endpointKey: string): EndpointStats {
    let stats = this.stats.get(endpointKey);
    if (!stats) {
      if (this.stats.size >= MAX_ENDPOINTS) this.stats.delete(this.stats.keys().next().value!);
      stats = { consecutiveFailures: 0, lastFailureAt: 0 };
      this.stats.set(endpointKey, stats);
    }
    return stats;
  }
}

function smooth(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}
