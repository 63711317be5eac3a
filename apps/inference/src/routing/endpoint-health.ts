import { CooldownMirror, type CooldownBoard, type CooldownReason } from './cooldown-board.js';

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
  /** The wait the provider asked for on the gateway key, or the endpoint's cooldown for failures: the longer. */
  coolingForMs: number;
  coolingReason?: CooldownReason;
  /** Epoch ms when that cooldown ends. */
  coolingUntil?: number;
  /** This replica's last failed calls to it, oldest first. */
  recentFailures: readonly RecentFailure[];
}

export interface RecentFailure {
  at: number;
  errorType: string;
  status?: number;
}

interface EndpointStats {
  latencyMs?: number;
  throughput?: number;
  consecutiveFailures: number;
  lastFailureAt: number;
  recentFailures: RecentFailure[];
}

/** Keys of workspace endpoints (catalog/workspace-models.ts) start so. */
export const WORKSPACE_ENDPOINT_PREFIX = 'workspace:';

/** Weight of the newest sample in the moving averages. */
const SMOOTHING = 0.2;
/** This many failures in a row mark an endpoint unhealthy and cool it down for every replica ... */
const FAILURES_TO_UNHEALTHY = 3;
/** ... until this long has passed since the last one (then it gets a chance again). */
const UNHEALTHY_FOR_MS = 30_000;
/** Failed calls kept per endpoint for the admin API. */
const RECENT_FAILURES = 10;
/** Bound on remembered endpoints: the catalog is small, but keys come from operator data. */
const MAX_ENDPOINTS = 10_000;

/**
 * Per-endpoint latency, throughput and failure streaks, in the memory of one replica. It
 * feeds `provider.sort` (throughput / latency) and decides whether a sticky session may stay
 * on its endpoint. Streaks are this replica's; the cooldowns they and `retry-after` start go to
 * `cooldowns`, which the service shares with every replica (read from memory: no I/O here).
 */
export class EndpointHealthTracker implements EndpointHealthView {
  private readonly stats = new Map<string, EndpointStats>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly cooldowns: CooldownBoard = new CooldownMirror(now),
    private readonly failureCooldownMs = UNHEALTHY_FOR_MS,
    /** Failures in a row that cool an endpoint for every replica; 0: failures never do (retry-after still does). */
    private readonly failuresToCool = FAILURES_TO_UNHEALTHY,
  ) {}

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

  /**
   * A retryable failure; the streak's third in a row (and each after) cools the endpoint for all replicas,
   * unless `cools` is false (a fixture that fails on purpose: its streak stays this replica's).
   */
  recordFailure(endpointKey: string, failure: { errorType: string; status?: number } = { errorType: 'server' }, cools = true): void {
    const stats = this.entry(endpointKey);
    const now = this.now();
    stats.consecutiveFailures += 1;
    stats.lastFailureAt = now;
    stats.recentFailures.push({ at: now, ...failure });
    if (stats.recentFailures.length > RECENT_FAILURES) stats.recentFailures.shift();
    const cooling = cools && this.failuresToCool > 0 && stats.consecutiveFailures >= this.failuresToCool;
    if (cooling && this.cooldowns.coolingFor(endpointKey) === 0)
      this.cooldowns.coolDown({
        key: endpointKey,
        until: now + this.failureCooldownMs,
        reason: 'failing',
        failures: stats.consecutiveFailures,
        errorType: failure.errorType,
      });
  }

  /**
   * The provider answered 429/503 with a `retry-after`: routing skips this endpoint (with this
   * credential: limits are per account) until then. Keyed by `cooldownKeyOf` (route-types.ts).
   */
  coolDown(cooldownKey: string, retryAfterMs: number): void {
    this.cooldowns.coolDown({ key: cooldownKey, until: this.now() + retryAfterMs, reason: 'retry_after' });
  }

  /** Milliseconds left before the provider may be called again (`cooldownKeyOf`) or the endpoint tried first (its key). */
  coolingFor(cooldownKey: string): number {
    return this.cooldowns.coolingFor(cooldownKey);
  }

  isHealthy(endpointKey: string): boolean {
    if (this.cooldowns.coolingFor(endpointKey) > 0) return false;
    const stats = this.stats.get(endpointKey);
    if (!stats || stats.consecutiveFailures < FAILURES_TO_UNHEALTHY) return true;
    return this.now() - stats.lastFailureAt > UNHEALTHY_FOR_MS;
  }

  /** One endpoint as the admin API shows it, measured here or not (its cooldown may come from another replica). */
  describe(endpointKey: string): EndpointHealthEntry {
    const stats = this.stats.get(endpointKey);
    const failing = this.cooldowns.cooldown(endpointKey);
    const held = this.cooldowns.cooldown(`${endpointKey}|gateway`);
    const longest = [failing, held].filter((entry) => entry !== undefined).sort((a, b) => b.until - a.until)[0];
    return {
      endpointKey,
      healthy: this.isHealthy(endpointKey),
      latencyMs: stats?.latencyMs,
      throughput: stats?.throughput,
      consecutiveFailures: stats?.consecutiveFailures ?? 0,
      coolingForMs: longest ? Math.max(longest.until - this.now(), 0) : 0,
      ...(longest ? { coolingReason: longest.reason, coolingUntil: longest.until } : {}),
      recentFailures: [...(stats?.recentFailures ?? [])],
    };
  }

  latencyMs(endpointKey: string): number | undefined {
    return this.stats.get(endpointKey)?.latencyMs;
  }

  throughput(endpointKey: string): number | undefined {
    return this.stats.get(endpointKey)?.throughput;
  }

  /**
   * Every endpoint measured here or cooling (keys `<provider>/<upstream model>`; the cooldowns of
   * BYOK credentials are left out: their ids must not become metric labels).
   */
  *endpoints(): IterableIterator<EndpointHealthEntry> {
    const keys = new Set(this.stats.keys());
    // Cooled by another replica: shown here too, though this one never called it.
    for (const { key } of this.cooldowns.running()) {
      const bar = key.indexOf('|');
      if (bar === -1) keys.add(key);
      else if (key.endsWith('|gateway')) keys.add(key.slice(0, bar));
    }
    for (const endpointKey of keys) {
      // A workspace's own endpoints are its business, and unbounded as metric labels.
      if (endpointKey.startsWith(WORKSPACE_ENDPOINT_PREFIX)) continue;
      yield this.describe(endpointKey);
    }
  }

  private entry(endpointKey: string): EndpointStats {
    let stats = this.stats.get(endpointKey);
    if (!stats) {
      if (this.stats.size >= MAX_ENDPOINTS) this.stats.delete(this.stats.keys().next().value!);
      stats = { consecutiveFailures: 0, lastFailureAt: 0, recentFailures: [] };
      this.stats.set(endpointKey, stats);
    }
    return stats;
  }
}

function smooth(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}
