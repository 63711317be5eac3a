import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { LimiterStore } from './limiter-store.js';
import { refusals } from './limiter-metrics.js';

export interface RequestRateOptions {
  /** Names the counter family in Redis and in outage logs, e.g. `key-rpm`. */
  name: string;
  /** Default points per window; `consume()` may pass a per-key limit instead. */
  points: number;
  durationSeconds: number;
}

/** What a consume decided, with what the rate-limit headers need. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current window ends (epoch ms). */
  resetAt: number;
  /** Whole seconds until a refused call may succeed (0 when allowed). */
  retryAfterSeconds: number;
  /** True when Redis could not be asked and the request was let through (fail open). */
  degraded: boolean;
}

/**
 * Points per fixed window per key, counted in Redis by `rate-limiter-flexible` (one Lua call
 * per consume), so every replica shares one count. Limiters for different limits share the
 * same counters: the limit only decides where the count is refused.
 */
export class RequestRateLimiter {
  private readonly byLimit = new Map<number, RateLimiterRedis>();

  constructor(
    private readonly store: LimiterStore,
    private readonly options: RequestRateOptions,
  ) {}

  async consume(key: string, limit: number = this.options.points, points = 1): Promise<RateDecision> {
    const limiter = this.limiterFor(limit);
    try {
      return this.decision(limit, await limiter.consume(key, points), true);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        refusals.inc({ limiter: this.options.name });
        return this.decision(limit, rejection, false);
      }
      this.store.reportUnavailable(this.options.name, rejection);
      return {
        allowed: true,
        limit,
        remaining: limit,
        resetAt: Date.now() + this.options.durationSeconds * 1000,
        retryAfterSeconds: 0,
        degraded: true,
      };
    }
  }

  private decision(limit: number, result: RateLimiterRes, allowed: boolean): RateDecision {
    return {
      allowed,
      limit,
      remaining: result.remainingPoints,
      resetAt: Date.now() + result.msBeforeNext,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      degraded: false,
    };
  }

  private limiterFor(limit: number): RateLimiterRedis {
    let limiter = this.byLimit.get(limit);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.store.redis,
        keyPrefix: `rate:${this.options.name}`,
        points: limit,
        duration: this.options.durationSeconds,
        // Fail fast while disconnected rather than wait for the command timeout.
        rejectIfRedisNotReady: true,
      });
      this.byLimit.set(limit, limiter);
    }
    return limiter;
  }
}
